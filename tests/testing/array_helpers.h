// SPDX-License-Identifier: Apache-2.0
// Small array constructors for core tests. Fixtures are built with the builders; a
// failure there is a bug in the test setup, so it aborts instead of returning a Status.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/status.h"

namespace lance::testing {

/// \brief Aborts with `st` when a test fixture could not be built.
inline void Check(const Status& st) {
  if (!st.ok()) {
    std::fprintf(stderr, "test setup failed: %s\n", st.ToString().c_str());
    std::abort();
  }
}

/// \brief Column values with nulls: `Opt<int64_t>{1, std::nullopt, 3}`.
template <typename T>
using Opt = std::vector<std::optional<T>>;

/// \brief An array of `values` (a nullopt appends a null) built with `builder`.
template <typename BuilderT, typename T>
ArrayPtr Build(BuilderT builder, const std::vector<std::optional<T>>& values) {
  for (const auto& v : values) Check(v ? builder.Append(*v) : builder.AppendNull());
  return builder.Finish().value();
}

/// \brief Expects `got` to be `want`, type and values; `what` names the case.
inline void ExpectArray(const ArrayPtr& got, const ArrayPtr& want,
                        const std::string& what) {
  ASSERT_TRUE(got) << what;
  EXPECT_TRUE(got->type()->Equals(*want->type()))
      << what << ": " << got->type()->ToString() << " vs " << want->type()->ToString();
  EXPECT_TRUE(got->Equals(*want))
      << what << ": " << got->ToString() << " vs " << want->ToString();
}

/// \brief `array` as the concrete array class T; aborts when it is another class.
template <typename T>
std::shared_ptr<T> As(const ArrayPtr& array) {
  auto out = std::dynamic_pointer_cast<T>(array);
  if (!out) {
    std::fprintf(stderr, "unexpected array class for %s\n",
                 array->type()->ToString().c_str());
    std::abort();
  }
  return out;
}

// One-line arrays from values; `valid` (empty = all valid) marks the non-null slots.
inline ArrayPtr I8(const std::vector<int8_t>& v, const std::vector<bool>& valid = {}) {
  return ArrayFromVector<Int8Builder>(v, valid).value();
}
inline ArrayPtr I32(const std::vector<int32_t>& v, const std::vector<bool>& valid = {}) {
  return ArrayFromVector<Int32Builder>(v, valid).value();
}
inline ArrayPtr I64(const std::vector<int64_t>& v, const std::vector<bool>& valid = {}) {
  return ArrayFromVector<Int64Builder>(v, valid).value();
}
inline ArrayPtr F64(const std::vector<double>& v, const std::vector<bool>& valid = {}) {
  return ArrayFromVector<DoubleBuilder>(v, valid).value();
}
inline ArrayPtr Str(const std::vector<std::string>& v,
                    const std::vector<bool>& valid = {}) {
  return ArrayFromVector<StringBuilder>(v, valid).value();
}
inline ArrayPtr Bools(const std::vector<bool>& v, const std::vector<bool>& valid = {}) {
  return ArrayFromVector<BooleanBuilder>(v, valid).value();
}

/// \brief Appends one list item: a value, or a null for an empty std::optional.
template <typename BuilderT, typename T>
Status AppendItem(BuilderT* builder, const T& value) {
  return builder->Append(value);
}
template <typename BuilderT, typename T>
Status AppendItem(BuilderT* builder, const std::optional<T>& value) {
  return value ? builder->Append(*value) : builder->AppendNull();
}

/// \brief Appends `rows` to a list builder of any kind whose items are ItemBuilderT, one
/// row a vector of items (std::nullopt rows are null), and finishes it.
template <typename ItemBuilderT, typename ListBuilderT, typename Item>
ArrayPtr FinishRows(ListBuilderT* builder,
                    const std::vector<std::optional<std::vector<Item>>>& rows) {
  auto* child = static_cast<ItemBuilderT*>(builder->value_builder());
  for (const auto& row : rows) {
    if (!row) {
      Check(builder->AppendNull());
      continue;
    }
    Check(builder->Append());
    for (const auto& item : *row) Check(AppendItem(child, item));
  }
  return builder->Finish().value();
}

/// \brief A list built with ListBuilderT over ItemBuilderT items, one row a vector of
/// items; std::nullopt rows are null.
template <typename ListBuilderT, typename ItemBuilderT, typename Item>
ArrayPtr ListsOf(const std::vector<std::optional<std::vector<Item>>>& rows) {
  ListBuilderT builder(std::make_unique<ItemBuilderT>());
  return FinishRows<ItemBuilderT>(&builder, rows);
}

/// \brief A fixed_size_list of `list_size` ItemBuilderT items, one row a vector of
/// exactly `list_size` items; std::nullopt rows are null.
template <typename ItemBuilderT, typename Item>
ArrayPtr FixedSizeListsOf(int32_t list_size,
                          const std::vector<std::optional<std::vector<Item>>>& rows) {
  FixedSizeListBuilder builder(std::make_unique<ItemBuilderT>(), list_size);
  return FinishRows<ItemBuilderT>(&builder, rows);
}

/// \brief A list (ListBuilder) or large list (LargeListBuilder) of int32 rows;
/// std::nullopt rows are null.
template <typename ListBuilderT>
ArrayPtr IntLists(const std::vector<std::optional<std::vector<int32_t>>>& rows) {
  return ListsOf<ListBuilderT, Int32Builder>(rows);
}

/// \brief The items of one row of StringLists(); std::nullopt items are null.
using StringItems = std::vector<std::optional<std::string>>;

/// \brief A list<utf8> of `rows`; std::nullopt rows are null.
inline ArrayPtr StringLists(const std::vector<std::optional<StringItems>>& rows) {
  return ListsOf<ListBuilder, StringBuilder>(rows);
}

}  // namespace lance::testing

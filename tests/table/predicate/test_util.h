// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the filter tests (predicate_test.cc, predicate_arith_test.cc): build
// columns from optionals, make a batch, and read a filter's answer as matching row
// indices.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "table/predicate/predicate.h"
#include "tests/testing/array_helpers.h"
#include "tests/testing/matchers.h"

namespace lance::table::predicate_testing {

using Rows = std::vector<int64_t>;

using ::lance::testing::Build;
using ::lance::testing::Check;
using ::lance::testing::ExpectArray;
using ::lance::testing::Opt;

inline RecordBatchPtr MakeBatch(
    const std::vector<std::pair<std::string, ArrayPtr>>& columns) {
  std::vector<FieldPtr> fields;
  std::vector<ArrayPtr> arrays;
  for (const auto& [name, array] : columns) {
    fields.push_back(field(name, array->type()));
    arrays.push_back(array);
  }
  const int64_t n = arrays.empty() ? 0 : arrays[0]->length();
  return RecordBatch::Make(schema(std::move(fields)), n, std::move(arrays)).value();
}

/// Indices of the rows the filter matches; checks that the mask is a null-free boolean of
/// the batch's length, and records a failure (returning {-1} / {-2}) when the filter does
/// not parse / evaluate.
inline Rows Matching(const std::string& text, const RecordBatch& batch) {
  auto pred = Predicate::Parse(text, *batch.schema());
  if (!pred.ok()) {
    ADD_FAILURE() << text << ": " << pred.status().ToString();
    return {-1};
  }
  auto mask = (*pred)->Evaluate(batch);
  if (!mask.ok()) {
    ADD_FAILURE() << text << ": " << mask.status().ToString();
    return {-2};
  }
  const ArrayPtr& m = *mask;
  EXPECT_EQ(m->type_id(), TypeId::kBool) << text;
  EXPECT_EQ(m->length(), batch.num_rows()) << text;
  EXPECT_EQ(m->null_count(), 0) << text;
  Rows out;
  if (m->type_id() != TypeId::kBool) return out;
  const auto& bools = static_cast<const BooleanArray&>(*m);
  for (int64_t i = 0; i < m->length(); ++i) {
    if (bools.Value(i)) out.push_back(i);
  }
  return out;
}

/// Filters paired with the rows they match.
using MatchingCases = std::vector<std::pair<std::string, Rows>>;

/// Expects each filter of `cases` to match exactly its rows of `batch` (see Matching). A
/// failure is reported at this line and names the filter.
inline void ExpectMatching(const RecordBatch& batch, const MatchingCases& cases) {
  for (const auto& [filter, rows] : cases)
    EXPECT_EQ(Matching(filter, batch), rows) << filter;
}

/// The filter's canonical form, or "ERROR: ..." when it does not parse.
inline std::string Normalized(const std::string& text, const RecordBatch& batch) {
  auto pred = Predicate::Parse(text, *batch.schema());
  if (!pred.ok()) return "ERROR: " + pred.status().ToString();
  return (*pred)->ToString();
}

inline Status ParseStatus(const std::string& text, const RecordBatch& batch) {
  return Predicate::Parse(text, *batch.schema()).status();
}

/// Filters paired with the text their failed parse must mention (or, where a test says
/// so, the rest of its message).
using ParseErrorCases = std::vector<std::pair<std::string, std::string>>;

/// Expects each filter of `cases` to fail to parse with `code` and a message holding the
/// filter's text. A failure is reported at this line and names the filter.
inline void ExpectParseErrors(const RecordBatch& batch, StatusCode code,
                              const ParseErrorCases& cases) {
  for (const auto& [filter, text] : cases) {
    EXPECT_THAT(ParseStatus(filter, batch), ::lance::testing::IsErrorWith(code, text))
        << filter;
  }
}

/// Filters paired with their canonical rendering, or "ERROR" for one that must not parse.
using RenderingCases = std::vector<std::pair<std::string, std::string>>;

/// Expects each filter of `cases` to render as given and its rendering to parse back to
/// itself; an "ERROR" case must fail to parse. A failure is reported at this line and
/// names the filter (or, for the parse back, the rendering).
inline void ExpectRenderings(const RecordBatch& batch, const RenderingCases& cases) {
  for (const auto& [input, expected] : cases) {
    const std::string got = Normalized(input, batch);
    if (expected == "ERROR") {
      EXPECT_EQ(got.rfind("ERROR", 0), 0u) << input << " -> " << got;
    } else {
      EXPECT_EQ(got, expected) << input;
      EXPECT_EQ(Normalized(got, batch), expected) << got;
    }
  }
}

}  // namespace lance::table::predicate_testing

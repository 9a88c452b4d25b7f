// SPDX-License-Identifier: Apache-2.0
// Internal: the checks and helpers the builder files (builder*.cc) share. Not installed.

#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lance/core/buffer.h"
#include "lance/core/builder.h"
#include "lance/core/type.h"
#include "lance/macros.h"
#include "lance/status.h"

namespace lance::internal {

// Fails unless `is_valid` is empty (all valid) or has one flag per appended value.
Status CheckIsValidVector(size_t values, const std::vector<bool>& is_valid);

// Placeholder slots under a null parent: nulls where the child allows them, so readers of
// the child alone see "no value"; empty values where it does not, so the child stays
// valid against its own field.
Status AppendPlaceholders(ArrayBuilder* child, const Field& field, int64_t count);

// Fails on a negative slot count.
Status CheckCount(int64_t count);

// Appends each of `values` through the builder's Append, or a null where `is_valid`
// (empty: all valid) says so; for builders whose values have no cheaper bulk path.
template <typename Builder, typename T>
Status AppendEachOrNull(Builder* builder, const std::vector<T>& values,
                        const std::vector<bool>& is_valid) {
  LANCE_RETURN_NOT_OK(CheckIsValidVector(values.size(), is_valid));
  LANCE_RETURN_NOT_OK(builder->Reserve(static_cast<int64_t>(values.size())));
  for (size_t i = 0; i < values.size(); ++i) {
    if (is_valid.empty() || is_valid[i]) {
      LANCE_RETURN_NOT_OK(builder->Append(values[i]));
    } else {
      LANCE_RETURN_NOT_OK(builder->AppendNulls(1));
    }
  }
  return Status::OK();
}

// Appends `count` copies of the offset `end` to an offsets buffer: slots of length zero,
// as nulls and empty values of the offset layouts (binary, lists) are.
template <typename OffsetT>
Status AppendEmptyOffsets(BufferBuilder* offsets, int64_t end, int64_t count) {
  LANCE_RETURN_NOT_OK(offsets->Reserve(count * static_cast<int64_t>(sizeof(OffsetT))));
  const auto value = static_cast<OffsetT>(end);
  for (int64_t i = 0; i < count; ++i) LANCE_RETURN_NOT_OK(offsets->AppendValue(value));
  return Status::OK();
}

}  // namespace lance::internal

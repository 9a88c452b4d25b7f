// SPDX-License-Identifier: Apache-2.0
// The two-column rows (id, name) that the dataset and namespace suites write.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "tests/testing/matchers.h"

namespace lance::testing {

/// Rows id = start.. (not null), name = "<prefix><id>".
inline RecordBatchPtr NamedRows(int64_t start, int64_t n,
                                const std::string& prefix = "row-") {
  Int64Builder ids;
  StringBuilder names;
  for (int64_t i = start; i < start + n; ++i) {
    EXPECT_OK(ids.Append(i));
    EXPECT_OK(names.Append(prefix + std::to_string(i)));
  }
  auto s = schema({field("id", int64(), false), field("name", utf8())});
  return RecordBatch::Make(s, n, {ids.Finish().value(), names.Finish().value()}).value();
}

}  // namespace lance::testing

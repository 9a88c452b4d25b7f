// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the CLI's unit tests (tests/cli). Header-only: it uses the CLI's
// library (cli/lib), which lance_testing does not link.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "lance/core/type.h"
#include "lib/schema_spec.h"
#include "lib/value_format.h"
#include "tests/testing/matchers.h"

namespace lance::testing {

/// \brief Expects the CLI type string `text` to parse as `expected` (field names and
/// nullability included).
inline void ExpectTypeString(const std::string& text, const DataTypePtr& expected) {
  auto parsed = cli::ParseTypeString(text);
  ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
  EXPECT_TRUE((*parsed)->Equals(*expected, true))
      << text << " parsed as " << (*parsed)->ToString() << ", want "
      << expected->ToString();
}

/// \brief Expects the CLI type string `text` to be refused as Invalid, with
/// `message_part` in the message unless it is empty.
inline void ExpectTypeStringError(const std::string& text,
                                  const std::string& message_part = "") {
  SCOPED_TRACE(text);
  if (message_part.empty()) {
    EXPECT_THAT(cli::ParseTypeString(text), IsError(StatusCode::kInvalid));
  } else {
    EXPECT_THAT(cli::ParseTypeString(text),
                IsErrorWith(StatusCode::kInvalid, message_part));
  }
}

/// \brief Every slot of `array` as the CLI's JSON, joined with ' '.
inline std::string Json(const ArrayPtr& array) {
  std::string out;
  for (int64_t i = 0; i < array->length(); ++i) {
    if (i > 0) out.push_back(' ');
    cli::AppendJsonValue(*array, i, &out);
  }
  return out;
}

/// \brief Every slot of `array` as the CLI's text rendering, joined with '|'.
inline std::string Text(const ArrayPtr& array) {
  std::string out;
  for (int64_t i = 0; i < array->length(); ++i) {
    if (i > 0) out.push_back('|');
    out += cli::FormatTextValue(*array, i);
  }
  return out;
}

}  // namespace lance::testing

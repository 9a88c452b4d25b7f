// SPDX-License-Identifier: Apache-2.0
// The CLI library's tests of inputs it refuses: a table of inputs, each with (part of)
// the Invalid error it must give.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/testing/matchers.h"

namespace lance::cli {

/// An input and (part of) the message of the Invalid error it gives.
struct InvalidInput {
  std::string input;
  std::string error;
};

/// `parse(input)` fails as Invalid, naming the error, for every input of `cases`.
template <typename Parse>
void ExpectInvalid(const Parse& parse, const std::vector<InvalidInput>& cases) {
  for (const InvalidInput& c : cases) {
    EXPECT_THAT(parse(c.input),
                ::lance::testing::IsErrorWith(StatusCode::kInvalid, c.error))
        << "input: " << c.input;
  }
}

}  // namespace lance::cli

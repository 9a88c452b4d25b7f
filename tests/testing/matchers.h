// SPDX-License-Identifier: Apache-2.0
// gtest helpers for Status / Result<T>.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance/macros.h"
#include "lance/result.h"
#include "lance/status.h"

namespace lance::testing {

inline const Status& GetStatus(const Status& s) { return s; }
template <typename T>
const Status& GetStatus(const Result<T>& r) {
  return r.status();
}

MATCHER(IsOk, "is OK") {
  const auto& st = ::lance::testing::GetStatus(arg);
  if (!st.ok()) *result_listener << st.ToString();
  return st.ok();
}

MATCHER_P(IsError, code, "fails with " + std::string(::lance::StatusCodeName(code))) {
  const auto& st = ::lance::testing::GetStatus(arg);
  *result_listener << st.ToString();
  return st.code() == code;
}

MATCHER_P2(IsErrorWith, code, substring,
           "fails with " + std::string(::lance::StatusCodeName(code)) + " mentioning '" +
               std::string(substring) + "'") {
  const auto& st = ::lance::testing::GetStatus(arg);
  *result_listener << st.ToString();
  return st.code() == code && st.message().find(substring) != std::string::npos;
}

/// The gtest / gmock names nearly every test source uses, in one list: a test writes
/// `using namespace ::lance::testing::prelude;` instead of repeating these declarations
/// (and adds its own for anything else).
namespace prelude {
using ::lance::testing::IsError;
using ::lance::testing::IsErrorWith;
using ::lance::testing::IsOk;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::UnorderedElementsAre;
}  // namespace prelude

}  // namespace lance::testing

// `check` (ASSERT_TRUE or EXPECT_TRUE) that a Status or Result is OK; `text` is the
// expression as written, for the message.
#define LANCE_TESTING_CHECK_OK(check, expr, text)                       \
  do {                                                                  \
    auto&& _st = (expr);                                                \
    check(::lance::testing::GetStatus(_st).ok())                        \
        << text << ": " << ::lance::testing::GetStatus(_st).ToString(); \
  } while (false)

#define ASSERT_OK(expr) LANCE_TESTING_CHECK_OK(ASSERT_TRUE, expr, #expr)
#define EXPECT_OK(expr) LANCE_TESTING_CHECK_OK(EXPECT_TRUE, expr, #expr)

#define LANCE_TESTING_ASSIGN_IMPL(tmp, lhs, rexpr)                    \
  auto&& tmp = (rexpr);                                               \
  ASSERT_TRUE(tmp.ok()) << #rexpr << ": " << tmp.status().ToString(); \
  lhs = std::move(tmp).MoveValueUnsafe();

/// ASSERT_OK_AND_ASSIGN(auto x, MakeX());
#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  LANCE_TESTING_ASSIGN_IMPL(LANCE_CONCAT(_assign_tmp_, __COUNTER__), lhs, rexpr)

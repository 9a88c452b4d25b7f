// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "lance/macros.h"
#include "tests/testing/matchers.h"

namespace lance {
namespace {

using ::lance::testing::IsError;
using ::lance::testing::IsErrorWith;
using ::lance::testing::IsOk;

Result<int> ParsePositive(int v) {
  if (v <= 0) return Status::Invalid("value must be positive, got ", v);
  return v;
}

Result<int> Doubled(int v) {
  LANCE_ASSIGN_OR_RAISE(int x, ParsePositive(v));
  return 2 * x;
}

Status Check(int v) {
  LANCE_RETURN_NOT_OK(ParsePositive(v));
  return Status::OK();
}

TEST(StatusTest, OkIsCheapAndPrintsOk) {
  Status st;
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kOk);
  EXPECT_EQ(st.ToString(), "OK");
  EXPECT_EQ(st.message(), "");
}

TEST(StatusTest, CarriesCodeMessageAndRetryable) {
  Status st = Status::Unavailable("GET s3://b/k: 503 SlowDown");
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(st.IsUnavailable());
  EXPECT_TRUE(st.retryable());
  EXPECT_EQ(st.ToString(), "Unavailable: GET s3://b/k: 503 SlowDown (retryable)");
  EXPECT_FALSE(Status::NotFound("x").retryable());
}

TEST(StatusTest, CopiesAreIndependentValues) {
  Status a = Status::Conflict("commit of version 3 lost");
  Status b = a;
  EXPECT_EQ(a, b);
  b = Status::OK();
  EXPECT_TRUE(a.IsConflict());
  EXPECT_TRUE(b.ok());
}

TEST(StatusTest, WithContextPrefixesAndKeepsCode) {
  Status st = Status::IOError("disk full", true).WithContext("writing '/tmp/x'");
  EXPECT_EQ(st.message(), "When writing '/tmp/x': disk full");
  EXPECT_TRUE(st.IsIOError());
  EXPECT_TRUE(st.retryable());
  EXPECT_TRUE(Status::OK().WithContext("anything").ok());
}

TEST(StatusTest, FactoriesBuildMessagesFromPieces) {
  const std::string path = "/tmp/x.lance";
  Status st =
      Status::Corrupt("page ", 3, " of '", path, "' claims ", int64_t{-7}, " rows, ", 1.5,
                      " MiB, sorted=", false, ' ', std::string_view("!"));
  EXPECT_EQ(st.message(),
            "page 3 of '/tmp/x.lance' claims -7 rows, 1.5 MiB, sorted=false !");
  EXPECT_EQ(StrCat(uint64_t{18446744073709551615ull}, "/", 0.1f),
            "18446744073709551615/0.1");
  std::string out = "a";
  StrAppend(&out, 'b', 12, StatusCode::kInvalid == StatusCode::kInvalid);
  EXPECT_EQ(out, "ab12true");
}

class TestDetail final : public StatusDetail {
 public:
  explicit TestDetail(int n) : n_(n) {}
  int n() const { return n_; }
  std::string_view type_id() const override { return "test"; }
  std::string ToString() const override { return "n=" + std::to_string(n_); }

 private:
  int n_;
};

TEST(StatusTest, DetailSurvivesContextCopiesAndIsTyped) {
  Status st =
      Status::NotFound("no such object").WithDetail(std::make_shared<TestDetail>(42));
  Status outer = st.WithContext("opening 's3://b/k'");
  ASSERT_NE(outer.detail_as<TestDetail>(), nullptr);
  EXPECT_EQ(outer.detail_as<TestDetail>()->n(), 42);
  EXPECT_EQ(outer.detail_as<ErrnoDetail>(), nullptr);
  Status copy = outer;
  EXPECT_EQ(copy.detail(), outer.detail());
  EXPECT_EQ(Status::Invalid("x").detail(), nullptr);
  EXPECT_TRUE(Status::OK().WithDetail(std::make_shared<TestDetail>(1)).ok());
  // The detail is for programs; the text stays what it was.
  EXPECT_EQ(outer.ToString(), "NotFound: When opening 's3://b/k': no such object");
  Status io = Status::IOError("open failed").WithDetail(std::make_shared<ErrnoDetail>(2));
  ASSERT_NE(io.detail_as<ErrnoDetail>(), nullptr);
  EXPECT_EQ(io.detail_as<ErrnoDetail>()->errnum(), 2);
  EXPECT_NE(io.detail()->ToString().find("errno 2"), std::string::npos);
}

TEST(StatusTest, EveryCodeHasAName) {
  // kCommitStateUnknown is the last code (added after kUnknown).
  for (int c = 0; c <= static_cast<int>(StatusCode::kCommitStateUnknown); ++c) {
    EXPECT_NE(StatusCodeName(static_cast<StatusCode>(c)), "");
  }
  EXPECT_EQ(StatusCodeName(StatusCode::kTokenExpired), "TokenExpired");
  EXPECT_EQ(StatusCodeName(StatusCode::kCommitStateUnknown), "CommitStateUnknown");
  EXPECT_TRUE(Status::CommitStateUnknown("x").IsCommitStateUnknown());
  EXPECT_EQ(StatusCodeName(StatusCode::kForbidden), "Forbidden");
}

TEST(ResultTest, HoldsValueOrError) {
  Result<int> ok = ParsePositive(3);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 3);
  EXPECT_EQ(ok.value_or(7), 3);
  Result<int> bad = ParsePositive(-1);
  EXPECT_FALSE(bad.has_value());
  EXPECT_THAT(bad, IsErrorWith(StatusCode::kInvalid, "got -1"));
  EXPECT_EQ(bad.value_or(7), 7);
}

TEST(ResultTest, MacrosPropagate) {
  EXPECT_THAT(Doubled(4), IsOk());
  EXPECT_EQ(*Doubled(4), 8);
  EXPECT_THAT(Doubled(0), IsError(StatusCode::kInvalid));
  EXPECT_THAT(Check(1), IsOk());
  EXPECT_THAT(Check(-5), IsError(StatusCode::kInvalid));
}

TEST(ResultTest, OkStatusWithoutValueBecomesAnError) {
  Result<int> r{Status::OK()};
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnknown);
}

TEST(ResultTest, MoveOnlyValues) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(5);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 5);
}

TEST(ResultDeathTest, ValueOfErrorAborts) {
  Result<int> bad = Status::NotFound("nope");
  EXPECT_DEATH((void)bad.value(), "value\\(\\) called on an error Result");
}

}  // namespace
}  // namespace lance

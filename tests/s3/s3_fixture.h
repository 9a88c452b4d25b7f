// SPDX-License-Identifier: Apache-2.0
// What the suites on the RGW of the test run share: a fixture holding the run's
// S3TestEnv (a failure, never a skip, where there is none) and the rows they write.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/io/s3_object_store.h"
#include "tests/testing/env_test.h"
#include "tests/testing/matchers.h"
#include "tests/testing/named_rows.h"
#include "tests/testing/s3_env.h"

namespace lance::testing {

/// A test against the RGW of the test run: env_ is set before the derived SetUp runs
/// (which starts with ASSERT_NO_FATAL_FAILURE(S3EnvTest::SetUp())).
class S3EnvTest : public EnvTest<S3TestEnv> {};

/// An S3EnvTest under a fresh prefix: root_ ("s3://<bucket>/lance-test-<unique>/<name>"),
/// root_key_ (the same inside the bucket: "lance-test-<unique>/<name>"), and direct_, a
/// store straight to RGW with the static test key for checking, which empties the prefix
/// afterwards. With `needs_sts`, a failure where the run has no STS role to vend with.
class S3PrefixTest : public S3EnvTest {
 protected:
  explicit S3PrefixTest(std::string name, bool needs_sts = false)
      : name_(std::move(name)), needs_sts_(needs_sts) {}

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(S3EnvTest::SetUp());
    ASSERT_FALSE(needs_sts_ && env_.sts_role_arn.empty())
        << "LANCE_S3_STS_ROLE_ARN is not set: run through `make test`";
    root_ = env_.UniqueUri(name_);
    root_key_ = root_.substr(("s3://" + env_.bucket + "/").size());
    auto direct = io::S3ObjectStore::FromStorageOptions(env_.bucket, env_.Options());
    ASSERT_TRUE(direct.ok()) << direct.status().ToString();
    direct_ = *direct;
  }

  void TearDown() override {
    if (direct_ != nullptr) {
      Status st = direct_->DeletePrefix(root_key_ + "/");
      EXPECT_TRUE(st.ok()) << "cleaning up " << root_ << ": " << st.ToString();
    }
  }

  std::string root_;
  std::string root_key_;
  std::shared_ptr<io::S3ObjectStore> direct_;

 private:
  std::string name_;
  bool needs_sts_;
};

}  // namespace lance::testing

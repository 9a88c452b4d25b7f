// SPDX-License-Identifier: Apache-2.0
// The fixture of every suite against a service of the test run (RGW, Azurite,
// fake-gcs-server): the run's coordinates, a failure (never a skip) where there are none.
#pragma once

#include <gtest/gtest.h>

namespace lance::testing {

/// A test against the service that `Env` describes (S3TestEnv, AzureTestEnv, GcsTestEnv:
/// each has a `static Result<Env> Get()`): env_ is set before the derived SetUp runs
/// (which starts with ASSERT_NO_FATAL_FAILURE(<Base>::SetUp())).
template <class Env>
class EnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto env = Env::Get();
    ASSERT_TRUE(env.ok()) << env.status().ToString();
    env_ = *env;
  }

  Env env_;
};

}  // namespace lance::testing

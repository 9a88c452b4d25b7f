// SPDX-License-Identifier: Apache-2.0
// What the fault-injection suites on RGW share (s3_fault_test.cc, lost_ack_test.cc): a
// FaultProxy in front of the real server, a fresh prefix, a store straight to RGW for
// checking and clean-up, and stores / options of clients behind the proxy.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "lance/io/s3_object_store.h"
#include "tests/testing/fault_proxy.h"
#include "tests/testing/matchers.h"
#include "tests/testing/s3_env.h"

namespace lance::testing {

class S3ProxyTest : public ::testing::Test {
 protected:
  /// \brief `name` names the test prefix ("s3://bucket/lance-test-<unique>/<name>").
  explicit S3ProxyTest(std::string name) : name_(std::move(name)) {}

  void SetUp() override {
    auto env = S3TestEnv::Get();
    ASSERT_TRUE(env.ok()) << env.status().ToString();
    env_ = *env;
    auto proxy = FaultProxy::Start(env_.endpoint);
    ASSERT_TRUE(proxy.ok()) << proxy.status().ToString();
    proxy_ = std::move(*proxy);
    // "s3://bucket/lance-test-<unique>/<name>" -> "lance-test-<unique>/<name>".
    std::string uri = env_.UniqueUri(name_);
    prefix_ = uri.substr(("s3://" + env_.bucket + "/").size());
    auto direct = io::S3ObjectStore::FromStorageOptions(env_.bucket, env_.Options());
    ASSERT_TRUE(direct.ok()) << direct.status().ToString();
    direct_ = *direct;
  }

  void TearDown() override {
    proxy_.reset();  // no request in flight while the prefix goes
    if (direct_) EXPECT_OK(direct_->DeletePrefix(prefix_ + "/"));
  }

  /// \brief Options for a client behind the proxy: quick backoff, a 1 s stall timeout,
  /// then `extra`.
  io::StorageOptions ProxyOptions(int max_retries = 5,
                                  io::StorageOptions extra = {}) const {
    io::StorageOptions o = env_.Options();
    o["aws_endpoint"] = proxy_->endpoint();
    o["client_max_retries"] = std::to_string(max_retries);
    o["lance_cpp_initial_backoff_ms"] = "1";
    o["lance_cpp_max_backoff_ms"] = "20";
    o["lance_cpp_stall_timeout"] = "1s";
    for (auto& [k, v] : extra) o[k] = v;
    return o;
  }

  std::shared_ptr<io::S3ObjectStore> ProxyStore(int max_retries = 5,
                                                io::StorageOptions extra = {}) const {
    auto store = io::S3ObjectStore::FromStorageOptions(
        env_.bucket, ProxyOptions(max_retries, std::move(extra)));
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? *store : nullptr;
  }

  S3TestEnv env_;
  std::unique_ptr<FaultProxy> proxy_;
  std::string prefix_;
  std::shared_ptr<io::S3ObjectStore> direct_;

 private:
  std::string name_;
};

}  // namespace lance::testing

// SPDX-License-Identifier: Apache-2.0
// The AWS credential vendor as the RGW suites configure it: the test role on RGW's own
// STS, 15 min sessions (RGW's minimum), the static test key as the caller; the fixture
// of the suites that vend through it.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "lance/io/s3_object_store.h"
#include "lance/namespace/credential_vendor.h"
#include "tests/s3/s3_fixture.h"
#include "tests/testing/matchers.h"
#include "tests/testing/s3_env.h"

namespace lance::testing {

inline ns::AwsCredentialVendorOptions RgwVendorOptions(const S3TestEnv& env) {
  ns::AwsCredentialVendorOptions options;
  options.role_arn = env.sts_role_arn;
  options.region = env.region;
  options.sts_endpoint = env.endpoint;
  options.duration_millis = 900'000;
  options.caller_storage_options = env.Options();
  return options;
}

/// A test under a fresh prefix (S3PrefixTest) that vends through RGW's STS (a failure
/// where the run has no role for it).
class S3VendingTest : public S3PrefixTest {
 protected:
  explicit S3VendingTest(std::string name)
      : S3PrefixTest(std::move(name), /*needs_sts=*/true) {}

  ns::AwsCredentialVendorOptions VendorOptions() const { return RgwVendorOptions(env_); }

  /// A raw store on the bucket that signs with `options` (vended ones: their expiry
  /// keys are dropped).
  std::shared_ptr<io::S3ObjectStore> RawStore(io::StorageOptions options) const {
    options.erase("expires_at_millis");
    options.erase("refresh_offset_millis");
    auto store = io::S3ObjectStore::FromStorageOptions(env_.bucket, options);
    EXPECT_THAT(store, IsOk());
    return store.ok() ? *store : nullptr;
  }
};

}  // namespace lance::testing

// SPDX-License-Identifier: Apache-2.0
// The AWS credential vendor as the RGW suites configure it: the test role on RGW's own
// STS, 15 min sessions (RGW's minimum), the static test key as the caller.
#pragma once

#include "lance/namespace/credential_vendor.h"
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

}  // namespace lance::testing

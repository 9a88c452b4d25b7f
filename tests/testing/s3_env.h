// SPDX-License-Identifier: Apache-2.0
// The real S3 server of the tests (Ceph RGW started by scripts/run_tests.sh, see
// scripts/rgw.sh): its coordinates from the environment, fresh buckets, run-time keys
// (radosgw-admin) and STS session credentials.
//
// There is no skip: when LANCE_S3_ENDPOINT is missing, S3TestEnv::Get() is an error that
// tells how to run the tests, and the test fails.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/io/credentials.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/s3_object_store.h"
#include "lance/result.h"

namespace lance::testing {

struct S3TestEnv {
  std::string endpoint;      ///< LANCE_S3_ENDPOINT, e.g. http://127.0.0.1:7480
  std::string region;        ///< LANCE_S3_REGION
  std::string access_key;    ///< LANCE_S3_ACCESS_KEY (the test user's static key)
  std::string secret_key;    ///< LANCE_S3_SECRET_KEY
  std::string bucket;        ///< LANCE_S3_BUCKET (exists)
  std::string sts_role_arn;  ///< LANCE_S3_STS_ROLE_ARN
  std::string rgw_conf;      ///< LANCE_RGW_CONF (for radosgw-admin -c)

  /// \brief The environment, read once. \return Invalid with instructions when unset.
  static Result<S3TestEnv> Get();

  /// \brief Storage options for the static test key: aws_endpoint, aws_region,
  /// allow_http, aws_access_key_id, aws_secret_access_key.
  io::StorageOptions Options() const;
  /// \brief Options() with other credentials (session token included when non-empty).
  io::StorageOptions OptionsWith(const io::s3::AwsCredentials& credentials) const;

  /// \brief "s3://<bucket>/<unique prefix>/<name>": a location no other test (or run)
  /// uses. Unique per call.
  std::string UniqueUri(std::string_view name) const;
};

/// \brief A new, empty bucket with a unique name (prefix "t-"), and a store on it (static
/// test key). The bucket and everything in it are deleted when the returned store is
/// destroyed (best effort).
Result<std::shared_ptr<io::ObjectStore>> MakeFreshBucketStore(
    const io::StorageOptions& extra = {});

/// \brief `radosgw-admin key create` for the test user: a new static key pair, valid on
/// the very next request. Secret is random; the key id starts with "LCT".
Result<io::s3::AwsCredentials> CreateAccessKey();
/// \brief `radosgw-admin key rm`: the key is refused (403) on the very next request.
Status RemoveAccessKey(const std::string& access_key_id);

/// \brief STS AssumeRole on RGW for the test role (minimum 900 s), optionally with a
/// session policy (compact JSON, no spaces: RGW quirk). Returns key, secret and token.
Result<io::s3::AwsCredentials> AssumeRole(
    std::chrono::seconds duration = std::chrono::seconds(900),
    const std::string& session_policy = "");

/// \brief The keys of the multipart uploads in progress in `bucket` (first page; one
/// entry per upload), via a signed GET ?uploads with the static test key.
Result<std::vector<std::string>> ListMultipartUploads(const std::string& bucket);

}  // namespace lance::testing

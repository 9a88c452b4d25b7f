// SPDX-License-Identifier: Apache-2.0
// The GCS server of the tests (fake-gcs-server, started by scripts/run_tests.sh through
// scripts/gcs.sh): its coordinates from LANCE_GCS_*, storage options for it, fresh
// buckets and unique prefixes. There is no skip: without LANCE_GCS_ENDPOINT the tests
// fail and say how to run them.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>

#include "io/gcs/gcs_client.h"
#include "lance/io/gcs_object_store.h"
#include "lance/io/storage_options.h"
#include "lance/macros.h"
#include "lance/result.h"
#include "tests/testing/env_test.h"

namespace lance::testing {

struct GcsTestEnv {
  std::string endpoint;  ///< LANCE_GCS_ENDPOINT, e.g. http://127.0.0.1:4443
  std::string bucket;    ///< LANCE_GCS_BUCKET (exists)

  static Result<GcsTestEnv> Get() {
    const char* endpoint = std::getenv("LANCE_GCS_ENDPOINT");
    const char* bucket = std::getenv("LANCE_GCS_BUCKET");
    if (endpoint == nullptr || *endpoint == '\0' || bucket == nullptr ||
        *bucket == '\0') {
      return Status::Invalid(
          "LANCE_GCS_ENDPOINT / LANCE_GCS_BUCKET are not set: the GCS tests need the "
          "fake-gcs-server that scripts/run_tests.sh starts (make test), or `eval "
          "\"$(GCS_PORT=4471 scripts/gcs.sh start /tmp/gcs)\"` by hand");
    }
    return GcsTestEnv{endpoint, bucket};
  }

  /// \brief Storage options for the server itself (no token: it checks none), with quick
  /// retries, and `base_url` instead of the server's when given (a proxy).
  io::StorageOptions Options(const std::string& base_url = "") const {
    return {{"google_base_url", base_url.empty() ? endpoint : base_url},
            {"allow_http", "true"},
            {"client_max_retries", "3"},
            {"lance_cpp_initial_backoff_ms", "1"},
            {"lance_cpp_max_backoff_ms", "20"}};
  }

  /// \brief A name no other test (or run) uses: "<prefix>-<pid>-<ms>-<n>".
  static std::string Unique(const std::string& prefix) {
    static std::atomic<int64_t> counter{0};
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    return prefix + "-" + std::to_string(getpid()) + "-" + std::to_string(ms) + "-" +
           std::to_string(counter.fetch_add(1));
  }
};

/// A test against the fake-gcs-server of the run: env_ set before the derived SetUp.
class GcsEnvTest : public EnvTest<GcsTestEnv> {};

/// \brief A new bucket with a unique name on the test server and a store on it (options
/// Options(base_url) plus `extra`, credentials `source` or none). Every object in it is
/// deleted when the returned store is destroyed (through a direct, token-free store).
inline Result<std::shared_ptr<io::ObjectStore>> MakeFreshGcsBucketStore(
    const io::StorageOptions& extra = {},
    std::shared_ptr<io::CredentialsSource> source = {},
    const std::string& base_url = "") {
  LANCE_ASSIGN_OR_RAISE(GcsTestEnv env, GcsTestEnv::Get());
  const std::string bucket = GcsTestEnv::Unique("t");
  LANCE_ASSIGN_OR_RAISE(auto direct,
                        io::GcsObjectStore::FromStorageOptions(bucket, env.Options()));
  LANCE_RETURN_NOT_OK(direct->client()->CreateBucket());
  io::StorageOptions options = env.Options(base_url);
  for (const auto& [k, v] : extra) options[k] = v;
  LANCE_ASSIGN_OR_RAISE(auto store,
                        io::GcsObjectStore::FromStorageOptions(bucket, options, source));
  auto* raw = store.get();
  std::shared_ptr<io::GcsObjectStore> keep = store;
  return std::shared_ptr<io::ObjectStore>(raw, [keep, direct](io::ObjectStore*) mutable {
    (void)direct->DeletePrefix("");
    keep.reset();
  });
}

}  // namespace lance::testing

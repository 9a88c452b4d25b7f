// SPDX-License-Identifier: Apache-2.0
// A store decorator that counts how objects are looked up and opened, so tests can pin
// down metadata round trips (a HEAD per file costs a request on S3); and a store factory
// that notes what it was called with, so tests can see what reaches it.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "lance/io/credentials.h"
#include "lance/io/object_store.h"
#include "lance/io/object_store_registry.h"

namespace lance::testing {

class OpenCountingStore : public io::ObjectStoreWrapper {
 public:
  /// Counts only calls whose path contains `path_filter` (all calls when empty).
  explicit OpenCountingStore(std::shared_ptr<io::ObjectStore> target,
                             std::string path_filter = "")
      : io::ObjectStoreWrapper(std::move(target)), filter_(std::move(path_filter)) {}

  Result<io::ObjectMeta> Head(const std::string& path) override {
    if (Matches(path)) ++heads;
    return io::ObjectStoreWrapper::Head(path);
  }
  Result<std::shared_ptr<io::RandomAccessReader>> OpenReader(
      const std::string& path) override {
    if (Matches(path)) ++open_reader;
    return io::ObjectStoreWrapper::OpenReader(path);
  }
  Result<std::shared_ptr<io::RandomAccessReader>> OpenReaderWithSize(
      const std::string& path, int64_t size) override {
    if (Matches(path)) ++open_reader_with_size;
    return io::ObjectStoreWrapper::OpenReaderWithSize(path, size);
  }

  std::atomic<int> heads{0};
  std::atomic<int> open_reader{0};
  std::atomic<int> open_reader_with_size{0};

 private:
  bool Matches(const std::string& path) const {
    return filter_.empty() || path.find(filter_) != std::string::npos;
  }

  std::string filter_;
};

/// What a logged store factory (RegisterLoggedFactory) was last called with, and how
/// often.
struct FactoryLog {
  std::mutex mu;
  io::StorageOptions options;
  std::shared_ptr<io::CredentialsSource> credentials;
  int calls = 0;

  void Clear() {
    std::lock_guard<std::mutex> lock(mu);
    options.clear();
    credentials.reset();
    calls = 0;
  }
};

/// Registers, in the default registry and replacing any earlier one, a factory for
/// `scheme` that notes each call in `*log` and hands out `store`. `log` must outlive the
/// registration.
inline Status RegisterLoggedFactory(const std::string& scheme,
                                    std::shared_ptr<io::ObjectStore> store,
                                    FactoryLog* log) {
  return io::ObjectStoreRegistry::Default().Register(
      scheme,
      [store = std::move(store), log](
          const io::Uri&, const io::StorageOptions& options,
          const std::shared_ptr<io::CredentialsSource>& credentials)
          -> Result<std::shared_ptr<io::ObjectStore>> {
        std::lock_guard<std::mutex> lock(log->mu);
        log->options = options;
        log->credentials = credentials;
        ++log->calls;
        return store;
      },
      /*replace=*/true);
}

/// A static credentials source with the given access key id and the secret "secret".
inline std::shared_ptr<io::CredentialsSource> StaticTestCredentials(
    const std::string& access_key_id) {
  io::s3::AwsCredentials creds;
  creds.access_key_id = access_key_id;
  creds.secret_access_key = "secret";
  return std::make_shared<io::StaticCredentialsSource>(creds);
}

}  // namespace lance::testing

// SPDX-License-Identifier: Apache-2.0
// A store decorator that counts how objects are looked up and opened, so tests can pin
// down metadata round trips (a HEAD per file costs a request on S3).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <utility>

#include "lance/io/object_store.h"

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

}  // namespace lance::testing

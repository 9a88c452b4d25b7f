// SPDX-License-Identifier: Apache-2.0
/// \file memory_object_store.h
/// \brief MemoryObjectStore: an ObjectStore held in process memory, for tests and
/// scratch datasets.

#pragma once

#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "lance/io/object_store.h"

namespace lance::io {

/// \brief An ObjectStore backed by a sorted map from key to immutable buffer.
///
/// Objects are immutable once published: writers publish on Close, readers and Read
/// share the stored buffer without copying, and an overwrite replaces the map entry so
/// earlier readers keep the old bytes.
///
/// Named instances: Named("x") returns the process-wide store for "memory://x", which
/// the registry hands out for every "memory://x/..." URI, so a dataset written to
/// memory://x can be reopened later in the same process. Named instances live until
/// DropNamed() (or process exit). Stores built with the constructor are private.
///
/// Thread-safe: a shared mutex guards the map (readers share it, writers hold it
/// exclusively); PutIfNotExists and RenameIfNotExists check and insert under one lock.
class MemoryObjectStore : public ObjectStore {
 public:
  /// \brief A private, empty store whose uri() is "memory://<name>". It is not shared
  /// with Named(name).
  explicit MemoryObjectStore(std::string name = "");
  ~MemoryObjectStore() override;

  /// \brief The process-wide store named `name` (created empty on first use).
  static std::shared_ptr<MemoryObjectStore> Named(const std::string& name);
  /// \brief Forgets the named store; holders of it keep a working (now private) store.
  /// \return true if such a store existed.
  static bool DropNamed(const std::string& name);

  Result<ObjectMeta> Head(const std::string& path) override;
  Result<ListResult> List(const std::string& prefix,
                          const ListOptions& options = {}) override;
  Result<std::shared_ptr<RandomAccessReader>> OpenReader(
      const std::string& path) override;
  Result<std::unique_ptr<OutputStream>> OpenWriter(const std::string& path) override;
  Status PutIfNotExists(const std::string& path, std::string_view data) override;
  Status Delete(const std::string& path) override;
  Status Copy(const std::string& src, const std::string& dst) override;
  Status Rename(const std::string& src, const std::string& dst) override;
  Status RenameIfNotExists(const std::string& src, const std::string& dst) override;

  /// \brief Conditional put, lexical listing, local.
  ObjectStoreCapabilities capabilities() const override { return {.local = true}; }

  /// \brief "memory://" + name.
  const std::string& uri() const override { return uri_; }
  /// \brief The instance name.
  const std::string& root() const override { return name_; }
  std::string ToString() const override;

  /// \brief Number of objects stored.
  int64_t num_objects() const;
  /// \brief Total bytes stored.
  int64_t total_bytes() const;

 private:
  struct Object {
    BufferPtr data;
    int64_t last_modified = 0;
  };
  // Shared with open writers, which publish into it on Close even if the store handle
  // that created them is gone.
  struct State {
    mutable std::shared_mutex mu;
    std::map<std::string, Object, std::less<>> objects;
  };
  class Writer;

  std::string name_;
  std::string uri_;
  std::shared_ptr<State> state_;
};

}  // namespace lance::io

// SPDX-License-Identifier: Apache-2.0
/// \file local_object_store.h
/// \brief LocalObjectStore: an ObjectStore over a directory of the local file system.

#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/io/object_store.h"

namespace lance::io {

/// \brief Options of a LocalObjectStore.
struct LocalObjectStoreOptions {
  /// \brief fsync every file before publishing it, and its directory after. Turning
  /// this off trades crash durability (not atomicity) for speed.
  bool fsync = true;

  static LocalObjectStoreOptions Defaults() { return {}; }
};

/// \brief An ObjectStore whose keys are files under a root directory (POSIX).
///
/// Layout: the object "a/b/c.lance" is the file `<root>/a/b/c.lance`. Parent
/// directories are created on demand and are not removed when their last object is
/// deleted (except by DeletePrefix, which removes the directories it empties), so they
/// may show up in non-recursive listings as common prefixes; has_directories() is true.
///
/// Atomic publication: every write (OpenWriter, Put, PutIfNotExists, Copy) goes to a
/// hidden temporary file in the destination directory, named with the reserved prefix
/// kTempFilePrefix (".lance-tmp-"), which is then renamed over the key (or, for
/// PutIfNotExists, moved with renameat2(RENAME_NOREPLACE) or hard-linked, both of which
/// fail if the key exists). Readers therefore see no object or a complete one. Temporary
/// files never appear in List, and keys with a segment starting with kTempFilePrefix
/// are rejected as Invalid. A crash may leave temporary files behind; they are invisible
/// to the store.
///
/// Reads use pread on one file descriptor per reader, so ReadAt is thread-safe and a
/// reader keeps seeing the file it opened even if the key is replaced.
///
/// Thread-safe: the store keeps no mutable state; concurrency is the file system's.
class LocalObjectStore : public ObjectStore {
 public:
  /// \brief The reserved name prefix of temporary files.
  static constexpr std::string_view kTempFilePrefix = ".lance-tmp-";

  /// \brief A store rooted at `root_dir`; a relative directory is resolved against the
  /// current working directory. The directory need not exist yet.
  /// \return the store; Invalid if `root_dir` is empty; IOError if the working
  /// directory cannot be determined.
  static Result<std::shared_ptr<LocalObjectStore>> Make(
      const std::string& root_dir,
      LocalObjectStoreOptions options = LocalObjectStoreOptions::Defaults());

  /// \brief Prefer Make(). REQUIRES: `root_dir` is absolute and lexically normal.
  explicit LocalObjectStore(
      std::string root_dir,
      LocalObjectStoreOptions options = LocalObjectStoreOptions::Defaults());

  Result<ObjectMeta> Head(const std::string& path) override;
  Result<ListResult> List(const std::string& prefix,
                          const ListOptions& options = {}) override;
  Result<std::shared_ptr<RandomAccessReader>> OpenReader(
      const std::string& path) override;
  Result<BufferPtr> Read(const std::string& path) override;
  Result<std::unique_ptr<OutputStream>> OpenWriter(const std::string& path) override;
  Status PutIfNotExists(const std::string& path, std::string_view data) override;
  Status Delete(const std::string& path) override;
  /// \brief Also removes the directories it leaves empty at or below the prefix.
  Status DeletePrefix(const std::string& prefix) override;
  Status Copy(const std::string& src, const std::string& dst) override;
  Status Rename(const std::string& src, const std::string& dst) override;
  Status RenameIfNotExists(const std::string& src, const std::string& dst) override;

  /// \brief Conditional put, lexical listing, local, directories.
  ObjectStoreCapabilities capabilities() const override {
    return {.directories = true, .local = true};
  }

  /// \brief "file://" + root().
  const std::string& uri() const override { return uri_; }
  /// \brief The absolute root directory.
  const std::string& root() const override { return root_; }
  std::string ToString() const override;
  /// \brief FilePath(key): the absolute path the user gave ("/tmp/x.lance/..."), not
  /// the root-relative key.
  std::string DisplayPath(std::string_view key) const override { return FilePath(key); }

  const LocalObjectStoreOptions& options() const { return options_; }

  /// \brief The file system path of `key`. REQUIRES: the key is valid.
  std::string FilePath(std::string_view key) const;

 private:
  struct Entry;
  Status CheckKey(const std::string& path) const;
  Status CollectEntries(const std::string& prefix, bool recursive,
                        std::vector<Entry>* entries) const;
  Status PublishNoReplace(const std::string& tmp_path, const std::string& final_path,
                          const std::string& key, std::string_view action) const;

  std::string root_;
  std::string uri_;
  LocalObjectStoreOptions options_;
};

}  // namespace lance::io

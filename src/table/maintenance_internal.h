// SPDX-License-Identifier: Apache-2.0
// Internals shared by the maintenance operations (compaction.cc, cleanup.cc, tags.cc,
// restore.cc, config.cc) and their transaction rules (transaction_maintenance.cc).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "lance/result.h"
#include "table/manifest.h"

namespace lance::table_internal {

/// \brief While alive on this thread, a Restore transaction being committed takes its
/// content from `source` (the restored version's manifest). BuildManifest only sees the
/// transaction and the previous manifest, while Lance's Restore replaces the whole
/// manifest by an old one; the commit runs on the calling thread, so the scope reaches
/// it without changing the commit protocol's signatures.
class RestoreSourceScope {
 public:
  explicit RestoreSourceScope(const pb::Manifest* source);
  ~RestoreSourceScope();
  RestoreSourceScope(const RestoreSourceScope&) = delete;
  RestoreSourceScope& operator=(const RestoreSourceScope&) = delete;
  /// \brief The manifest of the version being restored on this thread, or nullptr.
  static const pb::Manifest* Current();

 private:
  const pb::Manifest* previous_;
};

/// \brief One tag as Lance stores it in `_refs/tags/<name>.json`.
struct TagRecord {
  uint64_t version = 0;
  std::optional<std::string> branch;
  int64_t manifest_size = 0;
  std::string created_at;  ///< RFC 3339, as Lance writes it
  std::string updated_at;
  std::map<std::string, std::string> metadata;
};

/// \brief Every tag of the dataset (name -> record). \return Corrupt naming the file.
Result<std::map<std::string, TagRecord>> ReadTags(const DatasetDir& dir);

}  // namespace lance::table_internal

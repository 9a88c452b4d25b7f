// SPDX-License-Identifier: Apache-2.0
// Internals shared by the maintenance operations: the tags (tags.cc), which cleanup.cc
// keeps alive. (Restore's hand-over to the commit, RestoreSourceScope, is a transaction
// rule: table/transaction.h.)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "lance/result.h"
#include "table/manifest.h"

namespace lance::table_internal {

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

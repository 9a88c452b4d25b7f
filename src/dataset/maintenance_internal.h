// SPDX-License-Identifier: Apache-2.0
// Internals shared by the maintenance operations: the tags (tags.cc), which cleanup.cc
// keeps alive. (Restore's hand-over to the commit, RestoreSourceScope, is a transaction
// rule: table/transaction.h.)
#pragma once

#include <map>
#include <string>

#include "lance/dataset/maintenance.h"
#include "lance/result.h"
#include "table/manifest.h"

namespace lance::table_internal {

/// \brief Every tag of the dataset (name -> its `_refs/tags/<name>.json`, as Lance
/// stores it). \return Corrupt naming the file.
Result<std::map<std::string, TagInfo>> ReadTags(const DatasetDir& dir);

}  // namespace lance::table_internal

// SPDX-License-Identifier: Apache-2.0
// The `__manifest` table of a directory namespace (manifest layout): Lance's
// dir/manifest.rs schema and rows, and the reads and commits DirectoryNamespace makes on
// it. Private to src/namespace.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/dataset/dataset.h"
#include "lance/io/storage_access.h"
#include "lance/namespace/namespace.h"
#include "lance/result.h"

namespace lance::ns::internal {

/// Joins the levels of an id into a __manifest object_id.
inline constexpr std::string_view kDelimiter = "$";
/// The object_type values.
inline constexpr std::string_view kTypeTable = "table";
inline constexpr std::string_view kTypeNamespace = "namespace";

struct ManifestRow {
  std::string object_id;
  std::string object_type;
  std::optional<std::string> location;
  std::optional<std::string> metadata;
  uint64_t row_address = 0;
};

inline std::string Quote(std::string_view s) { return "'" + std::string(s) + "'"; }

/// The metadata column: properties as a JSON object of strings (null when absent or
/// empty, as Lance).
Result<std::optional<std::string>> PropertiesToJson(
    const std::optional<Properties>& props);
/// \return the properties; Internal when the column is not a JSON object of strings.
Result<std::optional<Properties>> PropertiesFromJson(
    const std::optional<std::string>& text, std::string_view object_id);

/// The `__manifest` table at `<root>/__manifest`, read and committed with the namespace's
/// own storage access.
class ManifestTable {
 public:
  /// The namespace root, as given (trailing '/' trimmed).
  std::string root;
  /// The namespace's access, resolved once (so every commit shares its store).
  io::StorageAccess access;

  /// "<root>/__manifest".
  std::string ManifestUri() const;

  OpenOptions ManifestOpenOptions() const;

  Result<std::shared_ptr<Dataset>> OpenManifest();

  /// Creates `__manifest` (version 1, no rows) unless it exists; a concurrent creator
  /// winning the race is fine.
  Status EnsureManifest();

  /// Rows matching `filter` (empty: all), in scan order (ascending row address).
  Result<std::vector<ManifestRow>> ReadRows(const Dataset& ds, const std::string& filter);

  Result<std::vector<ManifestRow>> ReadLatest(const std::string& filter);

  /// The row of `object_id` (of `type`, or any type when empty); with duplicates (a
  /// losing declarer not yet cleaned up) the first in scan order, the winner's.
  Result<std::optional<ManifestRow>> FindObject(std::string_view object_id,
                                                std::string_view type = {});

  Result<RecordBatchPtr> MakeRowBatch(const ManifestRow& row);

  /// Removes exactly the fragment `fragment_id` (which holds only our row) from the
  /// manifest, as a Lance Delete naming it in deleted_fragment_ids. A predicate cannot
  /// do this: a duplicate row may be byte-for-byte the winner's.
  Status RemoveFragment(const Dataset& ds, uint64_t fragment_id,
                        std::string_view object_id);

  /// Appends `row` and decides, from the version committed, whether it is the only row
  /// of its object id (see DirectoryNamespace::DeclareTable for why exactly one
  /// concurrent writer wins). A loser removes its row and gets `duplicate`.
  Status InsertUnique(const ManifestRow& row, ErrorCode duplicate, std::string_view what);

  /// Deletes every row of `object_id` of `type`, retrying commit races.
  Status DeleteObject(std::string_view object_id, std::string_view type);

  /// Parent levels of a namespace must be recorded (Lance's
  /// validate_namespace_levels_exist: any object with that id counts).
  Status CheckParentsExist(const Identifier& ns);

  /// Names of direct children of `parent` of `type` (object ids "<parent>$<name>" with
  /// no further '$'), with their rows.
  Result<std::map<std::string, ManifestRow>> Children(const Identifier& parent,
                                                      std::string_view type);
};

}  // namespace lance::ns::internal

// SPDX-License-Identifier: Apache-2.0
// DirectoryNamespace: both layouts of Lance's directory namespace. The facts matched
// (paths, markers, __manifest schema, location forms, error kinds) come from Lance's
// rust/lance-namespace-impls/src/dir.rs and dir/manifest.rs and were checked against
// pylance 14's DirectoryNamespace (tests/interop/test_namespace_dir.py).

#include "lance/namespace/directory_namespace.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "lance/core/array.h"
#include "lance/core/ascii.h"
#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/io/uri.h"
#include "lance/macros.h"
#include "lance/table/dataset.h"

namespace lance::ns {

namespace {

constexpr std::string_view kManifestName = "__manifest";
constexpr std::string_view kDelimiter = "$";
constexpr std::string_view kReservedMarker = ".lance-reserved";
constexpr std::string_view kDeregisteredMarker = ".lance-deregistered";
constexpr std::string_view kTypeTable = "table";
constexpr std::string_view kTypeNamespace = "namespace";
// Lance's LANCE_UNENFORCED_PRIMARY_KEY_POSITION. Lance migrates a __manifest whose
// object_id lacks it (a write), so we create ours with it.
constexpr std::string_view kPrimaryKeyPositionKey =
    "lance-schema:unenforced-primary-key:position";
/// The file format of a new __manifest: pylance 14's.
constexpr std::string_view kManifestFileVersion = "2.2";
// Commit races on __manifest for deletes (appends retry inside Dataset::Write).
constexpr int kDeleteAttempts = 8;

/// Lance's manifest_schema(), field for field (names, types, nullability, metadata).
SchemaPtr ManifestSchema() {
  return schema({
      field("object_id", utf8(), /*nullable=*/false,
            KeyValueMetadata{{std::string(kPrimaryKeyPositionKey), "0"}}),
      field("object_type", utf8(), false),
      field("location", utf8(), true),
      field("metadata", utf8(), true),
      field("base_objects", list(field("object_id", utf8(), true)), true),
  });
}

struct ManifestRow {
  std::string object_id;
  std::string object_type;
  std::optional<std::string> location;
  std::optional<std::string> metadata;
  uint64_t row_address = 0;
};

/// A SQL string literal for our predicate language ('' escapes a quote).
std::string Literal(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
  return out;
}

/// Debug-formatted string as Rust's {:?} prints it (quotes, escaped '"' and '\').
std::string RustDebugString(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

/// Percent-encodes a path segment the way the `url` crate does (Lance builds manifest
/// table URIs with Url::path_segments_mut): controls, space, '"', '#', '<', '>', '?',
/// '`', '{', '}', '%', '/' and non-ASCII bytes.
std::string EncodePathSegment(std::string_view segment) {
  static constexpr std::string_view kEncode = " \"#<>?`{}%/";
  std::string out;
  for (unsigned char c : segment) {
    if (c < 0x20 || c >= 0x7f || kEncode.find(static_cast<char>(c)) != std::string::npos) {
      char buf[4];
      std::snprintf(buf, sizeof(buf), "%%%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string Quote(std::string_view s) { return "'" + std::string(s) + "'"; }

std::string TableIdText(const Identifier& id) {
  return "table id " + Quote(JoinIdentifier(id, kDelimiter));
}

Result<std::optional<std::string>> PropertiesToJson(const std::optional<Properties>& props) {
  // Lance stores no metadata (null) for absent or empty properties.
  if (!props || props->empty()) return std::optional<std::string>();
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [k, v] : *props) json[k] = v;
  return std::optional<std::string>(json.dump());
}

Result<std::optional<Properties>> PropertiesFromJson(const std::optional<std::string>& text,
                                                     std::string_view object_id) {
  if (!text) return std::optional<Properties>();
  nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return NamespaceError(ErrorCode::kInternal,
                          "the __manifest metadata of " + Quote(object_id) +
                              " is not a JSON object");
  }
  Properties props;
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (!it.value().is_string()) {
      return NamespaceError(ErrorCode::kInternal,
                            "the __manifest metadata of " + Quote(object_id) +
                                " has a non-string value for " + Quote(it.key()));
    }
    props[it.key()] = it.value().get<std::string>();
  }
  return std::optional<Properties>(std::move(props));
}

/// Lance's generate_dir_name: "<8 random hex digits>_<object_id>". A fresh
/// std::random_device per call: declarations are rare, and it stays unpredictable across
/// fork() (a seeded generator would give parent and child the same names).
std::string RandomDirName(std::string_view object_id) {
  std::random_device rd;
  char hex[16];
  std::snprintf(hex, sizeof(hex), "%08x", static_cast<unsigned>(rd()));
  return std::string(hex) + "_" + std::string(object_id);
}

std::string TrimTrailingSlashes(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

// -- Impl ---------------------------------------------------------------------------------

class DirectoryNamespace::Impl {
 public:
  DirectoryNamespaceOptions opts;
  std::shared_ptr<io::ObjectStore> store;
  std::string base;      // the root's key inside `store` ("" = the store root)
  std::string root_url;  // the root as a URL (file:///abs for local paths), for locations

  // -- Paths -------------------------------------------------------------------------

  std::string Key(std::string_view rel) const {
    if (base.empty()) return std::string(rel);
    return base + "/" + std::string(rel);
  }
  /// "<root>/<rel>": Lance's table_full_uri, the form of plain-layout locations.
  std::string RawUri(std::string_view rel) const { return opts.root + "/" + std::string(rel); }
  /// Lance's construct_full_uri: the root as a URL plus the encoded relative location.
  std::string FullUri(std::string_view rel) const {
    std::string out = root_url;
    size_t start = 0;
    while (start <= rel.size()) {
      size_t slash = rel.find('/', start);
      if (slash == std::string_view::npos) slash = rel.size();
      std::string_view seg = rel.substr(start, slash - start);
      if (!seg.empty()) {
        if (out.empty() || out.back() != '/') out += '/';
        out += EncodePathSegment(seg);
      }
      start = slash + 1;
    }
    return out;
  }
  std::string ManifestUri() const { return opts.root + "/" + std::string(kManifestName); }

  std::optional<Properties> ResponseStorageOptions(const std::optional<bool>& vend) const {
    if (!vend.value_or(true) || opts.storage_options.empty()) return std::nullopt;
    return opts.storage_options;
  }

  // -- Directory layout ----------------------------------------------------------------

  struct TableStatus {
    bool exists = false;
    bool deregistered = false;
    bool reserved = false;
  };

  /// One listing of `<dir>/` gives a consistent view of existence and markers (as
  /// Lance's check_table_status).
  Result<TableStatus> CheckTableStatus(std::string_view dir) {
    LANCE_ASSIGN_OR_RAISE(io::ListResult listing,
                          store->ListAll(Key(dir) + "/", /*recursive=*/false));
    TableStatus status;
    status.exists = !listing.objects.empty() || !listing.common_prefixes.empty();
    for (const io::ObjectMeta& meta : listing.objects) {
      std::string_view name(meta.path);
      name = name.substr(name.rfind('/') + 1);
      if (name == kDeregisteredMarker) status.deregistered = true;
      if (name == kReservedMarker) status.reserved = true;
    }
    return status;
  }

  /// Names of `<root>/<name>.lance` directories that are not deregistered.
  Result<std::vector<std::string>> ListDirectoryTables() {
    LANCE_ASSIGN_OR_RAISE(io::ListResult listing,
                          store->ListAll(base.empty() ? "" : base + "/", false));
    std::vector<std::string> names;
    for (const std::string& prefix : listing.common_prefixes) {
      std::string_view dir(prefix);
      if (!dir.empty() && dir.back() == '/') dir.remove_suffix(1);
      dir = dir.substr(dir.rfind('/') == std::string_view::npos ? 0 : dir.rfind('/') + 1);
      if (dir.size() <= 6 || dir.substr(dir.size() - 6) != ".lance") continue;
      LANCE_ASSIGN_OR_RAISE(TableStatus status, CheckTableStatus(dir));
      if (status.deregistered) continue;
      names.emplace_back(dir.substr(0, dir.size() - 6));
    }
    return names;
  }

  /// True when `<rel>/_versions/` holds anything (the table has a version).
  Result<bool> HasVersions(std::string_view rel) {
    io::ListOptions list;
    list.recursive = true;
    list.max_keys = 1;
    LANCE_ASSIGN_OR_RAISE(io::ListResult listing,
                          store->List(Key(rel) + "/_versions/", list));
    return !listing.objects.empty();
  }

  Status PutMarker(std::string_view dir, std::string_view marker) {
    return store->PutIfNotExists(Key(dir) + "/" + std::string(marker), "");
  }

  // -- The __manifest table ------------------------------------------------------------

  OpenOptions ManifestOpenOptions() const {
    OpenOptions open;
    open.storage_options = opts.storage_options;
    open.credentials = opts.credentials;
    return open;
  }

  Result<std::shared_ptr<Dataset>> OpenManifest() {
    auto opened = Dataset::Open(ManifestUri(), ManifestOpenOptions());
    if (!opened.ok()) {
      return opened.status().WithContext("opening the namespace manifest " +
                                         Quote(ManifestUri()));
    }
    return opened;
  }

  /// Creates `__manifest` (version 1, no rows) unless it exists; a concurrent creator
  /// winning the race is fine.
  Status EnsureManifest() {
    auto opened = Dataset::Open(ManifestUri(), ManifestOpenOptions());
    if (opened.ok()) return Status::OK();
    if (!opened.status().IsNotFound()) {
      return opened.status().WithContext("opening the namespace manifest " +
                                         Quote(ManifestUri()));
    }
    SchemaPtr s = ManifestSchema();
    auto reader = RecordBatchReader::FromBatches(s, {});
    WriteParams params;
    params.mode = WriteMode::kCreate;
    // pylance 14 creates __manifest in file format 2.2 (LanceDB-node 0.31 in 2.1); later
    // appends keep whatever version the root's __manifest has, so roots made by either
    // stay as their creator made them.
    params.data_storage_version = std::string(kManifestFileVersion);
    params.storage_options = opts.storage_options;
    params.credentials = opts.credentials;
    auto written = Dataset::Write(*reader, ManifestUri(), params);
    if (written.ok() || written.status().IsAlreadyExists()) return Status::OK();
    return written.status().WithContext("creating the namespace manifest " +
                                        Quote(ManifestUri()));
  }

  /// Rows matching `filter` (empty: all), in scan order (ascending row address).
  Result<std::vector<ManifestRow>> ReadRows(const Dataset& ds, const std::string& filter) {
    ScanOptions scan;
    scan.columns = {"object_id", "object_type", "location", "metadata"};
    scan.filter = filter;
    scan.with_row_id = true;
    LANCE_ASSIGN_OR_RAISE(RecordBatchReaderPtr reader, ds.Scan(scan));
    std::vector<ManifestRow> rows;
    while (true) {
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, reader->Next());
      if (!batch) break;
      auto ids = std::dynamic_pointer_cast<StringArray>(batch->GetColumnByName("object_id"));
      auto types =
          std::dynamic_pointer_cast<StringArray>(batch->GetColumnByName("object_type"));
      auto locs = std::dynamic_pointer_cast<StringArray>(batch->GetColumnByName("location"));
      auto metas = std::dynamic_pointer_cast<StringArray>(batch->GetColumnByName("metadata"));
      auto addrs = std::dynamic_pointer_cast<UInt64Array>(batch->GetColumnByName("_rowid"));
      if (!ids || !types || !locs || !metas || !addrs) {
        return NamespaceError(ErrorCode::kInternal,
                              "the namespace manifest " + Quote(ManifestUri()) +
                                  " does not have Lance's __manifest columns");
      }
      for (int64_t i = 0; i < batch->num_rows(); ++i) {
        ManifestRow row;
        row.object_id = ids->IsNull(i) ? "" : ids->GetString(i);
        row.object_type = types->IsNull(i) ? "" : types->GetString(i);
        if (locs->IsValid(i)) row.location = locs->GetString(i);
        if (metas->IsValid(i)) row.metadata = metas->GetString(i);
        row.row_address = addrs->Value(i);
        rows.push_back(std::move(row));
      }
    }
    return rows;
  }

  Result<std::vector<ManifestRow>> ReadLatest(const std::string& filter) {
    LANCE_ASSIGN_OR_RAISE(auto ds, OpenManifest());
    return ReadRows(*ds, filter);
  }

  /// The row of `object_id` (of `type`, or any type when empty); with duplicates (a
  /// losing declarer not yet cleaned up) the first in scan order, the winner's.
  Result<std::optional<ManifestRow>> FindObject(std::string_view object_id,
                                                std::string_view type = {}) {
    std::string filter = "object_id = " + Literal(object_id);
    if (!type.empty()) filter += " AND object_type = " + Literal(type);
    LANCE_ASSIGN_OR_RAISE(auto rows, ReadLatest(filter));
    if (rows.empty()) return std::optional<ManifestRow>();
    return std::optional<ManifestRow>(std::move(rows.front()));
  }

  Result<RecordBatchPtr> MakeRowBatch(const ManifestRow& row) {
    SchemaPtr s = ManifestSchema();
    StringBuilder ids, types, locs, metas;
    LANCE_RETURN_NOT_OK(ids.Append(row.object_id));
    LANCE_RETURN_NOT_OK(types.Append(row.object_type));
    LANCE_RETURN_NOT_OK(row.location ? locs.Append(*row.location) : locs.AppendNull());
    LANCE_RETURN_NOT_OK(row.metadata ? metas.Append(*row.metadata) : metas.AppendNull());
    BaseListBuilder<int32_t> bases(std::make_unique<StringBuilder>(),
                                   s->field(4)->type());
    LANCE_RETURN_NOT_OK(bases.AppendNull());
    std::vector<ArrayPtr> columns(5);
    LANCE_ASSIGN_OR_RAISE(columns[0], ids.Finish());
    LANCE_ASSIGN_OR_RAISE(columns[1], types.Finish());
    LANCE_ASSIGN_OR_RAISE(columns[2], locs.Finish());
    LANCE_ASSIGN_OR_RAISE(columns[3], metas.Finish());
    LANCE_ASSIGN_OR_RAISE(columns[4], bases.Finish());
    return RecordBatch::Make(s, 1, std::move(columns));
  }

  /// Removes exactly the fragment `fragment_id` (which holds only our row) from the
  /// manifest, as a Lance Delete naming it in deleted_fragment_ids. A predicate cannot
  /// do this: a duplicate row may be byte-for-byte the winner's.
  Status RemoveFragment(const Dataset& ds, uint64_t fragment_id, std::string_view object_id) {
    DeleteOp op;
    op.deleted_fragment_ids.push_back(fragment_id);
    op.predicate = "object_id = " + Literal(object_id);
    auto committed = Dataset::Commit(ManifestUri(), op, ds.version(), opts.storage_options,
                                      opts.credentials);
    if (!committed.ok()) {
      return committed.status().WithContext("removing the losing __manifest row of " +
                                            Quote(object_id));
    }
    return Status::OK();
  }

  /// Appends `row` and decides, from the version committed, whether it is the only row
  /// of its object id (see DirectoryNamespace::DeclareTable for why exactly one
  /// concurrent writer wins). A loser removes its row and gets `duplicate`.
  Status InsertUnique(const ManifestRow& row, ErrorCode duplicate, std::string_view what) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, MakeRowBatch(row));
    auto reader = RecordBatchReader::FromBatches(batch->schema(), {batch});
    WriteParams params;
    params.mode = WriteMode::kAppend;
    params.storage_options = opts.storage_options;
    params.credentials = opts.credentials;
    auto written = Dataset::Write(*reader, ManifestUri(), params);
    if (!written.ok()) {
      if (written.status().IsConflict()) {
        return NamespaceError(ErrorCode::kConcurrentModification,
                              "appending " + std::string(what) + " to " +
                                  Quote(ManifestUri()) + ": " + written.status().message());
      }
      return written.status().WithContext("appending " + std::string(what) + " to " +
                                          Quote(ManifestUri()));
    }
    const std::shared_ptr<Dataset>& ds = *written;
    if (ds->fragments().empty()) {
      return NamespaceError(ErrorCode::kInternal,
                            "the manifest commit of " + std::string(what) + " has no fragment");
    }
    // Fragments are sorted by id and ours got the highest id when it was committed.
    const uint64_t mine = ds->fragments().back().id;
    LANCE_ASSIGN_OR_RAISE(auto rows,
                          ReadRows(*ds, "object_id = " + Literal(row.object_id)));
    if (rows.empty()) {
      return NamespaceError(ErrorCode::kInternal,
                            "the row of " + std::string(what) + " is missing from " +
                                Quote(ManifestUri()) + " right after its commit");
    }
    if ((rows.front().row_address >> 32) == mine) return Status::OK();
    LANCE_RETURN_NOT_OK(RemoveFragment(*ds, mine, row.object_id));
    return NamespaceError(duplicate, std::string(what) + " already exists (a concurrent "
                                                         "writer recorded it first)");
  }

  /// Deletes every row of `object_id` of `type`, retrying commit races.
  Status DeleteObject(std::string_view object_id, std::string_view type) {
    const std::string predicate =
        "object_id = " + Literal(object_id) + " AND object_type = " + Literal(type);
    Status last;
    for (int attempt = 0; attempt < kDeleteAttempts; ++attempt) {
      LANCE_ASSIGN_OR_RAISE(auto ds, OpenManifest());
      last = ds->Delete(predicate);
      if (last.ok() || !last.IsConflict()) break;
    }
    if (last.IsConflict()) {
      return NamespaceError(ErrorCode::kConcurrentModification,
                            "removing " + Quote(object_id) + " from " + Quote(ManifestUri()) +
                                ": " + last.message());
    }
    return last;
  }

  /// Parent levels of a namespace must be recorded (Lance's
  /// validate_namespace_levels_exist: any object with that id counts).
  Status CheckParentsExist(const Identifier& ns) {
    for (size_t i = 1; i <= ns.size(); ++i) {
      Identifier part(ns.begin(), ns.begin() + i);
      const std::string object_id = JoinIdentifier(part, kDelimiter);
      LANCE_ASSIGN_OR_RAISE(auto found, FindObject(object_id));
      if (!found) {
        return NamespaceError(ErrorCode::kNamespaceNotFound,
                              "parent namespace " + Quote(object_id));
      }
    }
    return Status::OK();
  }

  /// Names of direct children of `parent` of `type` (object ids "<parent>$<name>" with
  /// no further '$'), with their rows.
  Result<std::map<std::string, ManifestRow>> Children(const Identifier& parent,
                                                      std::string_view type) {
    LANCE_ASSIGN_OR_RAISE(auto rows, ReadLatest("object_type = " + Literal(type)));
    const std::string prefix =
        parent.empty() ? "" : JoinIdentifier(parent, kDelimiter) + std::string(kDelimiter);
    std::map<std::string, ManifestRow> out;
    for (ManifestRow& row : rows) {
      if (row.object_id.compare(0, prefix.size(), prefix) != 0) continue;
      std::string rest = row.object_id.substr(prefix.size());
      if (rest.empty() || rest.find(kDelimiter) != std::string::npos) continue;
      out.emplace(std::move(rest), std::move(row));  // keeps the first (the winner)
    }
    return out;
  }

  // -- Checks ---------------------------------------------------------------------------

  Status ValidateTableId(const Identifier& id) const {
    if (id.empty()) {
      return NamespaceError(ErrorCode::kInvalidInput, "Table ID cannot be empty");
    }
    return ValidateLevels(id);
  }

  Status ValidateLevels(const Identifier& id) const {
    for (const std::string& level : id) {
      // Levels become directory names and '$'-joined manifest ids.
      if (level.empty() || level.find('/') != std::string::npos ||
          (opts.manifest_enabled && level.find(kDelimiter) != std::string::npos)) {
        return NamespaceError(ErrorCode::kInvalidInput,
                              "invalid identifier level " + Quote(level) + " in " +
                                  Quote(JoinIdentifier(id, kDelimiter)));
      }
    }
    return Status::OK();
  }

  /// Root-level tables keep `<name>.lance` while directory listing is on (both layouts).
  bool DirStyle(const Identifier& id) const {
    return id.size() == 1 && (!opts.manifest_enabled || opts.dir_listing_enabled);
  }

  // -- Shared by DeclareTable and CreateEmptyTable ------------------------------------

  struct Declared {
    std::string location;
  };

  Result<Declared> Declare(const Identifier& id, const std::optional<std::string>& location,
                           const std::optional<Properties>& properties) {
    LANCE_RETURN_NOT_OK(ValidateTableId(id));
    if (!opts.manifest_enabled) {
      if (id.size() != 1) {
        return NamespaceError(ErrorCode::kUnsupported,
                              "Multi-level table IDs are only supported when manifest mode "
                              "is enabled, but got " + TableIdText(id));
      }
      if (properties && !properties->empty()) {
        return NamespaceError(ErrorCode::kUnsupported,
                              "table properties need manifest mode (" + TableIdText(id) + ")");
      }
    }
    const std::string object_id = JoinIdentifier(id, kDelimiter);
    if (opts.manifest_enabled) {
      LANCE_ASSIGN_OR_RAISE(auto existing, FindObject(object_id));
      if (existing) {
        return NamespaceError(ErrorCode::kTableAlreadyExists,
                              existing->object_type == kTypeTable
                                  ? TableIdText(id)
                                  : TableIdText(id) + " (a " + existing->object_type +
                                        " has that id)");
      }
    }
    const bool dir_style = DirStyle(id);
    const std::string dir = dir_style ? id[0] + ".lance" : RandomDirName(object_id);
    // Lance answers the plain layout with "<root>/<name>.lance" and the manifest layout
    // with the root URL joined with the directory.
    const std::string uri = opts.manifest_enabled ? FullUri(dir) : RawUri(dir);
    if (location && TrimTrailingSlashes(*location) != uri) {
      return NamespaceError(ErrorCode::kInvalidInput,
                            "Cannot declare table " + Quote(id.back()) + " at location " +
                                *location + ", must be at location " + uri);
    }
    if (dir_style) {
      LANCE_ASSIGN_OR_RAISE(TableStatus status, CheckTableStatus(dir));
      if (status.exists && !status.reserved) {
        // A table with data (or deregistered) already lives there.
        return NamespaceError(ErrorCode::kTableAlreadyExists, TableIdText(id));
      }
    }
    // The create-only marker is the gate for `<name>.lance` declarations: of concurrent
    // declarers exactly one creates it.
    Status marker = PutMarker(dir, kReservedMarker);
    if (marker.IsAlreadyExists()) {
      return NamespaceError(ErrorCode::kTableAlreadyExists, TableIdText(id));
    }
    LANCE_RETURN_NOT_OK(marker.WithContext("declaring " + TableIdText(id)));
    if (opts.manifest_enabled) {
      ManifestRow row;
      row.object_id = object_id;
      row.object_type = std::string(kTypeTable);
      row.location = dir;
      LANCE_ASSIGN_OR_RAISE(row.metadata, PropertiesToJson(properties));
      Status inserted = InsertUnique(row, ErrorCode::kTableAlreadyExists, TableIdText(id));
      if (!inserted.ok()) {
        // A loser's random directory holds only its marker; `<name>.lance` belongs to
        // whoever won its gate, so it is left alone.
        if (!dir_style) (void)store->Delete(Key(dir) + "/" + std::string(kReservedMarker));
        return inserted;
      }
    }
    return Declared{uri};
  }

  // -- Table lookup ---------------------------------------------------------------------

  struct Found {
    std::string location;  // as reported
    std::string dir;       // relative to the root, for I/O
    std::optional<Properties> properties;
    bool from_manifest = false;
    bool dir_reserved = false;
  };

  /// Root-level tables: their directory first (Lance's dir path while listing is on),
  /// then __manifest; nested ones: __manifest.
  Result<Found> FindTable(const Identifier& id) {
    LANCE_RETURN_NOT_OK(ValidateTableId(id));
    if (DirStyle(id)) {
      const std::string dir = id[0] + ".lance";
      LANCE_ASSIGN_OR_RAISE(TableStatus status, CheckTableStatus(dir));
      if (status.deregistered) {
        return NamespaceError(ErrorCode::kTableNotFound,
                              "Table is deregistered: " + TableIdText(id));
      }
      if (status.exists) {
        Found found;
        found.location = RawUri(dir);
        found.dir = dir;
        found.dir_reserved = status.reserved;
        return found;
      }
    }
    if (!opts.manifest_enabled) {
      if (id.size() != 1) {
        return NamespaceError(ErrorCode::kUnsupported,
                              "Multi-level table IDs are only supported when manifest mode "
                              "is enabled, but got " + TableIdText(id));
      }
      return NamespaceError(ErrorCode::kTableNotFound, TableIdText(id));
    }
    const std::string object_id = JoinIdentifier(id, kDelimiter);
    LANCE_ASSIGN_OR_RAISE(auto row, FindObject(object_id, kTypeTable));
    if (!row || !row->location) {
      return NamespaceError(ErrorCode::kTableNotFound, TableIdText(id));
    }
    Found found;
    found.location = FullUri(*row->location);
    found.dir = *row->location;
    found.from_manifest = true;
    LANCE_ASSIGN_OR_RAISE(found.properties, PropertiesFromJson(row->metadata, object_id));
    return found;
  }
};

// -- Construction -------------------------------------------------------------------------

DirectoryNamespace::DirectoryNamespace(std::unique_ptr<Impl> impl,
                                       DirectoryNamespaceOptions options)
    : impl_(std::move(impl)), options_(std::move(options)) {}

DirectoryNamespace::~DirectoryNamespace() = default;

Result<std::shared_ptr<DirectoryNamespace>> DirectoryNamespace::FromProperties(
    const Properties& properties) {
  DirectoryNamespaceOptions options;
  auto root = properties.find("root");
  if (root == properties.end()) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          "Missing required property 'root' for directory namespace");
  }
  options.root = root->second;
  for (const auto& [key, value] : properties) {
    if (key.rfind("storage.", 0) == 0) options.storage_options[key.substr(8)] = value;
  }
  auto parse_bool = [&](const std::string& key, bool* out) -> Status {
    auto it = properties.find(key);
    if (it == properties.end()) return Status::OK();
    if (it->second == "true") {
      *out = true;
    } else if (it->second == "false") {
      *out = false;
    } else {
      return NamespaceError(ErrorCode::kInvalidInput,
                            "property " + Quote(key) + " must be 'true' or 'false', got " +
                                Quote(it->second));
    }
    return Status::OK();
  };
  LANCE_RETURN_NOT_OK(parse_bool("manifest_enabled", &options.manifest_enabled));
  LANCE_RETURN_NOT_OK(parse_bool("dir_listing_enabled", &options.dir_listing_enabled));
  return Make(std::move(options));
}

Result<std::shared_ptr<DirectoryNamespace>> DirectoryNamespace::Make(
    DirectoryNamespaceOptions options) {
  // Lance trims every trailing '/'; a bare "/" stays the file system root.
  while (options.root.size() > 1 && options.root.back() == '/') options.root.pop_back();
  if (options.root.empty()) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          "the directory namespace root must not be empty");
  }
  auto impl = std::make_unique<Impl>();
  impl->opts = options;
  auto resolved = io::ResolveObjectStore(options.root, options.storage_options,
                                         options.credentials);
  if (!resolved.ok()) {
    return resolved.status().WithContext("opening the directory namespace root " +
                                         Quote(options.root));
  }
  impl->store = resolved->store;
  impl->base = resolved->path;
  LANCE_ASSIGN_OR_RAISE(io::Uri parsed, io::ParseUri(options.root));
  // Lance's uri_to_url: local paths become file:// URLs of their absolute path.
  impl->root_url = parsed.scheme == "file" ? parsed.ToString() : options.root;
  if (options.manifest_enabled) LANCE_RETURN_NOT_OK(impl->EnsureManifest());
  return std::make_shared<DirectoryNamespace>(std::move(impl), std::move(options));
}

std::string DirectoryNamespace::namespace_id() const {
  return "DirectoryNamespace { root: " + RustDebugString(options_.root) + " }";
}

// -- Namespaces ---------------------------------------------------------------------------

Result<ListNamespacesResponse> DirectoryNamespace::ListNamespaces(
    const ListNamespacesRequest& request) {
  ListNamespacesResponse response;
  if (!options_.manifest_enabled) {
    if (!request.id.empty()) {
      return NamespaceError(ErrorCode::kUnsupported,
                            "Directory namespace only supports root namespace operations "
                            "without manifest mode, but got namespace ID " +
                                Quote(JoinIdentifier(request.id)));
    }
    return response;
  }
  LANCE_ASSIGN_OR_RAISE(auto children, impl_->Children(request.id, kTypeNamespace));
  for (auto& [name, row] : children) response.namespaces.push_back(name);
  response.page_token = Paginate(&response.namespaces, request.page_token, request.limit);
  return response;
}

Result<DescribeNamespaceResponse> DirectoryNamespace::DescribeNamespace(
    const DescribeNamespaceRequest& request) {
  DescribeNamespaceResponse response;
  if (request.id.empty()) {
    response.properties = Properties{};
    return response;
  }
  if (!options_.manifest_enabled) {
    return NamespaceError(ErrorCode::kUnsupported,
                          "Child namespaces are only supported when manifest mode is enabled");
  }
  const std::string object_id = JoinIdentifier(request.id, kDelimiter);
  LANCE_ASSIGN_OR_RAISE(auto row, impl_->FindObject(object_id, kTypeNamespace));
  if (!row) return NamespaceError(ErrorCode::kNamespaceNotFound, Quote(object_id));
  LANCE_ASSIGN_OR_RAISE(response.properties, PropertiesFromJson(row->metadata, object_id));
  return response;
}

Result<CreateNamespaceResponse> DirectoryNamespace::CreateNamespace(
    const CreateNamespaceRequest& request) {
  if (request.id.empty()) {
    return NamespaceError(ErrorCode::kNamespaceAlreadyExists, "root namespace");
  }
  if (!options_.manifest_enabled) {
    return NamespaceError(ErrorCode::kUnsupported,
                          "Child namespaces are only supported when manifest mode is enabled");
  }
  LANCE_RETURN_NOT_OK(impl_->ValidateLevels(request.id));
  bool exist_ok = false;
  if (request.mode) {
    if (EqualsIgnoreAsciiCase(*request.mode, "exist_ok") || EqualsIgnoreAsciiCase(*request.mode, "existok")) {
      exist_ok = true;
    } else if (EqualsIgnoreAsciiCase(*request.mode, "overwrite")) {
      return NamespaceError(ErrorCode::kUnsupported,
                            "create_namespace mode 'overwrite' is not supported by " +
                                namespace_id());
    } else if (!EqualsIgnoreAsciiCase(*request.mode, "create")) {
      return NamespaceError(ErrorCode::kInvalidInput,
                            "unknown create_namespace mode " + Quote(*request.mode));
    }
  }
  if (request.id.size() > 1) {
    LANCE_RETURN_NOT_OK(impl_->CheckParentsExist(
        Identifier(request.id.begin(), request.id.end() - 1)));
  }
  const std::string object_id = JoinIdentifier(request.id, kDelimiter);
  CreateNamespaceResponse response;
  auto existing_props = [&]() -> Result<CreateNamespaceResponse> {
    LANCE_ASSIGN_OR_RAISE(auto row, impl_->FindObject(object_id, kTypeNamespace));
    CreateNamespaceResponse existing;
    if (row) {
      LANCE_ASSIGN_OR_RAISE(existing.properties, PropertiesFromJson(row->metadata, object_id));
    }
    return existing;
  };
  LANCE_ASSIGN_OR_RAISE(auto found, impl_->FindObject(object_id));
  if (found) {
    if (exist_ok && found->object_type == kTypeNamespace) return existing_props();
    return NamespaceError(ErrorCode::kNamespaceAlreadyExists, Quote(object_id));
  }
  ManifestRow row;
  row.object_id = object_id;
  row.object_type = std::string(kTypeNamespace);
  LANCE_ASSIGN_OR_RAISE(row.metadata, PropertiesToJson(request.properties));
  Status inserted = impl_->InsertUnique(row, ErrorCode::kNamespaceAlreadyExists,
                                        "namespace " + Quote(object_id));
  if (!inserted.ok()) {
    if (exist_ok && NamespaceErrorCode(inserted) == ErrorCode::kNamespaceAlreadyExists) {
      return existing_props();
    }
    return inserted;
  }
  response.properties = request.properties;
  return response;
}

Result<DropNamespaceResponse> DirectoryNamespace::DropNamespace(
    const DropNamespaceRequest& request) {
  if (request.id.empty()) {
    return NamespaceError(ErrorCode::kInvalidInput, "Root namespace cannot be dropped");
  }
  if (!options_.manifest_enabled) {
    return NamespaceError(ErrorCode::kUnsupported,
                          "Child namespaces are only supported when manifest mode is enabled");
  }
  if (request.behavior && EqualsIgnoreAsciiCase(*request.behavior, "cascade")) {
    return NamespaceError(ErrorCode::kUnsupported,
                          "drop_namespace behavior 'cascade' is not supported by " +
                              namespace_id());
  }
  const bool skip = request.mode && EqualsIgnoreAsciiCase(*request.mode, "skip");
  const std::string object_id = JoinIdentifier(request.id, kDelimiter);
  LANCE_ASSIGN_OR_RAISE(auto row, impl_->FindObject(object_id, kTypeNamespace));
  if (!row) {
    if (skip) return DropNamespaceResponse{};
    return NamespaceError(ErrorCode::kNamespaceNotFound, Quote(object_id));
  }
  // Restrict: anything recorded below it (tables, namespaces) keeps it alive.
  LANCE_ASSIGN_OR_RAISE(auto all, impl_->ReadLatest(""));
  const std::string prefix = object_id + std::string(kDelimiter);
  int64_t children = 0;
  for (const ManifestRow& r : all) {
    if (r.object_id.compare(0, prefix.size(), prefix) == 0) ++children;
  }
  if (children > 0) {
    return NamespaceError(ErrorCode::kNamespaceNotEmpty,
                          Quote(object_id) + " (contains " + std::to_string(children) +
                              " child objects)");
  }
  LANCE_RETURN_NOT_OK(impl_->DeleteObject(object_id, kTypeNamespace));
  DropNamespaceResponse response;
  LANCE_ASSIGN_OR_RAISE(response.properties, PropertiesFromJson(row->metadata, object_id));
  return response;
}

Status DirectoryNamespace::NamespaceExists(const NamespaceExistsRequest& request) {
  if (request.id.empty()) return Status::OK();
  if (!options_.manifest_enabled) {
    return NamespaceError(ErrorCode::kNamespaceNotFound,
                          "Child namespaces are only supported when manifest mode is enabled");
  }
  const std::string object_id = JoinIdentifier(request.id, kDelimiter);
  LANCE_ASSIGN_OR_RAISE(auto row, impl_->FindObject(object_id, kTypeNamespace));
  if (!row) return NamespaceError(ErrorCode::kNamespaceNotFound, Quote(object_id));
  return Status::OK();
}

// -- Tables -------------------------------------------------------------------------------

Result<ListTablesResponse> DirectoryNamespace::ListTables(const ListTablesRequest& request) {
  // name -> directory relative to the root (for include_declared=false)
  std::map<std::string, std::string> tables;
  if (!request.id.empty() && !options_.manifest_enabled) {
    return NamespaceError(ErrorCode::kUnsupported,
                          "Child namespaces are only supported when manifest mode is enabled");
  }
  if (request.id.empty() && (!options_.manifest_enabled || options_.dir_listing_enabled)) {
    LANCE_ASSIGN_OR_RAISE(auto names, impl_->ListDirectoryTables());
    for (std::string& name : names) {
      std::string dir = name + ".lance";
      tables.emplace(std::move(name), std::move(dir));
    }
  }
  if (options_.manifest_enabled) {
    LANCE_ASSIGN_OR_RAISE(auto children, impl_->Children(request.id, kTypeTable));
    for (auto& [name, row] : children) {
      if (row.location) tables.emplace(name, *row.location);
    }
  }
  ListTablesResponse response;
  for (const auto& [name, dir] : tables) {
    if (!request.include_declared.value_or(true)) {
      LANCE_ASSIGN_OR_RAISE(bool has_versions, impl_->HasVersions(dir));
      if (!has_versions) continue;
    }
    response.tables.push_back(name);
  }
  response.page_token = Paginate(&response.tables, request.page_token, request.limit);
  return response;
}

Result<DescribeTableResponse> DirectoryNamespace::DescribeTable(
    const DescribeTableRequest& request) {
  LANCE_ASSIGN_OR_RAISE(Impl::Found found, impl_->FindTable(request.id));
  DescribeTableResponse response;
  response.table = request.id.back();
  response.namespace_ = Identifier(request.id.begin(), request.id.end() - 1);
  response.location = found.location;
  response.table_uri = found.location;
  response.storage_options = impl_->ResponseStorageOptions(request.vend_credentials);
  response.properties = found.properties;
  const bool detailed = request.load_detailed_metadata.value_or(false);
  if (detailed || request.check_declared.value_or(false)) {
    LANCE_ASSIGN_OR_RAISE(bool has_versions, impl_->HasVersions(found.dir));
    response.is_only_declared = !has_versions;
  }
  if (detailed && !response.is_only_declared.value_or(false)) {
    OpenOptions open;
    open.storage_options = options_.storage_options;
    open.credentials = options_.credentials;
    if (request.version) {
      if (*request.version < 0) {
        return NamespaceError(ErrorCode::kInvalidInput,
                              "negative version for " + TableIdText(request.id));
      }
      open.version = static_cast<uint64_t>(*request.version);
    }
    auto ds = Dataset::Open(impl_->RawUri(found.dir), open);
    if (!ds.ok()) {
      if (ds.status().IsNotFound() && request.version) {
        return NamespaceError(ErrorCode::kTableVersionNotFound,
                              "Version " + std::to_string(*request.version) +
                                  " not found for " + TableIdText(request.id));
      }
      return ds.status().WithContext("describing " + TableIdText(request.id));
    }
    response.version = static_cast<int64_t>((*ds)->version());
  }
  return response;
}

// declare_table and its deprecated predecessor create_empty_table do the same here.
template <typename Response, typename Request, typename Impl>
Result<Response> DeclareWith(Impl& impl, const Request& request) {
  LANCE_ASSIGN_OR_RAISE(auto declared,
                        impl.Declare(request.id, request.location, request.properties));
  Response response;
  response.location = declared.location;
  response.storage_options = impl.ResponseStorageOptions(request.vend_credentials);
  response.properties = request.properties;
  return response;
}

Result<DeclareTableResponse> DirectoryNamespace::DeclareTable(
    const DeclareTableRequest& request) {
  return DeclareWith<DeclareTableResponse>(*impl_, request);
}

Result<CreateEmptyTableResponse> DirectoryNamespace::CreateEmptyTable(
    const CreateEmptyTableRequest& request) {
  return DeclareWith<CreateEmptyTableResponse>(*impl_, request);
}

Result<RegisterTableResponse> DirectoryNamespace::RegisterTable(
    const RegisterTableRequest& request) {
  if (!options_.manifest_enabled) {
    return NamespaceError(ErrorCode::kUnsupported,
                          "register_table is only supported when manifest mode is enabled");
  }
  LANCE_RETURN_NOT_OK(impl_->ValidateTableId(request.id));
  const std::string& location = request.location;
  if (location.empty() || location.find("://") != std::string::npos ||
      location.front() == '/' || location.find("..") != std::string::npos) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          "Location must be a relative path within the root directory "
                          "(no URI, no absolute path, no '..'): " + location);
  }
  if (request.id.size() > 1) {
    LANCE_RETURN_NOT_OK(
        impl_->CheckParentsExist(Identifier(request.id.begin(), request.id.end() - 1)));
  }
  const std::string object_id = JoinIdentifier(request.id, kDelimiter);
  LANCE_ASSIGN_OR_RAISE(auto existing, impl_->FindObject(object_id));
  if (existing) return NamespaceError(ErrorCode::kTableAlreadyExists, Quote(object_id));
  ManifestRow row;
  row.object_id = object_id;
  row.object_type = std::string(kTypeTable);
  row.location = TrimTrailingSlashes(location);
  LANCE_ASSIGN_OR_RAISE(row.metadata, PropertiesToJson(request.properties));
  LANCE_RETURN_NOT_OK(
      impl_->InsertUnique(row, ErrorCode::kTableAlreadyExists, TableIdText(request.id)));
  RegisterTableResponse response;
  response.location = location;
  response.properties = request.properties;
  return response;
}

Result<DeregisterTableResponse> DirectoryNamespace::DeregisterTable(
    const DeregisterTableRequest& request) {
  LANCE_RETURN_NOT_OK(impl_->ValidateTableId(request.id));
  DeregisterTableResponse response;
  response.id = request.id;
  const bool dir_style = impl_->DirStyle(request.id);
  if (options_.manifest_enabled) {
    const std::string object_id = JoinIdentifier(request.id, kDelimiter);
    LANCE_ASSIGN_OR_RAISE(auto row, impl_->FindObject(object_id, kTypeTable));
    if (row && row->location) {
      LANCE_RETURN_NOT_OK(impl_->DeleteObject(object_id, kTypeTable));
      if (dir_style && *row->location == request.id[0] + ".lance") {
        // Otherwise listing `<name>.lance` would bring the table back.
        Status marker = impl_->PutMarker(*row->location, kDeregisteredMarker);
        if (!marker.ok() && !marker.IsAlreadyExists()) return marker;
      }
      response.location = impl_->FullUri(*row->location);
      return response;
    }
    if (!dir_style) return NamespaceError(ErrorCode::kTableNotFound, TableIdText(request.id));
  }
  if (request.id.size() != 1) {
    return NamespaceError(ErrorCode::kUnsupported,
                          "Multi-level table IDs are only supported when manifest mode is "
                          "enabled, but got " + TableIdText(request.id));
  }
  const std::string dir = request.id[0] + ".lance";
  LANCE_ASSIGN_OR_RAISE(Impl::TableStatus status, impl_->CheckTableStatus(dir));
  if (!status.exists) return NamespaceError(ErrorCode::kTableNotFound, TableIdText(request.id));
  if (status.deregistered) {
    return NamespaceError(ErrorCode::kTableNotFound,
                          "Table is already deregistered: " + TableIdText(request.id));
  }
  Status marker = impl_->PutMarker(dir, kDeregisteredMarker);
  if (marker.IsAlreadyExists()) {
    return NamespaceError(ErrorCode::kInvalidTableState,
                          "Table is already deregistered: " + TableIdText(request.id));
  }
  LANCE_RETURN_NOT_OK(marker);
  response.location = impl_->RawUri(dir);
  return response;
}

Status DirectoryNamespace::TableExists(const TableExistsRequest& request) {
  return impl_->FindTable(request.id).status();
}

Result<DropTableResponse> DirectoryNamespace::DropTable(const DropTableRequest& request) {
  LANCE_ASSIGN_OR_RAISE(Impl::Found found, impl_->FindTable(request.id));
  if (options_.manifest_enabled) {
    // A root-level table found in its directory may also have a row.
    const std::string object_id = JoinIdentifier(request.id, kDelimiter);
    LANCE_ASSIGN_OR_RAISE(auto row, impl_->FindObject(object_id, kTypeTable));
    if (row) LANCE_RETURN_NOT_OK(impl_->DeleteObject(object_id, kTypeTable));
  }
  LANCE_RETURN_NOT_OK(impl_->store->DeletePrefix(impl_->Key(found.dir) + "/")
                          .WithContext("dropping " + TableIdText(request.id)));
  DropTableResponse response;
  response.id = request.id;
  response.location = found.location;
  return response;
}

}  // namespace lance::ns

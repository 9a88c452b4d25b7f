// SPDX-License-Identifier: Apache-2.0
// DirectoryNamespace: both layouts of Lance's directory namespace -- the spec operations,
// the directory layout and paths (the `__manifest` table is in manifest_table.cc). The
// facts matched (paths, markers, location forms, error kinds) come from Lance's
// rust/lance-namespace-impls/src/dir.rs and dir/manifest.rs and were checked against
// pylance 14's DirectoryNamespace (tests/interop/test_namespace_dir.py).

#include "lance/namespace/directory_namespace.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <utility>

#include "lance/core/ascii.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/io/object_store.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/storage_options.h"
#include "lance/io/uri.h"
#include "lance/macros.h"
#include "namespace/directory_internal.h"
#include "namespace/manifest_table.h"

namespace lance::ns {

using internal::kDelimiter;
using internal::kTypeNamespace;
using internal::kTypeTable;
using internal::ManifestRow;
using internal::ManifestTable;
using internal::PropertiesFromJson;
using internal::PropertiesToJson;
using internal::Quote;

namespace {

constexpr std::string_view kReservedMarker = ".lance-reserved";
/// The `__manifest` metadata key (next to the table's properties, never shown as one)
/// that marks a row register_table wrote: drop_table then leaves the data alone. Lance
/// has no such mark (it deletes a registered table's location on drop).
constexpr std::string_view kRegisteredKey = "lance_cpp.registered";

/// `options` without any key that holds or names a credential (secrets, tokens, key ids;
/// io::IsSensitiveOptionKey) or its lifetime: what may leave a namespace that does not
/// vend.
Properties WithoutCredentials(const Properties& options) {
  Properties out = io::WithoutRefreshableOptions(options);
  std::erase_if(out, [](const auto& kv) { return io::IsSensitiveOptionKey(kv.first); });
  return out;
}

/// Properties a client sets may not carry the namespace's own mark.
Status CheckClientProperties(const std::optional<Properties>& properties) {
  if (properties && properties->count(std::string(kRegisteredKey)) > 0) {
    return NamespaceError(
        ErrorCode::kInvalidInput,
        "the table property " + Quote(kRegisteredKey) + " is reserved for the namespace");
  }
  return Status::OK();
}
constexpr std::string_view kDeregisteredMarker = ".lance-deregistered";

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

std::string TableIdText(const Identifier& id) {
  return "table id " + Quote(JoinIdentifier(id, kDelimiter));
}

// A table id the directory layout holds: one level (more need the manifest).
Status CheckSingleLevel(const Identifier& id) {
  if (id.size() == 1) return Status::OK();
  return NamespaceError(ErrorCode::kUnsupported,
                        "Multi-level table IDs are only supported when manifest mode is "
                        "enabled, but got " +
                            TableIdText(id));
}

/// Lance's generate_dir_name: "<8 random hex digits>_<object_id>", except that every
/// byte of the id outside [A-Za-z0-9_$-] becomes '_' here ('$' joins the levels; with
/// '{' replaced it can never start a policy variable): the directory is then the same
/// key whether it is read raw or percent-decoded (the manifest layout reports it
/// URL-encoded), a credential scoped to it is a plain prefix, and it can never end in
/// ".lance" and pass for a root table in directory listings. Readers take the location
/// from `__manifest`, so the name itself is free. A fresh std::random_device per call:
/// declarations are rare, and it stays unpredictable across fork() (a seeded generator
/// would give parent and child the same names).
std::string RandomDirName(std::string_view object_id) {
  std::random_device rd;
  char hex[16];
  std::snprintf(hex, sizeof(hex), "%08x", static_cast<unsigned>(rd()));
  std::string out = std::string(hex) + "_";
  for (unsigned char c : object_id) {
    const bool plain = std::isalnum(c) != 0 || c == '_' || c == '-' || c == '$';
    out += plain && c < 0x80 ? static_cast<char>(c) : '_';
  }
  return out;
}

/// True for the directory names the manifest layout allocates (RandomDirName, and
/// Lance's "<8 hex>_<object_id>"): one segment, 8 lower-case hex digits, '_', a name.
bool IsAllocatedDirName(std::string_view dir) {
  if (dir.size() < 10 || dir[8] != '_' || dir.find('/') != std::string_view::npos) {
    return false;
  }
  return std::all_of(dir.begin(), dir.begin() + 8, [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

/// True for `<name>.lance` directly under the root: a root table's directory, which a
/// rename into a namespace keeps.
bool IsRootTableDirName(std::string_view dir) {
  return dir.size() > 6 && dir.find('/') == std::string_view::npos &&
         dir.substr(dir.size() - 6) == ".lance";
}

/// The relative location of register_table, normalized ("a//b/./c/" -> "a/b/c"), or
/// InvalidInput for one that could reach outside the root, into `__manifest`, or widen
/// a vended scope.
Result<std::string> NormalizeRegisteredLocation(const std::string& location) {
  auto refuse = [&](std::string_view why) {
    return NamespaceError(
        ErrorCode::kInvalidInput,
        "register_table location " + Quote(location) + " " + std::string(why));
  };
  if (location.empty()) return refuse("is empty");
  if (location.find("://") != std::string::npos || location.front() == '/') {
    return refuse(
        "must be a path relative to the root directory (no URI, no absolute path)");
  }
  if (location.find("..") != std::string::npos) return refuse("must not contain '..'");
  LANCE_RETURN_NOT_OK(
      CheckPolicySafeName(location, "register_table location " + Quote(location)));
  std::string out;
  size_t start = 0;
  while (start <= location.size()) {
    size_t slash = location.find('/', start);
    if (slash == std::string::npos) slash = location.size();
    std::string_view seg(location.data() + start, slash - start);
    if (!seg.empty() && seg != ".") {
      if (!out.empty()) out += '/';
      out += seg;
    }
    start = slash + 1;
  }
  if (out.empty()) return refuse("names the root directory itself");
  if (out == "__manifest" || out.rfind("__manifest/", 0) == 0) {
    return refuse("is the namespace's own __manifest table");
  }
  return out;
}

/// True when one of the two relative locations is the other or lies inside it.
bool LocationsOverlap(std::string_view a, std::string_view b) {
  if (a.size() > b.size()) std::swap(a, b);
  return b.substr(0, a.size()) == a && (b.size() == a.size() || b[a.size()] == '/');
}

std::string TrimTrailingSlashes(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// The `__manifest` row of namespace `object_id`. \return NamespaceNotFound without one.
Result<ManifestRow> NamespaceRow(ManifestTable& manifest, const std::string& object_id) {
  LANCE_ASSIGN_OR_RAISE(auto row, manifest.FindObject(object_id, kTypeNamespace));
  if (!row) return NamespaceError(ErrorCode::kNamespaceNotFound, Quote(object_id));
  return std::move(*row);
}

enum class CreateMode : uint8_t { kCreate, kExistOk, kOverwrite };

// The spec's create modes, of create_namespace and create_table alike (`operation`
// names which in the error).
Result<CreateMode> ParseCreateMode(const std::optional<std::string>& mode,
                                   std::string_view operation) {
  if (!mode || EqualsIgnoreAsciiCase(*mode, "create")) return CreateMode::kCreate;
  if (EqualsIgnoreAsciiCase(*mode, "exist_ok") ||
      EqualsIgnoreAsciiCase(*mode, "existok")) {
    return CreateMode::kExistOk;
  }
  if (EqualsIgnoreAsciiCase(*mode, "overwrite")) return CreateMode::kOverwrite;
  return NamespaceError(ErrorCode::kInvalidInput, "unknown " + std::string(operation) +
                                                      " mode " + Quote(*mode) +
                                                      " (create, exist_ok or overwrite)");
}

}  // namespace

// -- Impl
// ---------------------------------------------------------------------------------

class DirectoryNamespace::Impl {
 public:
  DirectoryNamespaceOptions opts;
  std::shared_ptr<io::ObjectStore> store;
  std::string base;      // the root's key inside `store` ("" = the store root)
  std::string root_url;  // the root as a URL (file:///abs for local paths), for locations
  ManifestTable manifest;

  // The plain layout has only the root namespace: `code` for a child in it.
  Status CheckChildNamespaces(ErrorCode code) const {
    if (opts.manifest_enabled) return Status::OK();
    return NamespaceError(
        code, "Child namespaces are only supported when manifest mode is enabled");
  }

  // Create and drop change a child namespace: never the root (`root_code`,
  // `root_message`), and only in the manifest layout.
  Status CheckChangeable(const Identifier& id, ErrorCode root_code,
                         std::string_view root_message) const {
    if (id.empty()) return NamespaceError(root_code, root_message);
    return CheckChildNamespaces(ErrorCode::kUnsupported);
  }

  // -- Paths -------------------------------------------------------------------------

  std::string Key(std::string_view rel) const {
    if (base.empty()) return std::string(rel);
    return base + "/" + std::string(rel);
  }
  /// "<root>/<rel>": Lance's table_full_uri, the form of plain-layout locations.
  std::string RawUri(std::string_view rel) const {
    return opts.root + "/" + std::string(rel);
  }
  /// Lance's construct_full_uri: the root as a URL plus the relative location -- not
  /// percent-encoded, unlike Lance's: our readers take a location literally, and names
  /// holding '%' or '#' are refused, so the raw form reads the same to URL readers
  /// (pylance percent-encodes and decodes "é表" back to itself) and to literal ones,
  /// and is the very key the vended scope covers.
  std::string FullUri(std::string_view rel) const {
    std::string out = root_url;
    size_t start = 0;
    while (start <= rel.size()) {
      size_t slash = rel.find('/', start);
      if (slash == std::string_view::npos) slash = rel.size();
      std::string_view seg = rel.substr(start, slash - start);
      if (!seg.empty()) {
        if (out.empty() || out.back() != '/') out += '/';
        out += seg;
      }
      start = slash + 1;
    }
    return out;
  }
  /// The storage options of a describe / declare answer for the table in `dir`:
  /// nothing when vend is false. Without a vendor: the root's options without its
  /// credentials (endpoint, region: what a client needs to reach the table), or all of
  /// them when vend_input_storage_options says so. With one: the root's options without
  /// its credentials, plus the credentials vended for the table's location (the vended
  /// keys win).
  Result<std::optional<Properties>> ResponseStorageOptions(
      const std::optional<bool>& vend, std::string_view dir,
      VendPermission permission) const {
    if (!vend.value_or(true)) return std::nullopt;
    if (opts.credential_vendor == nullptr) {
      Properties out = opts.vend_input_storage_options
                           ? opts.access.storage_options
                           : WithoutCredentials(opts.access.storage_options);
      if (out.empty()) return std::nullopt;
      return out;
    }
    const std::string location = RawUri(dir);
    LANCE_ASSIGN_OR_RAISE(VendedCredentials vended,
                          opts.credential_vendor->Vend(location, permission));
    Properties out = io::WithoutRefreshableOptions(opts.access.storage_options);
    for (auto& [key, value] : vended.storage_options) out[key] = std::move(value);
    return out;
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

  /// The directories (relative to the root) of every live table: `<name>.lance` root
  /// directories that are not deregistered, and `__manifest`'s table locations. Paired
  /// with the table's object id.
  Result<std::vector<std::pair<std::string, std::string>>> TableDirectories() {
    std::vector<std::pair<std::string, std::string>> dirs;
    if (!opts.manifest_enabled || opts.dir_listing_enabled) {
      LANCE_ASSIGN_OR_RAISE(auto names, ListDirectoryTables());
      for (std::string& name : names) dirs.emplace_back(name + ".lance", name);
    }
    if (opts.manifest_enabled) {
      LANCE_ASSIGN_OR_RAISE(auto rows, manifest.ReadLatest("object_type = 'table'"));
      for (ManifestRow& row : rows) {
        if (row.location) dirs.emplace_back(*row.location, std::move(row.object_id));
      }
    }
    return dirs;
  }

  Status PutMarker(std::string_view dir, std::string_view marker) {
    return store->PutIfNotExists(Key(dir) + "/" + std::string(marker), "");
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
      const std::string what =
          "the name " + Quote(level) + " in " + Quote(JoinIdentifier(id, kDelimiter));
      // A name becomes part of the prefix a vended credential is scoped to: one that a
      // policy would read as a pattern is refused everywhere, so that such a table can
      // neither be made nor reached (Lance accepts them).
      LANCE_RETURN_NOT_OK(CheckPolicySafeName(level, what));
      // A location is a URL to Lance (percent-decoded, cut at '#') and a literal key to
      // us: a name holding either would name two directories, one of them another
      // table's ("a%2Ab" decodes to "a*b").
      if (auto c = level.find_first_of("%#"); c != std::string::npos) {
        return NamespaceError(ErrorCode::kInvalidInput,
                              what + " contains '" + level[c] +
                                  "', which URL readers of a location decode (names may "
                                  "not contain '%' or '#')");
      }
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
    std::string dir;  // relative to the root
  };

  Result<Declared> Declare(const Identifier& id,
                           const std::optional<std::string>& location,
                           const std::optional<Properties>& properties) {
    LANCE_RETURN_NOT_OK(ValidateTableId(id));
    LANCE_RETURN_NOT_OK(CheckClientProperties(properties));
    if (!opts.manifest_enabled) {
      LANCE_RETURN_NOT_OK(CheckSingleLevel(id));
      if (properties && !properties->empty()) {
        return NamespaceError(
            ErrorCode::kUnsupported,
            "table properties need manifest mode (" + TableIdText(id) + ")");
      }
    }
    const std::string object_id = JoinIdentifier(id, kDelimiter);
    if (opts.manifest_enabled) {
      LANCE_ASSIGN_OR_RAISE(auto existing, manifest.FindObject(object_id));
      if (existing) {
        return NamespaceError(
            ErrorCode::kTableAlreadyExists,
            existing->object_type == kTypeTable
                ? TableIdText(id)
                : TableIdText(id) + " (a " + existing->object_type + " has that id)");
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
      Status inserted =
          manifest.InsertUnique(row, ErrorCode::kTableAlreadyExists, TableIdText(id));
      if (!inserted.ok()) {
        // A loser's random directory holds only its marker; `<name>.lance` belongs to
        // whoever won its gate, so it is left alone.
        if (!dir_style)
          (void)store->Delete(Key(dir) + "/" + std::string(kReservedMarker));
        return inserted;
      }
    }
    return Declared{uri, dir};
  }

  // -- Table lookup ---------------------------------------------------------------------

  struct Found {
    std::string location;  // as reported
    std::string dir;       // relative to the root, for I/O
    std::optional<Properties> properties;
    bool from_manifest = false;
    bool dir_reserved = false;
    /// Recorded by register_table (kRegisteredKey): the data is not the namespace's.
    bool registered = false;
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
      LANCE_RETURN_NOT_OK(CheckSingleLevel(id));
      return NamespaceError(ErrorCode::kTableNotFound, TableIdText(id));
    }
    const std::string object_id = JoinIdentifier(id, kDelimiter);
    LANCE_ASSIGN_OR_RAISE(auto row, manifest.FindObject(object_id, kTypeTable));
    if (!row || !row->location) {
      return NamespaceError(ErrorCode::kTableNotFound, TableIdText(id));
    }
    Found found;
    found.location = FullUri(*row->location);
    found.dir = *row->location;
    found.from_manifest = true;
    LANCE_ASSIGN_OR_RAISE(found.properties, PropertiesFromJson(row->metadata, object_id));
    if (found.properties && found.properties->erase(std::string(kRegisteredKey)) > 0) {
      found.registered = true;
      if (found.properties->empty()) found.properties.reset();
    }
    return found;
  }
};

// -- Construction
// -------------------------------------------------------------------------

DirectoryNamespace::DirectoryNamespace(std::shared_ptr<Impl> impl,
                                       DirectoryNamespaceOptions options,
                                       std::optional<VendPermission> vend_cap)
    : impl_(std::move(impl)), options_(std::move(options)), vend_cap_(vend_cap) {}

std::shared_ptr<LanceNamespace> DirectoryNamespace::WithVendPermissionCap(
    VendPermission permission) {
  if (vend_cap_ && *vend_cap_ < permission) permission = *vend_cap_;
  return std::make_shared<DirectoryNamespace>(impl_, options_, permission);
}

VendPermission DirectoryNamespace::VendPermissionFor(bool for_declare) const {
  VendPermission permission = impl_->opts.vend_permission;
  // The client writes the table it declared: at least write permission.
  if (for_declare && permission == VendPermission::kRead)
    permission = VendPermission::kWrite;
  if (vend_cap_ && *vend_cap_ < permission) permission = *vend_cap_;
  return permission;
}

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
    if (key.rfind("storage.", 0) == 0)
      options.access.storage_options[key.substr(8)] = value;
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
                            "property " + Quote(key) +
                                " must be 'true' or 'false', got " + Quote(it->second));
    }
    return Status::OK();
  };
  LANCE_RETURN_NOT_OK(parse_bool("manifest_enabled", &options.manifest_enabled));
  LANCE_RETURN_NOT_OK(parse_bool("dir_listing_enabled", &options.dir_listing_enabled));
  LANCE_RETURN_NOT_OK(
      parse_bool("vend_input_storage_options", &options.vend_input_storage_options));
  // credential_vendor.* (Lance's names): no vendor unless credential_vendor.enabled.
  LANCE_ASSIGN_OR_RAISE(
      options.credential_vendor,
      CredentialVendorFromProperties(properties, options.access.storage_options));
  if (auto it = properties.find("credential_vendor.permission"); it != properties.end()) {
    LANCE_ASSIGN_OR_RAISE(options.vend_permission, ParseVendPermission(it->second));
  }
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
  impl->manifest.root = options.root;
  auto resolved = io::ResolveObjectStore(options.root, options.access);
  if (!resolved.ok()) {
    return resolved.status().WithContext("opening the directory namespace root " +
                                         Quote(options.root));
  }
  impl->store = resolved->store;
  impl->base = resolved->path;
  // Resolved once: the __manifest commits and the tables opened here share its store.
  impl->manifest.access = resolved->access;
  LANCE_ASSIGN_OR_RAISE(io::Uri parsed, io::ParseUri(options.root));
  // Lance's uri_to_url: local paths become file:// URLs of their absolute path.
  impl->root_url = parsed.scheme == "file" ? parsed.ToString() : options.root;
  if (options.manifest_enabled) LANCE_RETURN_NOT_OK(impl->manifest.EnsureManifest());
  return std::make_shared<DirectoryNamespace>(std::move(impl), std::move(options));
}

std::string DirectoryNamespace::namespace_id() const {
  return "DirectoryNamespace { root: " + RustDebugString(options_.root) + " }";
}

// -- Namespaces
// ---------------------------------------------------------------------------

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
  LANCE_ASSIGN_OR_RAISE(auto children,
                        impl_->manifest.Children(request.id, kTypeNamespace));
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
  LANCE_RETURN_NOT_OK(impl_->CheckChildNamespaces(ErrorCode::kUnsupported));
  const std::string object_id = JoinIdentifier(request.id, kDelimiter);
  LANCE_ASSIGN_OR_RAISE(ManifestRow row, NamespaceRow(impl_->manifest, object_id));
  LANCE_ASSIGN_OR_RAISE(response.properties, PropertiesFromJson(row.metadata, object_id));
  return response;
}

Result<CreateNamespaceResponse> DirectoryNamespace::CreateNamespace(
    const CreateNamespaceRequest& request) {
  LANCE_RETURN_NOT_OK(impl_->CheckChangeable(
      request.id, ErrorCode::kNamespaceAlreadyExists, "root namespace"));
  LANCE_RETURN_NOT_OK(impl_->ValidateLevels(request.id));
  LANCE_ASSIGN_OR_RAISE(CreateMode mode,
                        ParseCreateMode(request.mode, "create_namespace"));
  if (mode == CreateMode::kOverwrite) {
    return NamespaceError(
        ErrorCode::kUnsupported,
        "create_namespace mode 'overwrite' is not supported by " + namespace_id());
  }
  const bool exist_ok = mode == CreateMode::kExistOk;
  if (request.id.size() > 1) {
    LANCE_RETURN_NOT_OK(impl_->manifest.CheckParentsExist(
        Identifier(request.id.begin(), request.id.end() - 1)));
  }
  const std::string object_id = JoinIdentifier(request.id, kDelimiter);
  CreateNamespaceResponse response;
  auto existing_props = [&]() -> Result<CreateNamespaceResponse> {
    LANCE_ASSIGN_OR_RAISE(auto row,
                          impl_->manifest.FindObject(object_id, kTypeNamespace));
    CreateNamespaceResponse existing;
    if (row) {
      LANCE_ASSIGN_OR_RAISE(existing.properties,
                            PropertiesFromJson(row->metadata, object_id));
    }
    return existing;
  };
  LANCE_ASSIGN_OR_RAISE(auto found, impl_->manifest.FindObject(object_id));
  if (found) {
    if (exist_ok && found->object_type == kTypeNamespace) return existing_props();
    return NamespaceError(ErrorCode::kNamespaceAlreadyExists, Quote(object_id));
  }
  ManifestRow row;
  row.object_id = object_id;
  row.object_type = std::string(kTypeNamespace);
  LANCE_ASSIGN_OR_RAISE(row.metadata, PropertiesToJson(request.properties));
  Status inserted = impl_->manifest.InsertUnique(row, ErrorCode::kNamespaceAlreadyExists,
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
  LANCE_RETURN_NOT_OK(impl_->CheckChangeable(request.id, ErrorCode::kInvalidInput,
                                             "Root namespace cannot be dropped"));
  if (request.behavior && EqualsIgnoreAsciiCase(*request.behavior, "cascade")) {
    return NamespaceError(
        ErrorCode::kUnsupported,
        "drop_namespace behavior 'cascade' is not supported by " + namespace_id());
  }
  const bool skip = request.mode && EqualsIgnoreAsciiCase(*request.mode, "skip");
  const std::string object_id = JoinIdentifier(request.id, kDelimiter);
  auto row = NamespaceRow(impl_->manifest, object_id);
  if (!row.ok()) {
    if (skip && NamespaceErrorCode(row.status()) == ErrorCode::kNamespaceNotFound) {
      return DropNamespaceResponse{};
    }
    return row.status();
  }
  // Restrict: anything recorded below it (tables, namespaces) keeps it alive.
  LANCE_ASSIGN_OR_RAISE(auto all, impl_->manifest.ReadLatest(""));
  const std::string prefix = object_id + std::string(kDelimiter);
  int64_t children = 0;
  for (const ManifestRow& r : all) {
    if (r.object_id.compare(0, prefix.size(), prefix) == 0) ++children;
  }
  if (children > 0) {
    return NamespaceError(
        ErrorCode::kNamespaceNotEmpty,
        Quote(object_id) + " (contains " + std::to_string(children) + " child objects)");
  }
  LANCE_RETURN_NOT_OK(impl_->manifest.DeleteObject(object_id, kTypeNamespace));
  DropNamespaceResponse response;
  LANCE_ASSIGN_OR_RAISE(response.properties,
                        PropertiesFromJson(row->metadata, object_id));
  return response;
}

Status DirectoryNamespace::NamespaceExists(const NamespaceExistsRequest& request) {
  if (request.id.empty()) return Status::OK();
  LANCE_RETURN_NOT_OK(impl_->CheckChildNamespaces(ErrorCode::kNamespaceNotFound));
  return NamespaceRow(impl_->manifest, JoinIdentifier(request.id, kDelimiter)).status();
}

// -- Tables
// -------------------------------------------------------------------------------

Result<ListTablesResponse> DirectoryNamespace::ListTables(
    const ListTablesRequest& request) {
  // name -> directory relative to the root (for include_declared=false)
  std::map<std::string, std::string> tables;
  if (!request.id.empty()) {
    LANCE_RETURN_NOT_OK(impl_->CheckChildNamespaces(ErrorCode::kUnsupported));
  }
  if (request.id.empty() &&
      (!options_.manifest_enabled || options_.dir_listing_enabled)) {
    LANCE_ASSIGN_OR_RAISE(auto names, impl_->ListDirectoryTables());
    for (std::string& name : names) {
      std::string dir = name + ".lance";
      tables.emplace(std::move(name), std::move(dir));
    }
  }
  if (options_.manifest_enabled) {
    LANCE_ASSIGN_OR_RAISE(auto children,
                          impl_->manifest.Children(request.id, kTypeTable));
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
  LANCE_ASSIGN_OR_RAISE(response.storage_options,
                        impl_->ResponseStorageOptions(request.vend_credentials, found.dir,
                                                      VendPermissionFor(false)));
  response.properties = found.properties;
  const bool detailed = request.load_detailed_metadata.value_or(false);
  if (detailed || request.check_declared.value_or(false)) {
    LANCE_ASSIGN_OR_RAISE(bool has_versions, impl_->HasVersions(found.dir));
    response.is_only_declared = !has_versions;
  }
  if (detailed && !response.is_only_declared.value_or(false)) {
    OpenOptions open;
    open.access = impl_->manifest.access;
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
Result<Response> DeclareWith(Impl& impl, const Request& request,
                             VendPermission permission) {
  LANCE_ASSIGN_OR_RAISE(auto declared,
                        impl.Declare(request.id, request.location, request.properties));
  Response response;
  response.location = declared.location;
  LANCE_ASSIGN_OR_RAISE(
      response.storage_options,
      impl.ResponseStorageOptions(request.vend_credentials, declared.dir, permission));
  response.properties = request.properties;
  return response;
}

Result<DeclareTableResponse> DirectoryNamespace::DeclareTable(
    const DeclareTableRequest& request) {
  return DeclareWith<DeclareTableResponse>(*impl_, request, VendPermissionFor(true));
}

Result<CreateEmptyTableResponse> DirectoryNamespace::CreateEmptyTable(
    const CreateEmptyTableRequest& request) {
  return DeclareWith<CreateEmptyTableResponse>(*impl_, request, VendPermissionFor(true));
}

Result<RegisterTableResponse> DirectoryNamespace::RegisterTable(
    const RegisterTableRequest& request) {
  if (!options_.manifest_enabled) {
    return NamespaceError(
        ErrorCode::kUnsupported,
        "register_table is only supported when manifest mode is enabled");
  }
  LANCE_RETURN_NOT_OK(impl_->ValidateTableId(request.id));
  LANCE_ASSIGN_OR_RAISE(const std::string location,
                        NormalizeRegisteredLocation(request.location));
  if (request.id.size() > 1) {
    LANCE_RETURN_NOT_OK(impl_->manifest.CheckParentsExist(
        Identifier(request.id.begin(), request.id.end() - 1)));
  }
  const std::string object_id = JoinIdentifier(request.id, kDelimiter);
  LANCE_ASSIGN_OR_RAISE(auto existing, impl_->manifest.FindObject(object_id));
  if (existing) return NamespaceError(ErrorCode::kTableAlreadyExists, Quote(object_id));
  // Two tables sharing objects would share credentials and drops. (Two concurrent
  // registrations may both pass this check; each is still confined to the root.)
  LANCE_ASSIGN_OR_RAISE(auto tables, impl_->TableDirectories());
  for (const auto& [dir, other_id] : tables) {
    if (LocationsOverlap(dir, location)) {
      return NamespaceError(ErrorCode::kInvalidInput,
                            "register_table location " + Quote(request.location) +
                                " overlaps the location " + Quote(dir) + " of table " +
                                Quote(other_id));
    }
  }
  ManifestRow row;
  row.object_id = object_id;
  row.object_type = std::string(kTypeTable);
  row.location = location;
  LANCE_RETURN_NOT_OK(CheckClientProperties(request.properties));
  Properties marked = request.properties.value_or(Properties{});
  marked[std::string(kRegisteredKey)] = "true";
  LANCE_ASSIGN_OR_RAISE(row.metadata, PropertiesToJson(marked));
  LANCE_RETURN_NOT_OK(impl_->manifest.InsertUnique(row, ErrorCode::kTableAlreadyExists,
                                                   TableIdText(request.id)));
  RegisterTableResponse response;
  response.location = request.location;
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
    LANCE_ASSIGN_OR_RAISE(auto row, impl_->manifest.FindObject(object_id, kTypeTable));
    if (row && row->location) {
      LANCE_RETURN_NOT_OK(impl_->manifest.DeleteObject(object_id, kTypeTable));
      if (dir_style && *row->location == request.id[0] + ".lance") {
        // Otherwise listing `<name>.lance` would bring the table back.
        Status marker = impl_->PutMarker(*row->location, kDeregisteredMarker);
        if (!marker.ok() && !marker.IsAlreadyExists()) return marker;
      }
      response.location = impl_->FullUri(*row->location);
      return response;
    }
    if (!dir_style)
      return NamespaceError(ErrorCode::kTableNotFound, TableIdText(request.id));
  }
  LANCE_RETURN_NOT_OK(CheckSingleLevel(request.id));
  const std::string dir = request.id[0] + ".lance";
  LANCE_ASSIGN_OR_RAISE(Impl::TableStatus status, impl_->CheckTableStatus(dir));
  if (!status.exists)
    return NamespaceError(ErrorCode::kTableNotFound, TableIdText(request.id));
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
  const std::string object_id = JoinIdentifier(request.id, kDelimiter);
  // The data goes only where the namespace owns the directory (see the header); a row
  // written before locations were confined (or by another engine) could name the
  // catalog or another table's objects, so that is checked again here.
  bool owned =
      !found.registered && (!found.from_manifest || IsAllocatedDirName(found.dir) ||
                            IsRootTableDirName(found.dir));
  if (owned && found.from_manifest) {
    auto normalized = NormalizeRegisteredLocation(found.dir);
    owned = normalized.ok() && *normalized == found.dir;
    if (owned) {
      LANCE_ASSIGN_OR_RAISE(auto tables, impl_->TableDirectories());
      for (const auto& [dir, other_id] : tables) {
        if (other_id != object_id && LocationsOverlap(dir, found.dir)) owned = false;
      }
    }
  }
  if (options_.manifest_enabled) {
    // A root-level table found in its directory may also have a row.
    LANCE_ASSIGN_OR_RAISE(auto row, impl_->manifest.FindObject(object_id, kTypeTable));
    if (row) LANCE_RETURN_NOT_OK(impl_->manifest.DeleteObject(object_id, kTypeTable));
  }
  if (owned) {
    LANCE_RETURN_NOT_OK(impl_->store->DeletePrefix(impl_->Key(found.dir) + "/")
                            .WithContext("dropping " + TableIdText(request.id)));
  }
  DropTableResponse response;
  response.id = request.id;
  response.location = found.location;
  return response;
}

// -- create_table, rename_table, list_all_tables (they need the layout and `__manifest`;
// the other table operations are in directory_table_ops.cc)
// ------------------------------------------------------------------------------------

const io::StorageAccess& internal::TableAccess(const DirectoryNamespace::Impl& impl) {
  return impl.manifest.access;
}

Result<std::string> internal::TableUri(DirectoryNamespace::Impl& impl,
                                       const Identifier& id) {
  LANCE_ASSIGN_OR_RAISE(DirectoryNamespace::Impl::Found found, impl.FindTable(id));
  return impl.RawUri(found.dir);
}

Result<CreateTableResponse> DirectoryNamespace::CreateTable(
    const CreateTableRequest& request, std::string_view data) {
  LANCE_RETURN_NOT_OK(impl_->ValidateTableId(request.id));
  LANCE_ASSIGN_OR_RAISE(CreateMode mode, ParseCreateMode(request.mode, "create_table"));
  const std::string what = "creating " + TableIdText(request.id);
  // The data is checked before anything is declared.
  LANCE_ASSIGN_OR_RAISE(TablePtr rows, internal::ReadIpcRequest(data, what));
  WriteParams params;
  params.access = impl_->manifest.access;
  CreateTableResponse response;
  auto found = impl_->FindTable(request.id);
  if (!found.ok() && NamespaceErrorCode(found.status()) != ErrorCode::kTableNotFound) {
    return found.status();
  }
  bool declared_here = false;
  if (!found.ok()) {
    // Registered like declare_table (marker, `__manifest` row), then written.
    LANCE_RETURN_NOT_OK(impl_->Declare(request.id, std::nullopt, request.properties));
    declared_here = true;
    found = impl_->FindTable(request.id);
    LANCE_RETURN_NOT_OK(found.status());
  } else {
    LANCE_ASSIGN_OR_RAISE(bool has_versions, impl_->HasVersions(found->dir));
    if (has_versions) {
      if (mode == CreateMode::kCreate) {
        return NamespaceError(ErrorCode::kTableAlreadyExists, TableIdText(request.id));
      }
      if (mode == CreateMode::kExistOk) {
        OpenOptions open;
        open.access = impl_->manifest.access;
        auto ds = Dataset::Open(impl_->RawUri(found->dir), open);
        if (!ds.ok()) return ds.status().WithContext(what);
        response.location = found->location;
        response.version = static_cast<int64_t>((*ds)->version());
        response.properties = found->properties;
        return response;
      }
      params.mode = WriteMode::kOverwrite;
    }
  }
  auto reader = internal::TableReader(rows);
  auto ds = Dataset::Write(*reader, impl_->RawUri(found->dir), params);
  if (!ds.ok()) {
    if (ds.status().IsAlreadyExists() ||
        (ds.status().IsConflict() && params.mode == WriteMode::kCreate)) {
      // A concurrent create_table (or a writer of the declared table) committed version
      // 1 first: the table is theirs, and so is the directory.
      return NamespaceError(ErrorCode::kTableAlreadyExists,
                            TableIdText(request.id) + " (created concurrently)");
    }
    // Nothing of a failed first write is kept: the declaration is taken back.
    if (declared_here) (void)DropTable(DropTableRequest{request.id});
    return internal::TableOpError(ds.status(), what);
  }
  response.location = found->location;
  response.version = static_cast<int64_t>((*ds)->version());
  LANCE_ASSIGN_OR_RAISE(response.transaction_id, internal::CommittedTransactionId(**ds));
  response.properties = declared_here ? request.properties : found->properties;
  return response;
}

Result<RenameTableResponse> DirectoryNamespace::RenameTable(
    const RenameTableRequest& request) {
  if (!options_.manifest_enabled) {
    return NamespaceError(ErrorCode::kUnsupported,
                          "rename_table is only supported when manifest mode is enabled");
  }
  LANCE_ASSIGN_OR_RAISE(Impl::Found found, impl_->FindTable(request.id));
  Identifier target = request.new_namespace_id.value_or(
      Identifier(request.id.begin(), request.id.end() - 1));
  target.push_back(request.new_table_name);
  LANCE_RETURN_NOT_OK(impl_->ValidateTableId(target));
  if (target.size() > 1) {
    LANCE_RETURN_NOT_OK(
        impl_->manifest.CheckParentsExist(Identifier(target.begin(), target.end() - 1)));
  }
  auto existing = impl_->FindTable(target);
  if (existing.ok()) {
    return NamespaceError(ErrorCode::kTableAlreadyExists, TableIdText(target));
  }
  if (NamespaceErrorCode(existing.status()) != ErrorCode::kTableNotFound) {
    return existing.status();
  }
  const std::string old_id = JoinIdentifier(request.id, kDelimiter);
  const std::string new_id = JoinIdentifier(target, kDelimiter);
  LANCE_ASSIGN_OR_RAISE(auto target_row, impl_->manifest.FindObject(new_id));
  if (target_row) {
    return NamespaceError(
        ErrorCode::kTableAlreadyExists,
        TableIdText(target) + " (a " + target_row->object_type + " has that id)");
  }
  // The data stays where it is: the new row records its directory.
  ManifestRow row;
  row.object_id = new_id;
  row.object_type = std::string(kTypeTable);
  row.location = found.dir;
  std::optional<Properties> metadata = found.properties;
  if (found.registered) {
    if (!metadata) metadata.emplace();
    (*metadata)[std::string(kRegisteredKey)] = "true";
  }
  LANCE_ASSIGN_OR_RAISE(row.metadata, PropertiesToJson(metadata));
  LANCE_RETURN_NOT_OK(impl_->manifest.InsertUnique(row, ErrorCode::kTableAlreadyExists,
                                                   TableIdText(target)));
  LANCE_ASSIGN_OR_RAISE(auto old_row, impl_->manifest.FindObject(old_id, kTypeTable));
  if (old_row) LANCE_RETURN_NOT_OK(impl_->manifest.DeleteObject(old_id, kTypeTable));
  if (!found.from_manifest) {
    // A root-level `<name>.lance` directory would still be listed under the old name.
    Status marker = impl_->PutMarker(found.dir, kDeregisteredMarker);
    if (!marker.ok() && !marker.IsAlreadyExists()) return marker;
  }
  return RenameTableResponse{};
}

Result<ListAllTablesResponse> DirectoryNamespace::ListAllTables(
    const ListAllTablesRequest& request) {
  ListAllTablesResponse response;
  if (!options_.manifest_enabled || options_.dir_listing_enabled) {
    LANCE_ASSIGN_OR_RAISE(response.tables, impl_->ListDirectoryTables());
  }
  if (options_.manifest_enabled) {
    LANCE_ASSIGN_OR_RAISE(auto rows, impl_->manifest.ReadLatest("object_type = 'table'"));
    for (ManifestRow& row : rows) {
      if (row.location) response.tables.push_back(std::move(row.object_id));
    }
  }
  response.page_token = Paginate(&response.tables, request.page_token, request.limit);
  return response;
}

}  // namespace lance::ns

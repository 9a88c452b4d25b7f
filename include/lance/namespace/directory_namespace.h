// SPDX-License-Identifier: Apache-2.0
/// \file directory_namespace.h
/// \brief DirectoryNamespace: a Lance Namespace kept in a directory (local path,
/// memory:// or any URI the object store registry resolves, e.g. s3://bucket/prefix), in
/// the two layouts of real Lance (lance-namespace `docs/src/dir/catalog-spec.md`,
/// rust/lance-namespace-impls/src/dir.rs and dir/manifest.rs).
///
/// Plain layout (manifest_enabled=false): only the root namespace; table `t` is the
/// dataset `<root>/t.lance`. DeclareTable / CreateEmptyTable write the empty marker
/// `<root>/t.lance/.lance-reserved` (create-only) and no version; DeregisterTable writes
/// `<root>/t.lance/.lance-deregistered`, after which the table is neither listed nor
/// described. A table "exists" when its directory holds anything.
///
/// Manifest layout (manifest_enabled=true, the default): a Lance table
/// `<root>/__manifest` (columns object_id utf8 not null [primary-key metadata],
/// object_type utf8 not null
/// ["namespace" | "table"], location utf8, metadata utf8 [properties as JSON],
/// base_objects list<utf8>) records namespaces and tables; object ids are the levels
/// joined with '$'. Table directories are named `<8 hex>_<object_id>` (random hex, as
/// Lance's generate_dir_name), except root-level tables while dir_listing_enabled, which
/// stay `<root>/<name>.lance` (and are also found by listing directories, so roots
/// written in the plain layout keep working). Declaring a table in a namespace never
/// created succeeds, as in Lance.
///
/// Concurrency: every change to `__manifest` is a Lance commit (Dataset::Write append,
/// Dataset::Delete, Dataset::Commit of a DeleteOp), so concurrent writers in any number
/// of processes serialize through the commit protocol. Uniqueness of an object id: see
/// DeclareTable.
///
/// Thread-safe.

#pragma once

#include <memory>
#include <optional>
#include <string>

#include "lance/io/storage_access.h"
#include "lance/namespace/credential_vendor.h"
#include "lance/namespace/namespace.h"

namespace lance::ns {

struct DirectoryNamespaceOptions {
  /// \brief Required. A local path (relative ones resolve against the working
  /// directory) or a URI; trailing '/' are trimmed.
  std::string root;
  /// \brief The namespace's own I/O: storage options, optionally with a provider or a
  /// credentials source. DescribeTable / DeclareTable return their keys that are not
  /// credentials (endpoint, region, ...: what a client needs to reach the table), next
  /// to the vended credentials when a vendor is set; the root's own credentials never
  /// leave the namespace unless vend_input_storage_options.
  io::StorageAccess access;
  /// \brief `vend_input_storage_options` (Lance's name, default false): without a
  /// vendor, return the options above whole, the root's own long-lived keys included,
  /// to every client. Unsafe for a served namespace: each client gets the whole root.
  /// (pylance 14 returns nothing at all without it.)
  bool vend_input_storage_options = false;
  bool manifest_enabled = true;
  bool dir_listing_enabled = true;
  /// \brief When set (`credential_vendor.enabled=true`), describe_table and
  /// declare_table return credentials vended for the table's location (see
  /// credential_vendor.h) instead of the root's credentials.
  std::shared_ptr<CredentialVendor> credential_vendor;
  /// \brief The permission vended (`credential_vendor.permission`, default read).
  VendPermission vend_permission = VendPermission::kRead;
};

class DirectoryNamespace : public LanceNamespace {
 public:
  /// \brief Lance's DirectoryNamespaceBuilder::from_properties: `root` (required),
  /// `storage.<key>` (prefix stripped), `manifest_enabled`, `dir_listing_enabled`
  /// ("true" / "false"), `vend_input_storage_options`, `credential_vendor.*`
  /// (CredentialVendorFromProperties: vending on with `credential_vendor.enabled=true`).
  /// Other keys (Lance's
  /// inline_optimization_enabled, ...) are ignored.
  /// \return the namespace; InvalidInput for a missing root, a boolean that is not
  /// "true"/"false" (Lance silently takes the default there) or bad credential_vendor.*
  /// values; errors of Make.
  static Result<std::shared_ptr<DirectoryNamespace>> FromProperties(
      const Properties& properties);

  /// \brief Resolves the root's store; in manifest mode opens `__manifest`, creating it
  /// (version 1, no rows) when missing.
  /// \return the namespace; Invalid; errors of the store and of the manifest table.
  static Result<std::shared_ptr<DirectoryNamespace>> Make(
      DirectoryNamespaceOptions options);

  /// \brief `DirectoryNamespace { root: "<root>" }`, as Lance prints it.
  std::string namespace_id() const override;

  const std::string& root() const { return options_.root; }
  bool manifest_enabled() const { return options_.manifest_enabled; }
  bool dir_listing_enabled() const { return options_.dir_listing_enabled; }

  // Every operation of operations.def (the one list). What the two layouts make of
  // them, for those the spec leaves open:
  //
  // - ListNamespaces: Plain: only the root, which has no children. Manifest: the direct
  //   children recorded in `__manifest`.
  //
  // - CreateNamespace: Manifest mode only (plain: NamespaceAlreadyExists for the root,
  //   Unsupported otherwise). Every parent level must exist (NamespaceNotFound).
  //
  // - DropNamespace: Restrict only (NamespaceNotEmpty while any object lies below it).
  //
  // - ListTables: Sorted names, Lance's pagination (page_token = start after, limit).
  //   Root: directories `<name>.lance` not deregistered, plus (manifest mode) root-level
  //   tables of `__manifest`; other namespaces: `__manifest` only.
  //
  // - DescribeTable: Location (and the namespace's storage options); the version only
  //   with load_detailed_metadata (the table is then opened). Root-level tables are
  //   looked up in their directory first (as Lance does while dir_listing_enabled) and
  //   then in `__manifest`; nested ones in `__manifest`.
  //   Returns: TableNotFound (also for deregistered tables); InvalidInput; Unsupported
  //   for multi-level ids in the plain layout.
  //
  // - DeclareTable: Writes the `.lance-reserved` marker (create-only) and, in manifest
  //   mode, a `__manifest` row; no version.
  //
  //   Exactly one of any number of concurrent declarations of one id succeeds, the others
  //   get TableAlreadyExists: root-level tables in `<name>.lance` are gated by the
  //   create-only marker. Other ids append their row (the commit protocol rebases
  //   concurrent appends, so every row lands) and then read `__manifest` at the version
  //   they committed: that version holds every row committed before it, so the first
  //   committer sees only its own row and wins, and every later one sees an earlier row
  //   for the id and loses -- it then removes its own row (a Delete of its own fragment,
  //   which holds only that row) and its marker. Readers that meet a duplicate before the
  //   loser has cleaned up take the first row in scan order, which is the winner's.
  //   Returns: the location (and storage options); TableAlreadyExists; InvalidInput for a
  //   location other than the assigned one or an empty id.
  //
  // - CreateEmptyTable: As DeclareTable (Lance's deprecated create_empty_table).
  //
  // - RegisterTable: Manifest mode only: records an existing table at a location relative
  //   to the root. The location is confined (Lance checks only the first three): no
  //   "://", no leading '/', no ".." segment, not `__manifest` or inside it, not equal
  //   to, inside or above another table's location, and none of the characters
  //   CheckPolicySafeName refuses; parent namespaces must exist. The row carries the mark
  //   `lance_cpp.registered` in its metadata (never shown among the properties, refused
  //   in properties a client sets), which keeps drop_table from deleting the data.
  //   Returns: InvalidInput naming the rule a location breaks; TableAlreadyExists.
  //
  // - DeregisterTable: Plain: writes `.lance-deregistered`. Manifest: removes the row
  //   (and, for a root-level table in `<name>.lance`, writes the marker too, so that
  //   directory listing does not bring it back). Data stays.
  //
  // - DropTable: Removes the row (manifest) and deletes the table directory when the
  //   namespace owns it: the `<name>.lance` directory of a root table (also after a
  //   rename), or a directory of the shape the manifest layout allocates (`<8 hex>_...`,
  //   ours and Lance's), when register_table did not record the row (it marks its rows,
  //   see RegisterTable). A registered table only loses its row: its data was someone
  //   else's before it was registered, and stays. A location overlapping another table's,
  //   or naming `__manifest`, is never deleted either. (Lance deletes every dropped
  //   table's location, registered ones included.)
  //
  // Table data, schema, versions, tags and transactions (directory_table_ops.cc): each
  // locates the table as DescribeTable does and runs the core's operation on it with
  // the namespace's own storage access. AlterTransaction is Unsupported (transactions
  // commit as they are made).
#define LANCE_NS_OPERATION(Method, wire, Body, Reply, ...) \
  LANCE_NS_RESULT(Method, Reply) Method(LANCE_NS_PARAMS(Method, Body)) override;
#include "lance/namespace/operations.def"
#undef LANCE_NS_OPERATION

  /// \brief A view sharing this namespace's state whose vended credentials never
  /// exceed `permission` (declare_table's "at least write" included).
  std::shared_ptr<LanceNamespace> WithVendPermissionCap(
      VendPermission permission) override;

  class Impl;
  explicit DirectoryNamespace(std::shared_ptr<Impl> impl,
                              DirectoryNamespaceOptions options,
                              std::optional<VendPermission> vend_cap = std::nullopt);
  ~DirectoryNamespace() override;

 private:
  /// \brief The permission describe (`for_declare` false) or declare vends: the
  /// configured one (declare: at least write), capped by vend_cap_.
  VendPermission VendPermissionFor(bool for_declare) const;

  std::shared_ptr<Impl> impl_;
  DirectoryNamespaceOptions options_;
  std::optional<VendPermission> vend_cap_;
};

}  // namespace lance::ns

// SPDX-License-Identifier: Apache-2.0

#include "lance/namespace/dataset_ops.h"

#include <utility>

#include "lance/io/storage_options.h"
#include "lance/macros.h"
#include "lance/namespace/storage_options_provider.h"

namespace lance::ns {

namespace {

std::string TableText(const LanceNamespace& ns, const Identifier& table_id) {
  return "table '" + JoinIdentifier(table_id) + "' of " + ns.namespace_id();
}

Status CheckArguments(const std::shared_ptr<LanceNamespace>& ns,
                      const Identifier& table_id, std::string_view what) {
  if (ns == nullptr) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          std::string(what) + " through a namespace needs a namespace");
  }
  if (table_id.empty()) {
    return NamespaceError(ErrorCode::kInvalidInput, std::string(what) + " through " +
                                                        ns->namespace_id() +
                                                        " needs a non-empty table id");
  }
  return Status::OK();
}

// The location and storage options of the table a create-mode write goes to: one
// declare_table, or -- only when the namespace does not implement it, as Lance does for
// namespaces older than the declare operation -- one create_empty_table.
struct Located {
  std::optional<std::string> location;
  std::optional<Properties> storage_options;
};

Result<Located> Declare(LanceNamespace& ns, const Identifier& table_id) {
  DeclareTableRequest declare;
  declare.id = table_id;
  Result<DeclareTableResponse> declared = ns.DeclareTable(declare);
  if (declared.ok()) {
    return Located{std::move(declared->location), std::move(declared->storage_options)};
  }
  if (!declared.status().IsNotImplemented()) {
    return declared.status().WithContext("declaring " + TableText(ns, table_id) +
                                         " for a create-mode write");
  }
  CreateEmptyTableRequest create;
  create.id = table_id;
  Result<CreateEmptyTableResponse> created = ns.CreateEmptyTable(create);
  if (!created.ok()) {
    return created.status().WithContext(
        "creating the empty " + TableText(ns, table_id) +
        " for a create-mode write (the namespace does not support declare_table)");
  }
  return Located{std::move(created->location), std::move(created->storage_options)};
}

Result<Located> Describe(LanceNamespace& ns, const Identifier& table_id,
                         std::string_view why) {
  DescribeTableRequest describe;
  describe.id = table_id;
  Result<DescribeTableResponse> described = ns.DescribeTable(describe);
  if (!described.ok()) {
    return described.status().WithContext("describing " + TableText(ns, table_id) +
                                          " to " + std::string(why));
  }
  return Located{std::move(described->location), std::move(described->storage_options)};
}

}  // namespace

bool IsVendedCredentialKey(std::string_view key) {
  return io::IsCredentialOptionKey(key);
}

Properties MergeStorageOptions(const Properties& user_options,
                               const Properties& namespace_options) {
  Properties merged = user_options;
  for (const auto& [key, value] : namespace_options) {
    if (IsVendedCredentialKey(key) || merged.find(key) == merged.end()) {
      merged[key] = value;
    }
  }
  return merged;
}

Result<TableAccess> MakeTableAccess(std::shared_ptr<LanceNamespace> ns,
                                    const Identifier& table_id,
                                    const std::string& location,
                                    const std::optional<Properties>& namespace_options,
                                    const io::StorageAccess& user_access,
                                    const NamespaceAccessOptions& options) {
  LANCE_RETURN_NOT_OK(CheckArguments(ns, table_id, "accessing a table"));
  if (location.empty()) {
    return NamespaceError(
        ErrorCode::kInvalidInput,
        "the namespace returned no location for " + TableText(*ns, table_id));
  }
  TableAccess out;
  out.location = location;
  const bool use_namespace = !options.ignore_namespace_storage_options &&
                             namespace_options.has_value() && !namespace_options->empty();
  if (!use_namespace) {
    out.access = user_access;
    return out;
  }
  io::StorageOptions merged =
      MergeStorageOptions(user_access.storage_options, *namespace_options);
  auto provider = std::make_shared<LanceNamespaceStorageOptionsProvider>(ns, table_id);
  // Resolved here rather than at the entry point: only here are the clock and the
  // refresh tuning of `options` known.
  Result<io::StorageAccess> access =
      io::ResolveStorageAccess(io::StorageAccess(std::move(merged), std::move(provider)),
                               options.clock, options.refresh);
  if (!access.ok()) {
    return access.status().WithContext(
        "using the storage options the namespace returned for " +
        TableText(*ns, table_id));
  }
  out.access = std::move(access).MoveValueUnsafe();
  return out;
}

Result<std::shared_ptr<Dataset>> WriteDataset(RecordBatchReader& data,
                                              std::shared_ptr<LanceNamespace> ns,
                                              const Identifier& table_id,
                                              WriteParams params,
                                              const NamespaceAccessOptions& options) {
  LANCE_RETURN_NOT_OK(CheckArguments(ns, table_id, "writing a dataset"));
  Located located;
  if (params.mode == WriteMode::kCreate) {
    LANCE_ASSIGN_OR_RAISE(located, Declare(*ns, table_id));
  } else {
    LANCE_ASSIGN_OR_RAISE(
        located,
        Describe(*ns, table_id,
                 params.mode == WriteMode::kAppend ? "append to it" : "overwrite it"));
  }
  LANCE_ASSIGN_OR_RAISE(TableAccess table,
                        MakeTableAccess(ns, table_id, located.location.value_or(""),
                                        located.storage_options, params.access, options));
  params.access = std::move(table.access);
  Result<std::shared_ptr<Dataset>> written = Dataset::Write(data, table.location, params);
  if (!written.ok()) {
    return written.status().WithContext("writing " + TableText(*ns, table_id) + " at " +
                                        table.location);
  }
  return written;
}

Result<std::shared_ptr<Dataset>> OpenDataset(std::shared_ptr<LanceNamespace> ns,
                                             const Identifier& table_id,
                                             OpenOptions open_options,
                                             const NamespaceAccessOptions& options) {
  LANCE_RETURN_NOT_OK(CheckArguments(ns, table_id, "opening a dataset"));
  LANCE_ASSIGN_OR_RAISE(Located located, Describe(*ns, table_id, "open it"));
  LANCE_ASSIGN_OR_RAISE(
      TableAccess table,
      MakeTableAccess(ns, table_id, located.location.value_or(""),
                      located.storage_options, open_options.access, options));
  open_options.access = std::move(table.access);
  Result<std::shared_ptr<Dataset>> opened = Dataset::Open(table.location, open_options);
  if (!opened.ok()) {
    return opened.status().WithContext("opening " + TableText(*ns, table_id) + " at " +
                                       table.location);
  }
  return opened;
}

}  // namespace lance::ns

// SPDX-License-Identifier: Apache-2.0
// What DirectoryNamespace's two translation units share: directory_namespace.cc (layout,
// `__manifest`, create / rename / list-all) and directory_table_ops.cc (the table data,
// schema, version, tag and transaction operations). Private to src/namespace.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/io/storage_access.h"
#include "lance/namespace/directory_namespace.h"
#include "lance/result.h"

namespace lance::ns::internal {

/// The namespace's storage access, resolved once when it was made: tables are opened and
/// written with it, so they share the namespace's store and credentials.
const io::StorageAccess& TableAccess(const DirectoryNamespace::Impl& impl);

/// The URI the table `id` is read and written at (its directory under the root, as
/// DescribeTable's load_detailed_metadata opens it: never the percent-encoded location
/// the manifest layout reports). Found as DescribeTable finds it.
/// \return TableNotFound, InvalidInput, Unsupported as DescribeTable.
Result<std::string> TableUri(DirectoryNamespace::Impl& impl, const Identifier& id);

/// Reads the Arrow IPC stream sent with a request, whole (requests are bounded by the
/// transport; a merge-insert reads it again on each retry). `what` names the request.
/// \return the rows; InvalidInput when `data` is empty or not an IPC stream.
Result<TablePtr> ReadIpcRequest(std::string_view data, std::string_view what);

/// A reader over `table`'s batches.
std::unique_ptr<RecordBatchReader> TableReader(const TablePtr& table);

/// The uuid of the transaction that committed `ds`'s version (Manifest.transaction_file
/// is `<read_version>-<uuid>.txn`); nullopt when the manifest names no transaction file.
/// \return errors of the store; Corrupt for a manifest that does not decode.
Result<std::optional<std::string>> CommittedTransactionId(const Dataset& ds);

/// A failed core call on a table as a spec error: Invalid -> InvalidInput, Conflict ->
/// ConcurrentModification, others keep their code; the message says what was attempted.
/// Statuses that already carry a spec kind are only given the context.
Status TableOpError(const Status& status, std::string_view what);

}  // namespace lance::ns::internal

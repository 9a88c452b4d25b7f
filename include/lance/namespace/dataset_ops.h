// SPDX-License-Identifier: Apache-2.0
/// \file dataset_ops.h
/// \brief Datasets addressed through a Lance Namespace: write with (namespace, table id,
/// mode), open with (namespace, table id) -- pylance's `write_dataset(..., namespace=,
/// table_id=)` and `lance.dataset(namespace=, table_id=)` -- with exactly the namespace
/// calls Lance makes, and the table's vended credentials refreshed from the namespace.
///
/// Namespace calls (docs/credentials.md, "Namespaces and call counts"):
/// - WriteDataset, mode create: one `declare_table` (one `create_empty_table` more when
///   the namespace answers NotImplemented to declare); no `describe_table`.
/// - WriteDataset, mode append / overwrite: one `describe_table`; no declare.
/// - OpenDataset: one `describe_table`.
/// - Afterwards, reads and writes of the returned dataset make no call while the
///   credentials are valid, and exactly one `describe_table` per expiry (by the
///   LanceNamespaceStorageOptionsProvider seeded with the response's options: the
///   response that located the table is never fetched a second time).

#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "lance/core/clock.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/io/refreshing_credentials.h"
#include "lance/io/storage_access.h"
#include "lance/namespace/namespace.h"
#include "lance/result.h"

namespace lance::ns {

/// \brief How the namespace's answer is turned into storage access.
struct NamespaceAccessOptions {
  /// \brief Use only the caller's storage options and credentials, not the namespace's
  /// (Lance's `ignore_namespace_storage_options`); no provider is attached then.
  bool ignore_namespace_storage_options = false;
  /// \brief Clock of the refreshing credentials (null: RealClock).
  std::shared_ptr<Clock> clock;
  /// \brief Tuning and events of the refresh (on_event for logs and demos).
  io::RefreshingCredentialsOptions refresh = io::RefreshingCredentialsOptions::Defaults();
};

/// \brief Where a table lives and how to access it, from one namespace response.
struct TableAccess {
  /// \brief The response's `location`.
  std::string location;
  /// \brief The caller's options merged with the namespace's (MergeStorageOptions) and,
  /// when the namespace returned storage options, a LanceNamespaceStorageOptionsProvider
  /// for the table and its refreshing source, seeded with them (resolved: see
  /// io::ResolveStorageAccess); otherwise the caller's access as given.
  io::StorageAccess access;
};

/// \brief True for the keys of vended credentials: key ids, secrets and tokens
/// (io::IsSensitiveOptionKey: `aws_access_key_id`, `aws_secret_access_key`,
/// `aws_session_token`, ...) and their timing, `expires_at_millis` and
/// `refresh_offset_millis`.
bool IsVendedCredentialKey(std::string_view key);

/// \brief A user's storage options combined with a namespace's: the user's first (their
/// values win for every other key: endpoint, region, timeouts, ...), the namespace's
/// added where the user has none, and the namespace's vended credentials
/// (IsVendedCredentialKey) winning over the user's, so that a table is always accessed
/// with the credentials the namespace scoped to it, paired with their expiry.
Properties MergeStorageOptions(const Properties& user_options,
                               const Properties& namespace_options);

/// \brief Builds the TableAccess of a namespace response (no namespace call):
/// user_access's options merged with `namespace_options` (MergeStorageOptions). When
/// `namespace_options` is non-empty (and not ignored) the provider is
/// LanceNamespaceStorageOptionsProvider(ns, table_id) and the credentials source a
/// RefreshingCredentialsSource over it seeded with the merged options, as Lance creates
/// its provider only for a non-empty map (the user's provider or source is then
/// replaced); otherwise `user_access` is kept as it is.
/// \return the access; InvalidInput for an empty location; errors of
/// io::ResolveStorageAccess.
Result<TableAccess> MakeTableAccess(std::shared_ptr<LanceNamespace> ns,
                                    const Identifier& table_id,
                                    const std::string& location,
                                    const std::optional<Properties>& namespace_options,
                                    const io::StorageAccess& user_access,
                                    const NamespaceAccessOptions& options = {});

/// \brief Writes `data` to the table `table_id` of `ns` with `params.mode`:
/// - create: `declare_table({id})` (falling back to `create_empty_table` when declare
///   is NotImplemented), then Dataset::Write at the declared location in create mode.
///   Declaring writes no version: this write makes version 1.
/// - append / overwrite: `describe_table({id})`, then Dataset::Write at its location.
/// params.access's options are merged with the response's (MergeStorageOptions), and its
/// provider and credentials source are replaced by the table's when the response carried
/// storage options (MakeTableAccess). The returned dataset keeps that source (through
/// its store and Dataset::storage_access) for every later read, version load and commit.
/// \return the dataset; the namespace's error (TableAlreadyExists for create of an
/// existing table, TableNotFound for append/overwrite of a missing one) with context;
/// errors of Dataset::Write.
Result<std::shared_ptr<Dataset>> WriteDataset(RecordBatchReader& data,
                                              std::shared_ptr<LanceNamespace> ns,
                                              const Identifier& table_id,
                                              WriteParams params = {},
                                              const NamespaceAccessOptions& options = {});

/// \brief Opens the table `table_id` of `ns`: one `describe_table({id})`, then
/// Dataset::Open at its location with open_options.access merged with the response's
/// options (MergeStorageOptions) and the table's refreshing source (as in WriteDataset).
/// \return the dataset; TableNotFound; errors of Dataset::Open.
Result<std::shared_ptr<Dataset>> OpenDataset(std::shared_ptr<LanceNamespace> ns,
                                             const Identifier& table_id,
                                             OpenOptions open_options = {},
                                             const NamespaceAccessOptions& options = {});

}  // namespace lance::ns

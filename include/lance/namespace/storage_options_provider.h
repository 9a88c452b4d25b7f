// SPDX-License-Identifier: Apache-2.0
/// \file storage_options_provider.h
/// \brief LanceNamespaceStorageOptionsProvider: a StorageOptionsProvider that asks a
/// Lance Namespace for the storage options of one table (`describe_table`), as Lance's
/// `LanceNamespaceStorageOptionsProvider` (rust/lance-namespace).

#pragma once

#include <memory>
#include <optional>
#include <string>

#include "lance/io/storage_options_provider.h"
#include "lance/namespace/namespace.h"
#include "lance/result.h"

namespace lance::ns {

/// \brief Fetch = `namespace.describe_table({id: table_id, vend_credentials: true})
/// .storage_options`.
///
/// Every FetchStorageOptions() is exactly one DescribeTable call (no caching here: the
/// RefreshingCredentialsSource that owns the provider decides when to fetch). Thread-safe
/// as far as the namespace is (LanceNamespace implementations must be).
class LanceNamespaceStorageOptionsProvider final : public io::StorageOptionsProvider {
 public:
  /// \brief REQUIRES: `ns` non-null and `table_id` non-empty (Make checks both).
  LanceNamespaceStorageOptionsProvider(std::shared_ptr<LanceNamespace> ns,
                                       Identifier table_id);

  /// \brief The checked constructor. \return InvalidInput for a null namespace or an
  /// empty table id.
  static Result<std::shared_ptr<LanceNamespaceStorageOptionsProvider>> Make(
      std::shared_ptr<LanceNamespace> ns, Identifier table_id);

  /// \brief One `describe_table({id: table_id, vend_credentials: true})`; its
  /// `storage_options` (nullopt when the response has none, which the refreshing source
  /// treats as a failed refresh). \return the options; the namespace's error, with
  /// context naming the table and the namespace (no secret: the namespace's errors carry
  /// none).
  Result<std::optional<io::StorageOptions>> FetchStorageOptions() override;

  /// \brief `LanceNamespaceStorageOptionsProvider { namespace: <namespace_id()>,
  /// table_id: ["a", "b"] }` (Lance's Debug form of the same provider): the namespace's
  /// identity and the table id, nothing secret. Equal for two providers on the same
  /// table of the same namespace, so their handles share one store and one refresh.
  std::string provider_id() const override;

  const std::shared_ptr<LanceNamespace>& ns() const { return ns_; }
  const Identifier& table_id() const { return table_id_; }

 private:
  std::shared_ptr<LanceNamespace> ns_;
  Identifier table_id_;
  std::string provider_id_;
};

}  // namespace lance::ns

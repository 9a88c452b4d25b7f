// SPDX-License-Identifier: Apache-2.0
/// \file azure_object_store.h
/// \brief AzureObjectStore: the ObjectStore of one Azure Blob Storage container
/// (az://container/path, azure://container/path,
/// abfss://container@account.dfs.core.windows.net/path).
///
/// Mapping of the ObjectStore contract onto the Blob service:
/// - Head/OpenReader: Get Blob Properties; a reader pins the ETag it saw and reads with
///   If-Match (a replaced blob fails the read with IOError "object changed").
///   OpenReaderWithSize skips the HEAD (no pinning).
/// - ReadAt: one Get Blob with x-ms-range, or for ranges above
///   AzureOptions::read_chunk_size parallel ranged reads of that size into one buffer.
/// - OpenWriter: buffers up to one block; a blob that never exceeds a block is one Put
///   Blob at Close, a larger one is uploaded as blocks (Put Block, at most
///   block_concurrency in flight) committed by Put Block List at Close. Uncommitted
///   blocks of an aborted upload are never visible (the service drops them).
/// - Put: Put Blob. PutIfNotExists: Put Blob with If-None-Match: * (409/412 ->
///   AlreadyExists).
/// - List: List Blobs (delimiter "/" unless recursive; markers as continuation tokens;
///   start_after applied here, the service has none). Delete: Delete Blob (a missing blob
///   is OK). DeleteMany: parallel deletes.
/// - Copy: Copy Blob (waits for a pending copy). Rename: copy + delete (not atomic).
///   RenameIfNotExists: Copy Blob with If-None-Match: * on the destination and the
///   source's ETag as x-ms-source-if-match, then delete of that source version.
/// Capabilities: conditional put yes, directories no, lexical listing yes, local no.
///
/// Credentials come from a CredentialsSource asked on every request (Shared Key when it
/// hands out an account key, else its SAS, else its bearer token), so a refreshing
/// source swaps a SAS under a live store. Without a source: the options' static
/// credentials, or a client-credentials token source when azure_client_id /
/// azure_client_secret / azure_tenant_id are given.

#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lance/io/azure_options.h"
#include "lance/io/credentials.h"
#include "lance/io/object_store.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/remote_object_store.h"

namespace lance::io {

namespace azure {
// The transport, private to the io layer (src/io/azure/azure_client.h).
class AzureClient;
}  // namespace azure

class AzureObjectStore final : public RemoteObjectStore {
 public:
  ~AzureObjectStore() override;

  Result<ListResult> List(const std::string& prefix,
                          const ListOptions& options = {}) override;
  /// \brief Parallel deletes, all keys validated first.
  Status DeleteMany(const std::vector<std::string>& paths) override;
  /// \brief Copy Blob, create-only on the destination and taking the source version it
  /// saw, then a delete of that version.
  Status RenameIfNotExists(const std::string& src, const std::string& dst) override;

  /// \brief "AzureObjectStore(az://container, <AzureOptions::ToString>, <source>)";
  /// never a key, SAS or token.
  std::string ToString() const override;

  /// \brief The client (tests include the private src/io/azure/azure_client.h).
  const std::shared_ptr<azure::AzureClient>& client() const { return client_; }

 private:
  friend Result<std::shared_ptr<AzureObjectStore>> MakeAzureObjectStore(
      std::string, AzureOptions, std::shared_ptr<CredentialsSource>, std::string);
  AzureObjectStore(std::string container, std::string uri,
                   std::shared_ptr<azure::AzureClient> client);

  Result<RemoteObject> StatObject(const std::string& key) override;
  std::shared_ptr<RandomAccessReader> NewReader(const std::string& key, int64_t size,
                                                std::string version) override;
  Result<BufferPtr> GetObject(const std::string& key) override;
  std::unique_ptr<OutputStream> NewWriter(const std::string& key) override;
  Status PutObject(const std::string& key, std::string_view data,
                   bool if_not_exists) override;
  Status DeleteObject(const std::string& key) override;
  Status CopyObject(const std::string& src, const std::string& dst) override;

  std::shared_ptr<azure::AzureClient> client_;
};

/// \brief A store for `container` with parsed options. `credentials` null: a source
/// built from the options (see the file comment). `scheme` ("az", "azure", "abfss")
/// only shapes uri().
/// \return the store; Invalid for a malformed container name or endpoint.
Result<std::shared_ptr<AzureObjectStore>> MakeAzureObjectStore(
    std::string container, AzureOptions options,
    std::shared_ptr<CredentialsSource> credentials = nullptr, std::string scheme = "az");

/// \brief ParseAzureOptions(storage_options, the process environment, the location's
/// account) then MakeAzureObjectStore. `authority` is the location's: "container", or
/// "container@account.dfs.core.windows.net" (abfss).
Result<std::shared_ptr<AzureObjectStore>> MakeAzureObjectStoreFromStorageOptions(
    const std::string& scheme, const std::string& authority,
    const StorageOptions& storage_options,
    std::shared_ptr<CredentialsSource> credentials = nullptr);

/// \brief The credentials source a store uses when given none: the options' static
/// credentials, or (no static ones, a client id, secret and tenant) a source that
/// fetches OAuth tokens with the client-credentials grant from
/// "<authority_host>/<tenant>/oauth2/v2.0/token" (scope
/// https://storage.azure.com/.default), cached until shortly before they expire, one
/// fetch at a time.
Result<std::shared_ptr<CredentialsSource>> MakeAzureCredentialsSource(
    const AzureOptions& options);

/// \brief Registers "az", "azure", "abfs" and "abfss" on `registry` (replacing any
/// factory). \return OK.
Status RegisterAzureObjectStore(ObjectStoreRegistry* registry);

}  // namespace lance::io

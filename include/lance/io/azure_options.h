// SPDX-License-Identifier: Apache-2.0
/// \file azure_options.h
/// \brief AzureOptions: the Azure Blob Storage store's configuration, parsed from Lance's
/// storage options (the key names of real Lance / object_store).

#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "lance/io/credentials.h"
#include "lance/io/remote_tuning.h"
#include "lance/io/storage_options.h"
#include "lance/result.h"

namespace lance::io {

/// \brief Azurite's account and its published development key (not a secret).
inline constexpr std::string_view kAzureEmulatorAccount = "devstoreaccount1";
inline constexpr std::string_view kAzureEmulatorKey =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/"
    "KBHBeksoGMGw==";
/// \brief Where Azurite listens when nothing else is said (object_store's default of the
/// AZURITE_BLOB_STORAGE_URL environment variable).
inline constexpr std::string_view kAzureEmulatorUrl = "http://127.0.0.1:10000";

/// \brief Everything the Azure client and store need, except the container.
///
/// Never log it directly (`credentials` and `client_secret` are secrets): ToString().
/// Retries, timeouts, read chunks and connections: RemoteTuning.
struct AzureOptions : RemoteTuning {
  /// \brief The storage account ("azure_storage_account_name" | "account_name" |
  /// AZURE_STORAGE_ACCOUNT_NAME). With the emulator, default "devstoreaccount1".
  std::string account;
  /// \brief The base URL requests go to, "<base>/<container>/<blob>": without the
  /// emulator "azure_storage_endpoint" | "azure_endpoint" | "endpoint" as given (no
  /// trailing '/'), default "https://<account>.blob.core.windows.net"; with it the
  /// emulator URL (that endpoint, else AZURITE_BLOB_STORAGE_URL, else
  /// http://127.0.0.1:10000) followed by "/<account>" (path-style, as Azurite wants).
  std::string endpoint;
  /// \brief "azure_storage_use_emulator" | "use_emulator" (AZURE_STORAGE_USE_EMULATOR):
  /// Azurite, with its well-known key when no credential is given; implies allow_http.
  bool use_emulator = false;
  /// \brief Permit an http:// endpoint ("allow_http", any key containing "allow_http").
  bool allow_http = false;
  /// \brief Skip TLS certificate checks ("allow_invalid_certificates").
  bool allow_invalid_certificates = false;
  /// \brief Static credentials from the options (account key, SAS, bearer token; read by
  /// CredentialsFromStorageOptions). All empty: none given.
  AzureCredentials credentials;

  /// \brief A service principal whose OAuth tokens sign the requests (client-credentials
  /// grant): "azure_client_id" | "azure_storage_client_id" | "client_id",
  /// "azure_client_secret" | "azure_storage_client_secret" | "client_secret",
  /// "azure_tenant_id" | "azure_storage_tenant_id" | "azure_authority_id" | "tenant_id" |
  /// "authority_id". Used when all three are set and no static credential is.
  std::string client_id;
  std::string client_secret;
  std::string tenant_id;
  /// \brief The token service ("azure_authority_host" | "azure_storage_authority_host" |
  /// "authority_host"), default "https://login.microsoftonline.com".
  std::string authority_host = "https://login.microsoftonline.com";

  /// \brief Objects larger than this are written as blocks of this size ("Put Block" +
  /// "Put Block List"); smaller ones are one "Put Blob" ("lance_cpp_block_size",
  /// "lance_cpp_multipart_part_size"; 1 MiB to 4000 MiB). Default 16 MiB.
  int64_t block_size = 16 << 20;
  /// \brief Blocks uploaded concurrently per stream ("lance_cpp_block_concurrency",
  /// "lance_cpp_multipart_concurrency"). Default 4.
  int block_concurrency = 4;

  /// \brief One line without any secret: account, endpoint, switches, which kind of
  /// credential is given (never its value), tuning.
  std::string ToString() const;
};

/// \brief Parses Lance storage options for Azure (keys case-insensitive, aliases as
/// listed on AzureOptions; unknown keys ignored). Booleans, durations and integers as
/// ParseS3Options reads them. Environment (`env`, null for none): the variables named
/// above fill in what the options leave out. `location_account`: the account a location
/// names (abfss://container@<account>.dfs.core.windows.net), used when neither the
/// options nor the environment name one.
/// \return the options; Invalid naming the key (never a secret value) for a malformed
/// value, two aliases with different values, an http endpoint without allow_http, a
/// missing account (outside the emulator), a partial client id/secret/tenant triple.
Result<AzureOptions> ParseAzureOptions(const StorageOptions& options,
                                       const EnvLookup& env = nullptr,
                                       std::string_view location_account = {});

}  // namespace lance::io

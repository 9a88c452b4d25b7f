// SPDX-License-Identifier: Apache-2.0
/// \file azure_sas.h
/// \brief SasMinter: shared access signatures for one table, minted with a namespace's
/// own Azure credentials (what the Azure credential vendor hands out).
///
/// Which SAS: with an account key (Shared Key, or the emulator's well-known key) a
/// service SAS; with an OAuth token (a bearer token, or a client id / secret / tenant) a
/// user-delegation SAS, signed with a user delegation key from Get User Delegation Key
/// (Lance's vendor does this; the key is reused until it nears its end). Scope: on an
/// account with a hierarchical namespace a directory SAS (sr=d, the table's directory
/// and its depth) reaches the table alone; on a flat account the narrowest scope the
/// Blob service offers for a tree of blobs is the whole container (sr=c), which then
/// reaches every table of that container: the grant says so (SasScope) and the minter
/// logs it once per container.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "lance/io/storage_options.h"
#include "lance/result.h"

namespace lance::io::azure {

/// \brief What a SAS reaches.
enum class SasScope {
  kContainer,  ///< every blob of the container (flat accounts)
  kDirectory,  ///< one directory and its subtree (hierarchical-namespace accounts)
};

/// \brief "container" / "directory".
std::string_view SasScopeName(SasScope scope);

/// \brief Whether the account has a hierarchical namespace (directory SAS possible).
enum class HierarchicalNamespace {
  kAuto,  ///< ask the account (Get Account Information, x-ms-is-hns-enabled) once
  kYes,
  kNo,
};

/// \brief One minted SAS. `sas_token` is a secret: never log it.
struct SasGrant {
  /// \brief The query string, without '?'.
  std::string sas_token;
  std::string account;
  SasScope scope = SasScope::kContainer;
  /// \brief What it reaches: "container" or "container/directory".
  std::string scoped_to;
  int64_t expires_at_millis = 0;
};

/// \brief Mints SAS tokens of one storage account. Thread-safe.
class SasMinter {
 public:
  virtual ~SasMinter() = default;

  /// \brief A minter over the account and credentials of `root_options` (Lance's
  /// azure_* keys, as the Azure store reads them; `account` overrides the account name
  /// when not empty). \return Invalid for malformed options or options without an
  /// account key or OAuth credentials (a SAS alone cannot mint another).
  static Result<std::shared_ptr<SasMinter>> Make(
      const StorageOptions& root_options, std::string_view account = {},
      HierarchicalNamespace hns = HierarchicalNamespace::kAuto);

  /// \brief A SAS for `directory` (no leading or trailing '/'; not empty) of
  /// `container`, with the permission letters `permissions` ("rl", "racwl", "racwdl"),
  /// valid from a few minutes ago (clock skew) for `lifetime` (at most 7 days).
  /// \return the grant; Invalid for a malformed container name, directory or
  /// permissions; the service's error for the user delegation key.
  virtual Result<SasGrant> Mint(const std::string& container,
                                const std::string& directory,
                                std::string_view permissions,
                                std::chrono::milliseconds lifetime) = 0;

  /// \brief The account SAS tokens are minted for.
  virtual const std::string& account() const = 0;
  /// \brief One line without any secret.
  virtual std::string ToString() const = 0;
};

}  // namespace lance::io::azure

// SPDX-License-Identifier: Apache-2.0
/// \file storage_options_provider.h
/// \brief StorageOptionsProvider: where expiring storage options (vended credentials)
/// come from, and the storage-option keys that describe their lifetime.
///
/// Lance's contract (`StorageOptionsProvider` in lance-io): a provider returns a flat map
/// of storage options; `expires_at_millis` says when they expire (absent: never), and
/// `refresh_offset_millis` how long before that to fetch new ones. The namespace layer
/// implements it with `describe_table` (LanceNamespaceStorageOptionsProvider); users may
/// implement their own. RefreshingCredentialsSource (refreshing_credentials.h) turns a
/// provider into the credentials a store signs with.

#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "lance/io/storage_options.h"
#include "lance/result.h"

namespace lance::io {

/// \brief Epoch milliseconds (decimal string) at which the options expire. Absent: they
/// never expire and are never re-fetched.
inline constexpr std::string_view kExpiresAtMillisKey = "expires_at_millis";
/// \brief Milliseconds (decimal string) before `expires_at_millis` at which to refresh.
inline constexpr std::string_view kRefreshOffsetMillisKey = "refresh_offset_millis";
/// \brief Refresh offset when a map does not carry `refresh_offset_millis` (Lance's).
inline constexpr int64_t kDefaultRefreshOffsetMillis = 60'000;

/// \brief Supplies fresh storage options (typically temporary credentials) on demand.
///
/// User-implementable. Thread-safe: FetchStorageOptions() may be called from any thread,
/// including a background refresh thread, and concurrently when several sources share a
/// provider (one RefreshingCredentialsSource never has two fetches in flight).
class StorageOptionsProvider {
 public:
  virtual ~StorageOptionsProvider() = default;

  /// \brief Fetches the current storage options (the namespace provider calls
  /// `describe_table`). Include `expires_at_millis` for temporary credentials.
  /// \return the options; nullopt when the provider has none (treated as a failed
  /// refresh); an error (its message must not contain a secret).
  virtual Result<std::optional<StorageOptions>> FetchStorageOptions() = 0;

  /// \brief A human-readable identity, stable for the provider's lifetime, naming what
  /// the options are for (e.g. the namespace and the table id). Part of store cache keys:
  /// two providers with different ids never share a store. Never contains a secret.
  virtual std::string provider_id() const = 0;
};

/// \brief The `expires_at_millis` of `options`.
/// \return nullopt when absent (or empty); Invalid (naming the key and value) when it is
/// not a non-negative decimal integer.
Result<std::optional<int64_t>> ExpiresAtMillis(const StorageOptions& options);

/// \brief The `refresh_offset_millis` of `options`, or `default_offset` when absent.
/// \return Invalid (naming the key and value) when it is not a non-negative decimal
/// integer.
Result<std::chrono::milliseconds> RefreshOffset(
    const StorageOptions& options,
    std::chrono::milliseconds default_offset =
        std::chrono::milliseconds(kDefaultRefreshOffsetMillis));

}  // namespace lance::io

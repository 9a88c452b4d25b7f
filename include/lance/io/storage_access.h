// SPDX-License-Identifier: Apache-2.0
/// \file storage_access.h
/// \brief StorageAccess: what every entry point (dataset, fragments, commit, file reader,
/// writer and session) resolves its store with -- storage options plus an optional
/// credentials source -- and the one function that turns "initial options + a
/// StorageOptionsProvider" into it, so that "a provider" means the same thing everywhere.

#pragma once

#include <memory>
#include <string_view>

#include "lance/core/clock.h"
#include "lance/io/credentials.h"
#include "lance/io/refreshing_credentials.h"
#include "lance/io/storage_options_provider.h"
#include "lance/result.h"

namespace lance::io {

/// \brief Storage options and the credentials source to resolve a store with (the two
/// arguments of ObjectStoreRegistry::Resolve, WriteParams, OpenOptions, Dataset::Commit,
/// LanceFileReader/Writer::OpenUri and LanceFileSession).
struct StorageAccess {
  StorageOptions storage_options;
  /// \brief Null: credentials come from storage_options.
  std::shared_ptr<CredentialsSource> credentials;
};

/// \brief True for the keys a credentials source takes over from a storage-options map:
/// the credential keys under every alias ParseS3Options accepts (aws_access_key_id,
/// access_key_id, aws_secret_access_key, secret_access_key, aws_session_token,
/// aws_token, aws_security_token, session_token, token; case-insensitive) and the
/// lifetime keys expires_at_millis and refresh_offset_millis.
bool IsRefreshableOptionKey(std::string_view key);

/// \brief `options` without the keys of IsRefreshableOptionKey.
StorageOptions WithoutRefreshableOptions(const StorageOptions& options);

/// \brief The credentials source for `initial_options` and `provider`: a
/// RefreshingCredentialsSource seeded with `initial_options` (no fetch here), or null
/// when `provider` is null (static options: the store takes its credentials from the
/// options, and nothing is ever fetched). At most one source per provider id is alive:
/// while one is, it is returned (reseeded with `initial_options` when those are fresher,
/// see RefreshingCredentialsSource::Reseed) instead of a new one, so every handle on a
/// table shares one cache and `clock` / `options` of later calls are ignored.
/// \return the source (or null); Invalid for malformed initial options (see
/// RefreshingCredentialsSource::Make).
Result<std::shared_ptr<CredentialsSource>> MakeCredentialsSource(
    const StorageOptions& initial_options, std::shared_ptr<StorageOptionsProvider> provider,
    std::shared_ptr<Clock> clock = nullptr,
    RefreshingCredentialsOptions options = RefreshingCredentialsOptions::Defaults());

/// \brief What to resolve a store with, given the options that located a table (or
/// file) and an optional provider:
/// - no provider: {initial_options, null} -- static options, as before;
/// - a provider: {initial_options minus the refreshable keys, a source seeded with
///   initial_options}. The credentials and their lifetime live in the source only, so
///   the store cache key is (scheme, bucket, non-secret options, "provider:" +
///   provider_id) and stays the same across refreshes: every handle on one provider
///   (a dataset opened twice, a file reader next to a writer) gets the same live store
///   and therefore one refresh per expiry, not one per handle.
/// Local and in-memory stores ignore the source, so a provider attached to a local or
/// memory location is never called.
/// \return the access; errors of MakeCredentialsSource.
Result<StorageAccess> MakeStorageAccess(
    const StorageOptions& initial_options, std::shared_ptr<StorageOptionsProvider> provider,
    std::shared_ptr<Clock> clock = nullptr,
    RefreshingCredentialsOptions options = RefreshingCredentialsOptions::Defaults());

}  // namespace lance::io

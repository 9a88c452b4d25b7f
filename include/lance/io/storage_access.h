// SPDX-License-Identifier: Apache-2.0
/// \file storage_access.h
/// \brief StorageAccess: what every entry point (dataset, fragments, commit, file reader,
/// writer and session, namespaces) resolves its store with -- storage options plus an
/// optional StorageOptionsProvider and credentials source -- and the one function that
/// turns "initial options + a provider" into a credentials source, so that "a provider"
/// means the same thing everywhere.

#pragma once

#include <memory>
#include <string_view>
#include <utility>

#include "lance/core/clock.h"
#include "lance/io/credentials.h"
#include "lance/io/refreshing_credentials.h"
#include "lance/io/storage_options.h"
#include "lance/io/storage_options_provider.h"
#include "lance/result.h"

namespace lance::io {

/// \brief How to reach storage: the one argument every entry point takes (WriteParams,
/// OpenOptions, Dataset::Commit, LanceFileReader/Writer::OpenUri, LanceFileSession,
/// DirectoryNamespaceOptions, the namespace dataset operations, ObjectStoreRegistry).
///
/// Three forms:
/// - options only: static options (credentials, if any, among them);
/// - options + a provider: the options are the initial ones (e.g. what describe_table
///   returned) and the provider refreshes the credentials among them. The entry point
///   resolves this form with ResolveStorageAccess: callers never build the credentials
///   source themselves;
/// - options + a credentials source: the store asks that source on every request (a
///   resolved access, or a caller's own source).
/// A resolved access (ResolveStorageAccess) keeps its provider, for information, and is
/// resolved again to itself.
struct StorageAccess {
  StorageAccess() = default;
  /// \brief Static options (implicit: a bare options map is the common case).
  StorageAccess(StorageOptions options)  // NOLINT(google-explicit-constructor)
      : storage_options(std::move(options)) {}
  /// \brief Initial options refreshed by `provider` (null: static options).
  StorageAccess(StorageOptions options, std::shared_ptr<StorageOptionsProvider> provider)
      : storage_options(std::move(options)), provider(std::move(provider)) {}
  /// \brief Options and the credentials source to sign with (null: from the options).
  StorageAccess(StorageOptions options, std::shared_ptr<CredentialsSource> credentials)
      : storage_options(std::move(options)), credentials(std::move(credentials)) {}

  /// \brief Lance's storage options (region, endpoint, ... and static credentials).
  StorageOptions storage_options;
  /// \brief Refreshes the credentials (vended credentials); null: none.
  std::shared_ptr<StorageOptionsProvider> provider;
  /// \brief What the store asks for credentials on every request; null: the options'
  /// credentials, or (before ResolveStorageAccess) the provider's source to be built.
  std::shared_ptr<CredentialsSource> credentials;

  /// \brief True unless a provider still waits to become a credentials source.
  bool resolved() const { return provider == nullptr || credentials != nullptr; }
};

/// \brief True for the keys a credentials source takes over from a storage-options map:
/// the credential keys of kCredentialOptionKeys (storage_options.h: aws_access_key_id,
/// access_key_id, aws_secret_access_key, secret_access_key, aws_session_token,
/// aws_token, aws_security_token, session_token, token; case-insensitive) and the
/// lifetime keys expires_at_millis and refresh_offset_millis.
bool IsRefreshableOptionKey(std::string_view key);

/// \brief `options` without the keys of IsRefreshableOptionKey.
StorageOptions WithoutRefreshableOptions(const StorageOptions& options);

/// \brief Session::Default()->MakeCredentialsSource (session.h): null without a
/// provider, else the default session's one live RefreshingCredentialsSource of the
/// provider id, reseeded with `initial_options` when those are fresher, or a new one
/// seeded with them (no fetch). \return the source (or null); Invalid for malformed
/// initial options (see RefreshingCredentialsSource::Make).
Result<std::shared_ptr<CredentialsSource>> MakeCredentialsSource(
    const StorageOptions& initial_options,
    std::shared_ptr<StorageOptionsProvider> provider,
    std::shared_ptr<Clock> clock = nullptr,
    RefreshingCredentialsOptions options = RefreshingCredentialsOptions::Defaults());

/// \brief The access a store is built with -- the one place "a provider" is turned into
/// a credentials source, so that it means the same at every entry point (the default
/// session's, Session::ResolveStorageAccess):
/// - a credentials source already set, or no provider: `access` as it is (static
///   options keep their credentials);
/// - a provider and no source: {storage_options minus the refreshable keys, the
///   provider, MakeCredentialsSource(storage_options, provider)}. The credentials and
///   their lifetime live in the source only, so the store cache key is (scheme, bucket,
///   non-secret options, "provider:" + provider_id) and stays the same across refreshes:
///   every handle on one provider (a dataset opened twice, a file reader next to a
///   writer) gets the same live store and therefore one refresh per expiry, not one per
///   handle.
/// Local and in-memory stores ignore the source, so a provider attached to a local or
/// memory location is never called. Nothing is fetched here.
/// \return the resolved access; errors of MakeCredentialsSource.
Result<StorageAccess> ResolveStorageAccess(
    StorageAccess access, std::shared_ptr<Clock> clock = nullptr,
    RefreshingCredentialsOptions options = RefreshingCredentialsOptions::Defaults());

}  // namespace lance::io

// SPDX-License-Identifier: Apache-2.0
/// \file session.h
/// \brief io::Session: the one owner of the io layer's shared state -- the live
/// credentials source of each provider id, the refresh statistics per provider id and
/// the cache of object stores.
///
/// The process has one default session (Session::Default()), which the default
/// ObjectStoreRegistry holds and every free function of storage_access.h and
/// refreshing_credentials.h (MakeCredentialsSource, ResolveStorageAccess,
/// CredentialRefreshStats) uses. A separate Session shares none of that state: its
/// sources, statistics and stores are its own (a custom ObjectStoreRegistry gets one).

#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/clock.h"
#include "lance/io/credentials.h"
#include "lance/io/object_store.h"
#include "lance/io/refreshing_credentials.h"
#include "lance/io/storage_access.h"
#include "lance/io/storage_options.h"
#include "lance/io/storage_options_provider.h"
#include "lance/result.h"

namespace lance::io {

namespace internal {
class RefreshStatsRegistry;  // src/io/refresh_stats_registry.h
}  // namespace internal

/// \brief Credentials sources, refresh statistics and cached stores of one io context.
///
/// Thread-safe. Sources and stores are held weakly: they live as long as their users,
/// and may outlive the session.
class Session {
 public:
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// \brief The process-wide session: held by ObjectStoreRegistry::Default() and used
  /// by the free functions of storage_access.h and refreshing_credentials.h. Built on
  /// first use and never destroyed (sources may die during static destruction).
  static const std::shared_ptr<Session>& Default();

  // -- Credentials ----------------------------------------------------------------------

  /// \brief The credentials source for `initial_options` and `provider` in this session:
  /// null for a null provider (static options); else the live source of the provider id,
  /// reseeded with `initial_options` when those are fresher
  /// (RefreshingCredentialsSource::Reseed) -- `clock` and `options` of later calls are
  /// then ignored -- or a new RefreshingCredentialsSource seeded with them (no fetch).
  /// At most one source per provider id is alive in a session, so every handle on a
  /// table shares one cache.
  /// \return the source (or null); Invalid for malformed initial options.
  Result<std::shared_ptr<CredentialsSource>> MakeCredentialsSource(
      const StorageOptions& initial_options,
      std::shared_ptr<StorageOptionsProvider> provider,
      std::shared_ptr<Clock> clock = nullptr,
      RefreshingCredentialsOptions options = RefreshingCredentialsOptions::Defaults());

  /// \brief The access a store is built with, as io::ResolveStorageAccess describes
  /// (storage_access.h), with this session's sources.
  Result<StorageAccess> ResolveStorageAccess(
      StorageAccess access, std::shared_ptr<Clock> clock = nullptr,
      RefreshingCredentialsOptions options = RefreshingCredentialsOptions::Defaults());

  /// \brief Refresh counters of every provider id that had a RefreshingCredentialsSource
  /// in this session (entries are never dropped; sources that died keep counting),
  /// sorted by provider id. See io::CredentialRefreshStats. No secret.
  std::vector<ProviderRefreshStats> CredentialRefreshStats() const;

  // -- Store cache
  // ------------------------------------------------------------------------

  /// \brief Builds a store; called with the cache's lock held.
  using StoreMaker = std::function<Result<std::shared_ptr<ObjectStore>>()>;

  /// \brief The live store cached under `key` if it was built with the secrets of
  /// `secrets_fingerprint`; otherwise make()'s store, which then replaces the entry (so
  /// rotated credentials leave no dead entries). The lock is held while `make` runs, so
  /// concurrent lookups of one key build one store; `make` must not call back into this
  /// session's cache. A null store from `make` is not cached.
  /// \return the store; make()'s error.
  Result<std::shared_ptr<ObjectStore>> GetOrMakeStore(const std::string& key,
                                                      size_t secrets_fingerprint,
                                                      const StoreMaker& make);

  /// \brief Forgets the cached stores whose key starts with `key_prefix` (stores in use
  /// keep working); an empty prefix forgets them all.
  void ForgetStores(std::string_view key_prefix = {});

  /// \brief Number of live cached stores.
  size_t num_cached_stores() const;

 private:
  friend class RefreshingCredentialsSource;  // registers its sources' counters here

  struct CachedStore {
    std::weak_ptr<ObjectStore> store;
    size_t secrets_fingerprint = 0;
  };

  // Counters of every refreshing source built for this session (shared with the
  // sources, which retire their counters into it when they die).
  std::shared_ptr<internal::RefreshStatsRegistry> refresh_stats_;

  std::mutex sources_mu_;
  // The live source of each provider id (MakeCredentialsSource).
  std::map<std::string, std::weak_ptr<RefreshingCredentialsSource>> sources_;

  mutable std::mutex stores_mu_;
  std::map<std::string, CachedStore> stores_;
};

}  // namespace lance::io

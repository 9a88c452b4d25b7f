// SPDX-License-Identifier: Apache-2.0
/// \file object_store_registry.h
/// \brief ObjectStoreRegistry: from a location URI and storage options to a shared
/// ObjectStore plus the path inside it.

#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "lance/io/credentials.h"
#include "lance/io/object_store.h"
#include "lance/io/session.h"
#include "lance/io/storage_access.h"
#include "lance/io/storage_options.h"
#include "lance/io/uri.h"
#include "lance/result.h"

namespace lance::io {

/// \brief Builds a store for the root of a location (`root.path` is empty).
/// `credentials` is the caller's credentials source, or null to take credentials from
/// the options (stores that need none ignore it).
/// Called with the registry's lock held: it must not call back into the registry.
using ObjectStoreFactory = std::function<Result<std::shared_ptr<ObjectStore>>(
    const Uri& root, const StorageOptions& options,
    const std::shared_ptr<CredentialsSource>& credentials)>;

/// \brief A resolved location: the store holding it and the key inside that store.
struct ResolvedLocation {
  std::shared_ptr<ObjectStore> store;
  /// \brief Relative to the store root; empty when the location is the root itself.
  std::string path;
  /// \brief The access the store was resolved with, resolved (ResolveStorageAccess):
  /// keep it to resolve other locations of the same table the same way.
  StorageAccess access;
};

/// \brief Maps URI schemes to store factories and shares the stores it builds.
///
/// Split of a location into (store, path): a store is rooted at the location's
/// authority -- the file system root "/" for local files, the bucket for S3, the
/// instance name for memory -- and the path is everything below it. So
/// "file:///data/ds.lance" resolves to the store for "file:///" and "data/ds.lance",
/// "s3://bucket/a/ds.lance" to the store for "s3://bucket" and "a/ds.lance". All local
/// datasets therefore share one store, and all datasets of a bucket share one store per
/// set of options, which is what credential sharing needs.
///
/// Sharing: stores are cached by CacheKey(root, options, source id) = (scheme,
/// authority, non-secret options, credentials-source id). Secret-looking options
/// (IsSecretOptionKey) never enter the key; instead each entry remembers a fingerprint of
/// the secrets it was built with, and a lookup with different secrets builds a fresh
/// store that replaces the entry (so two credential sets never share a store, and rotated
/// credentials leave no dead entries). The cache holds stores weakly: a store lives as
/// long as someone uses it. Named memory stores outlive that (see
/// MemoryObjectStore::Named).
///
/// The credentials sources and the store cache belong to the registry's Session: the
/// default registry holds Session::Default(), a registry built without a session gets
/// a new one (its own cache and sources).
///
/// Thread-safe: one mutex guards the factories and is held while a factory runs (under
/// the session's cache lock, see Session::GetOrMakeStore), so that concurrent
/// resolutions of one location build one store.
class ObjectStoreRegistry {
 public:
  /// \brief A registry with no factories and a new Session.
  ObjectStoreRegistry();
  /// \brief A registry with no factories over `session` (null: a new one).
  explicit ObjectStoreRegistry(std::shared_ptr<Session> session);
  ObjectStoreRegistry(const ObjectStoreRegistry&) = delete;
  ObjectStoreRegistry& operator=(const ObjectStoreRegistry&) = delete;

  /// \brief The process-wide registry, with the built-in stores registered on first use,
  /// over Session::Default(). Never destroyed.
  static ObjectStoreRegistry& Default();

  /// \brief Registers `factory` for `scheme` (case-insensitive).
  /// \return OK; AlreadyExists if the scheme has a factory and `replace` is false;
  /// Invalid for a malformed scheme or an empty factory.
  Status Register(std::string_view scheme, ObjectStoreFactory factory,
                  bool replace = false);

  /// \brief True if a factory is registered for `scheme`.
  bool IsRegistered(std::string_view scheme) const;

  /// \brief The store holding `uri` and the path of `uri` inside it, built with
  /// ResolveStorageAccess(access): its options and its credentials source (a refreshing
  /// one for a provider, asked on every request); without a source, credentials come
  /// from the options. Local and memory stores never call a source.
  /// \return the location; Invalid for a malformed URI or malformed initial options of a
  /// provider; NotImplemented for a scheme without a factory; the factory's error.
  Result<ResolvedLocation> Resolve(std::string_view uri,
                                   const StorageAccess& access = {});

  /// \brief Forgets every cached store of the session (stores in use keep working).
  void ClearCache();

  /// \brief Number of live cached stores of the session (for tests).
  size_t num_cached_stores() const;

  /// \brief The session holding the registry's credentials sources and stores.
  const std::shared_ptr<Session>& session() const { return session_; }

  /// \brief The cache key of a store root: scheme, authority, the non-secret options
  /// in a canonical order, and the credentials source's id (empty without a source).
  /// The single place that decides store identity.
  static std::string CacheKey(const Uri& root, const StorageOptions& options,
                              std::string_view credentials_id = {});

  /// \brief True for option keys whose values must never be logged verbatim or used as
  /// cache keys: io::IsSensitiveOptionKey (storage_options.h, the one rule), i.e. secrets
  /// and key ids. A non-secret option classified as secret still separates stores
  /// through the secrets fingerprint.
  static bool IsSecretOptionKey(std::string_view key);

 private:
  std::shared_ptr<Session> session_;
  mutable std::mutex mu_;
  std::map<std::string, ObjectStoreFactory> factories_;
};

/// \brief Registers "file" (LocalObjectStore), "memory" (MemoryObjectStore::Named) and
/// "s3"/"s3a" (S3ObjectStore), "gs" (GcsObjectStore). Call explicitly on custom
/// registries (no static initializers).
/// \return OK; AlreadyExists if one of those schemes is already registered.
Status RegisterBuiltinObjectStores(ObjectStoreRegistry* registry);

/// \brief ObjectStoreRegistry::Default().Resolve(uri, access).
Result<ResolvedLocation> ResolveObjectStore(std::string_view uri,
                                            const StorageAccess& access = {});

}  // namespace lance::io

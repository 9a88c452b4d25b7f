// SPDX-License-Identifier: Apache-2.0

#include "lance/io/object_store_registry.h"

#include <cctype>
#include <functional>
#include <string>
#include <utility>

#include "io/io_util.h"
#include "lance/core/ascii.h"
#include "lance/io/azure_object_store.h"
#include "lance/io/gcs_object_store.h"
#include "lance/io/local_object_store.h"
#include "lance/io/memory_object_store.h"
#include "lance/io/s3_object_store.h"
#include "lance/io/session.h"
#include "lance/io/storage_options.h"
#include "lance/macros.h"

namespace lance::io {

using internal::IsValidScheme;

namespace {

// Length-prefixed so that no choice of keys and values can make two different option
// sets serialise alike.
void AppendField(std::string* out, std::string_view field) {
  out->append(std::to_string(field.size()));
  out->push_back(':');
  out->append(field);
}

// The start of the cache key of every store of `scheme` (CacheKey starts with it).
std::string SchemeKeyPrefix(std::string_view scheme) {
  std::string prefix;
  AppendField(&prefix, scheme);
  return prefix;
}

// Identifies the secrets a store was built with without keeping them, so that the cache
// can tell credential sets apart while its keys stay free of them.
size_t SecretsFingerprint(const StorageOptions& options) {
  std::string secrets;
  for (const auto& [key, value] : options) {
    if (!ObjectStoreRegistry::IsSecretOptionKey(key)) continue;
    AppendField(&secrets, key);
    AppendField(&secrets, value);
  }
  return std::hash<std::string>{}(secrets);
}

}  // namespace

ObjectStoreRegistry::ObjectStoreRegistry()
    : ObjectStoreRegistry(std::make_shared<Session>()) {}

ObjectStoreRegistry::ObjectStoreRegistry(std::shared_ptr<Session> session)
    : session_(session ? std::move(session) : std::make_shared<Session>()) {}

ObjectStoreRegistry& ObjectStoreRegistry::Default() {
  // Built on first use rather than by a static initializer (which static linking can
  // drop or order badly), and leaked so it outlives every static user.
  static ObjectStoreRegistry* registry = [] {
    auto* r = new ObjectStoreRegistry(Session::Default());
    (void)RegisterBuiltinObjectStores(r);
    return r;
  }();
  return *registry;
}

bool ObjectStoreRegistry::IsSecretOptionKey(std::string_view key) {
  // Key ids stay out of cache keys too: the registry asks "sensitive", not "secret".
  return IsSensitiveOptionKey(key);
}

std::string ObjectStoreRegistry::CacheKey(const Uri& root, const StorageOptions& options,
                                          std::string_view credentials_id) {
  std::string key = SchemeKeyPrefix(root.scheme);
  AppendField(&key, root.authority);
  AppendField(&key, credentials_id);
  for (const auto& [name, value] : options) {
    if (IsSecretOptionKey(name)) continue;
    AppendField(&key, name);
    AppendField(&key, value);
  }
  return key;
}

Status ObjectStoreRegistry::Register(std::string_view scheme, ObjectStoreFactory factory,
                                     bool replace) {
  if (!IsValidScheme(scheme)) {
    return Status::Invalid("cannot register an object store for the malformed scheme '" +
                           std::string(scheme) + "'");
  }
  if (!factory) {
    return Status::Invalid("cannot register an empty object store factory for '" +
                           std::string(scheme) + "'");
  }
  const std::string lower = AsciiToLower(scheme);
  std::lock_guard lock(mu_);
  auto [it, inserted] = factories_.try_emplace(lower, factory);
  if (!inserted) {
    if (!replace) {
      return Status::AlreadyExists("an object store factory is already registered for '" +
                                   lower + "'");
    }
    it->second = std::move(factory);
    // Stores built by the old factory must not be handed out any more (CacheKey starts
    // with the scheme).
    session_->ForgetStores(SchemeKeyPrefix(lower));
  }
  return Status::OK();
}

bool ObjectStoreRegistry::IsRegistered(std::string_view scheme) const {
  std::lock_guard lock(mu_);
  return factories_.count(AsciiToLower(scheme)) > 0;
}

Result<ResolvedLocation> ObjectStoreRegistry::Resolve(std::string_view uri,
                                                      const StorageAccess& unresolved) {
  LANCE_ASSIGN_OR_RAISE(Uri parsed, ParseUri(uri));
  // Before the lock: building a provider's source takes the session's own lock.
  LANCE_ASSIGN_OR_RAISE(StorageAccess access, session_->ResolveStorageAccess(unresolved));
  const StorageOptions& options = access.storage_options;
  const std::shared_ptr<CredentialsSource>& credentials = access.credentials;
  const Uri root = parsed.Root();
  const std::string key =
      CacheKey(root, options, credentials ? credentials->id() : std::string());

  // Held while the store is built: a factory replaced meanwhile must not build it.
  std::lock_guard lock(mu_);
  auto factory = factories_.find(root.scheme);
  if (factory == factories_.end()) {
    return Status::NotImplemented("no object store is registered for the scheme '" +
                                  root.scheme + "' (location '" + parsed.ToString() +
                                  "')");
  }
  LANCE_ASSIGN_OR_RAISE(
      std::shared_ptr<ObjectStore> store,
      session_->GetOrMakeStore(
          key, SecretsFingerprint(options),
          [&]() -> Result<std::shared_ptr<ObjectStore>> {
            Result<std::shared_ptr<ObjectStore>> made =
                factory->second(root, options, credentials);
            if (!made.ok()) {
              return made.status().WithContext("opening the object store for '" +
                                               root.ToString() + "'");
            }
            if (*made == nullptr) {
              return Status::Unknown("the object store factory for '" + root.scheme +
                                     "' returned no store");
            }
            return made;
          }));
  return ResolvedLocation{std::move(store), std::move(parsed.path), std::move(access)};
}

void ObjectStoreRegistry::ClearCache() { session_->ForgetStores(); }

size_t ObjectStoreRegistry::num_cached_stores() const {
  return session_->num_cached_stores();
}

Status RegisterBuiltinObjectStores(ObjectStoreRegistry* registry) {
  LANCE_RETURN_NOT_OK(registry->Register(
      "file",
      [](const Uri&, const StorageOptions&, const std::shared_ptr<CredentialsSource>&)
          -> Result<std::shared_ptr<ObjectStore>> {
        // Rooted at "/": the resolved path is the absolute path minus its leading '/'.
        LANCE_ASSIGN_OR_RAISE(auto store, LocalObjectStore::Make("/"));
        return std::shared_ptr<ObjectStore>(std::move(store));
      }));
  LANCE_RETURN_NOT_OK(registry->Register("memory",
                                         [](const Uri& root, const StorageOptions&,
                                            const std::shared_ptr<CredentialsSource>&)
                                             -> Result<std::shared_ptr<ObjectStore>> {
                                           return std::shared_ptr<ObjectStore>(
                                               MemoryObjectStore::Named(root.authority));
                                         }));
  if (registry->IsRegistered("s3") || registry->IsRegistered("s3a")) {
    return Status::AlreadyExists(
        "an object store factory is already registered for 's3'");
  }
  LANCE_RETURN_NOT_OK(RegisterS3ObjectStore(registry));
  LANCE_RETURN_NOT_OK(RegisterAzureObjectStore(registry));
  if (registry->IsRegistered("gs")) {
    return Status::AlreadyExists(
        "an object store factory is already registered for 'gs'");
  }
  LANCE_RETURN_NOT_OK(RegisterGcsObjectStore(registry));
  return Status::OK();
}

Result<ResolvedLocation> ResolveObjectStore(std::string_view uri,
                                            const StorageAccess& access) {
  return ObjectStoreRegistry::Default().Resolve(uri, access);
}

}  // namespace lance::io

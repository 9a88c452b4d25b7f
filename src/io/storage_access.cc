// SPDX-License-Identifier: Apache-2.0

#include "lance/io/storage_access.h"

#include <cctype>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "lance/macros.h"

namespace lance::io {

bool IsRefreshableOptionKey(std::string_view key) {
  // Exactly the credential keys ParseS3Options reads (one list: kCredentialOptionKeys):
  // a key left behind would put a stale secret into the store's options (and the
  // registry's secrets fingerprint would then split stores that should be shared).
  return CredentialPartOf(key).has_value();
}

StorageOptions WithoutRefreshableOptions(const StorageOptions& options) {
  StorageOptions out;
  for (const auto& [key, value] : options) {
    if (!IsRefreshableOptionKey(key)) out.emplace(key, value);
  }
  return out;
}

Result<std::shared_ptr<CredentialsSource>> MakeCredentialsSource(
    const StorageOptions& initial_options,
    std::shared_ptr<StorageOptionsProvider> provider, std::shared_ptr<Clock> clock,
    RefreshingCredentialsOptions options) {
  if (provider == nullptr) return std::shared_ptr<CredentialsSource>();
  // One live source per provider id: a second handle on a table (another open through the
  // namespace while the first is alive) joins the first one's source and store, and its
  // fresher describe_table answer reseeds it -- otherwise the registry would hand it the
  // first handle's store, whose source would later fetch again what this answer carried.
  static std::mutex mu;
  static std::map<std::string, std::weak_ptr<RefreshingCredentialsSource>> live;
  const std::string id = provider->provider_id();
  std::lock_guard<std::mutex> lock(mu);
  for (auto it = live.begin(); it != live.end();) {
    it = it->second.expired() ? live.erase(it) : std::next(it);
  }
  if (auto it = live.find(id); it != live.end()) {
    if (auto existing = it->second.lock()) {
      LANCE_RETURN_NOT_OK(existing->Reseed(initial_options));
      return std::shared_ptr<CredentialsSource>(std::move(existing));
    }
  }
  LANCE_ASSIGN_OR_RAISE(auto source, RefreshingCredentialsSource::Make(
                                         initial_options, std::move(provider),
                                         std::move(clock), std::move(options)));
  live[id] = source;
  return std::shared_ptr<CredentialsSource>(std::move(source));
}

Result<StorageAccess> ResolveStorageAccess(StorageAccess access,
                                           std::shared_ptr<Clock> clock,
                                           RefreshingCredentialsOptions options) {
  if (access.resolved()) return access;
  LANCE_ASSIGN_OR_RAISE(access.credentials,
                        MakeCredentialsSource(access.storage_options, access.provider,
                                              std::move(clock), std::move(options)));
  access.storage_options = WithoutRefreshableOptions(access.storage_options);
  return access;
}

}  // namespace lance::io

// SPDX-License-Identifier: Apache-2.0

#include "lance/io/session.h"

#include <iterator>
#include <utility>

#include "io/refresh_stats_registry.h"
#include "lance/macros.h"

namespace lance::io {

Session::Session() : refresh_stats_(std::make_shared<internal::RefreshStatsRegistry>()) {}

Session::~Session() = default;

const std::shared_ptr<Session>& Session::Default() {
  // Built on first use rather than by a static initializer, and leaked so that it
  // outlives every static user (sources may die during static destruction).
  static const auto* session = new std::shared_ptr<Session>(std::make_shared<Session>());
  return *session;
}

Result<std::shared_ptr<CredentialsSource>> Session::MakeCredentialsSource(
    const StorageOptions& initial_options,
    std::shared_ptr<StorageOptionsProvider> provider, std::shared_ptr<Clock> clock,
    RefreshingCredentialsOptions options) {
  if (provider == nullptr) return std::shared_ptr<CredentialsSource>();
  // One live source per provider id: a second handle on a table (another open through the
  // namespace while the first is alive) joins the first one's source and store, and its
  // fresher describe_table answer reseeds it -- otherwise the registry would hand it the
  // first handle's store, whose source would later fetch again what this answer carried.
  const std::string id = provider->provider_id();
  std::lock_guard<std::mutex> lock(sources_mu_);
  std::erase_if(sources_, [](const auto& entry) { return entry.second.expired(); });
  if (auto it = sources_.find(id); it != sources_.end()) {
    if (auto existing = it->second.lock()) {
      LANCE_RETURN_NOT_OK(existing->Reseed(initial_options));
      return std::shared_ptr<CredentialsSource>(std::move(existing));
    }
  }
  LANCE_ASSIGN_OR_RAISE(auto source, RefreshingCredentialsSource::MakeInSession(
                                         *this, initial_options, std::move(provider),
                                         std::move(clock), std::move(options)));
  sources_[id] = source;
  return std::shared_ptr<CredentialsSource>(std::move(source));
}

Result<StorageAccess> Session::ResolveStorageAccess(
    StorageAccess access, std::shared_ptr<Clock> clock,
    RefreshingCredentialsOptions options) {
  if (access.resolved()) return access;
  LANCE_ASSIGN_OR_RAISE(access.credentials,
                        MakeCredentialsSource(access.storage_options, access.provider,
                                              std::move(clock), std::move(options)));
  access.storage_options = WithoutRefreshableOptions(access.storage_options);
  return access;
}

std::vector<ProviderRefreshStats> Session::CredentialRefreshStats() const {
  return refresh_stats_->Collect();
}

Result<std::shared_ptr<ObjectStore>> Session::GetOrMakeStore(const std::string& key,
                                                             size_t secrets_fingerprint,
                                                             const StoreMaker& make) {
  std::lock_guard<std::mutex> lock(stores_mu_);
  std::erase_if(stores_, [](const auto& entry) { return entry.second.store.expired(); });
  if (auto it = stores_.find(key); it != stores_.end()) {
    std::shared_ptr<ObjectStore> store = it->second.store.lock();
    if (store && it->second.secrets_fingerprint == secrets_fingerprint) return store;
  }
  LANCE_ASSIGN_OR_RAISE(std::shared_ptr<ObjectStore> store, make());
  if (store != nullptr) stores_[key] = CachedStore{store, secrets_fingerprint};
  return store;
}

void Session::ForgetStores(std::string_view key_prefix) {
  std::lock_guard<std::mutex> lock(stores_mu_);
  std::erase_if(stores_,
                [&](const auto& entry) { return entry.first.starts_with(key_prefix); });
}

size_t Session::num_cached_stores() const {
  std::lock_guard<std::mutex> lock(stores_mu_);
  size_t live = 0;
  for (const auto& [key, entry] : stores_) live += entry.store.expired() ? 0 : 1;
  return live;
}

}  // namespace lance::io

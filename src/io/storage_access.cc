// SPDX-License-Identifier: Apache-2.0

#include "lance/io/storage_access.h"

#include <utility>

#include "lance/io/session.h"

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
  return Session::Default()->MakeCredentialsSource(initial_options, std::move(provider),
                                                   std::move(clock), std::move(options));
}

Result<StorageAccess> ResolveStorageAccess(StorageAccess access,
                                           std::shared_ptr<Clock> clock,
                                           RefreshingCredentialsOptions options) {
  return Session::Default()->ResolveStorageAccess(std::move(access), std::move(clock),
                                                  std::move(options));
}

}  // namespace lance::io

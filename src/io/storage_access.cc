// SPDX-License-Identifier: Apache-2.0

#include "lance/io/storage_access.h"

#include <cctype>
#include <string>
#include <utility>

#include "lance/macros.h"

namespace lance::io {

bool IsRefreshableOptionKey(std::string_view key) {
  // The credential aliases must stay those ParseS3Options and
  // CredentialsFromStorageOptions read: a key left behind would put a stale secret into
  // the store's options (and the registry's secrets fingerprint would then split stores
  // that should be shared).
  static constexpr std::string_view kKeys[] = {
      "aws_access_key_id", "access_key_id",      "aws_secret_access_key",
      "secret_access_key", "aws_session_token",  "aws_token",
      "aws_security_token", "session_token",     "token",
      kExpiresAtMillisKey,  kRefreshOffsetMillisKey,
  };
  std::string lower(key);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view k : kKeys) {
    if (lower == k) return true;
  }
  return false;
}

StorageOptions WithoutRefreshableOptions(const StorageOptions& options) {
  StorageOptions out;
  for (const auto& [key, value] : options) {
    if (!IsRefreshableOptionKey(key)) out.emplace(key, value);
  }
  return out;
}

Result<std::shared_ptr<CredentialsSource>> MakeCredentialsSource(
    const StorageOptions& initial_options, std::shared_ptr<StorageOptionsProvider> provider,
    std::shared_ptr<Clock> clock, RefreshingCredentialsOptions options) {
  if (provider == nullptr) return std::shared_ptr<CredentialsSource>();
  LANCE_ASSIGN_OR_RAISE(auto source,
                        RefreshingCredentialsSource::Make(initial_options, std::move(provider),
                                                          std::move(clock), std::move(options)));
  return std::shared_ptr<CredentialsSource>(std::move(source));
}

Result<StorageAccess> MakeStorageAccess(const StorageOptions& initial_options,
                                        std::shared_ptr<StorageOptionsProvider> provider,
                                        std::shared_ptr<Clock> clock,
                                        RefreshingCredentialsOptions options) {
  if (provider == nullptr) return StorageAccess{initial_options, nullptr};
  LANCE_ASSIGN_OR_RAISE(auto source,
                        MakeCredentialsSource(initial_options, std::move(provider),
                                              std::move(clock), std::move(options)));
  return StorageAccess{WithoutRefreshableOptions(initial_options), std::move(source)};
}

}  // namespace lance::io

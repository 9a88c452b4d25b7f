// SPDX-License-Identifier: Apache-2.0
// Authenticate (auth.h).

#include "server/auth.h"

#include <string_view>

#include "lance/core/ascii.h"
#include "lance/namespace/namespace.h"

namespace lance::server::internal {

namespace {

using ns::ErrorCode;
using ns::NamespaceError;

// The key of "Bearer <key>" (the scheme is case-insensitive), or nothing.
std::optional<std::string_view> BearerToken(std::string_view value) {
  constexpr std::string_view kBearer = "Bearer ";
  if (value.size() <= kBearer.size() ||
      !EqualsIgnoreAsciiCase(value.substr(0, kBearer.size()), kBearer)) {
    return std::nullopt;
  }
  return value.substr(kBearer.size());
}

}  // namespace

Result<Principal> Authenticate(const ApiKeyStore& keys,
                               const std::optional<std::string>& api_key,
                               const std::optional<std::string>& authorization) {
  if (!keys.enabled()) return Principal{};
  if (api_key) {
    if (auto principal = keys.Find(*api_key)) return *principal;
  }
  if (authorization) {
    if (auto token = BearerToken(*authorization)) {
      if (auto principal = keys.Find(*token)) return *principal;
    }
  }
  if (!api_key && !authorization) {
    return NamespaceError(ErrorCode::kUnauthenticated,
                          "authentication required: send x-api-key or "
                          "Authorization: Bearer");
  }
  return NamespaceError(ErrorCode::kPermissionDenied,
                        "the credentials presented are not accepted");
}

}  // namespace lance::server::internal

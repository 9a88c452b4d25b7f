// SPDX-License-Identifier: Apache-2.0
// The server's API keys: who may call, with what permission, inside which namespace.
// Keys are kept only as SHA-256 digests and a presented token is compared with every one
// of them in constant time, so neither the comparison's duration nor a memory dump of
// the running server gives a key away.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/server/rest_adapter.h"
#include "server/routes.h"

namespace lance::server::internal {

class ApiKeyStore {
 public:
  explicit ApiKeyStore(const std::vector<ApiKey>& keys);

  /// \brief True when any key is configured (requests must then present one).
  bool enabled() const { return !entries_.empty(); }

  /// \brief The principal of `token`, or nullopt when it matches no key. Takes the same
  /// time whichever key (if any) matches.
  std::optional<Principal> Find(std::string_view token) const;

 private:
  using Digest = std::array<unsigned char, 32>;
  struct Entry {
    Digest digest;
    Principal principal;
  };
  static Digest Hash(std::string_view token);
  std::vector<Entry> entries_;
};

}  // namespace lance::server::internal

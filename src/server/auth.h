// SPDX-License-Identifier: Apache-2.0
// Who is calling: the credentials a request presents (`x-api-key`, or `Authorization:
// Bearer <key>`) against the server's API keys (api_keys.h). Routing and permission
// checks are the request handler's; this only names the caller or refuses it.
#pragma once

#include <optional>
#include <string>

#include "lance/result.h"
#include "server/api_keys.h"
#include "server/routes.h"

namespace lance::server::internal {

/// \brief The caller of a request presenting `api_key` and/or `authorization`: the
/// anonymous admin Principal when no keys are configured; else the key's principal
/// (either header may carry it), Unauthenticated when neither header is present, and
/// PermissionDenied when what is presented matches no key. Messages never echo a key.
Result<Principal> Authenticate(const ApiKeyStore& keys,
                               const std::optional<std::string>& api_key,
                               const std::optional<std::string>& authorization);

}  // namespace lance::server::internal

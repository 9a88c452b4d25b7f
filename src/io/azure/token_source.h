// SPDX-License-Identifier: Apache-2.0
// OAuth tokens for Azure Storage from a service principal (private): the
// client-credentials grant of the Microsoft identity platform, POST
// "<authority_host>/<tenant>/oauth2/v2.0/token" with grant_type=client_credentials,
// client_id, client_secret and scope=https://storage.azure.com/.default. The answer's
// access_token (a bearer token) is cached until shortly before its expires_in runs out
// (the last fifth of its lifetime, at most 5 minutes), and fetched by one caller at a
// time while the others wait for that fetch.
#pragma once

#include <memory>

#include "lance/io/azure_options.h"
#include "lance/io/credentials.h"
#include "lance/result.h"

namespace lance::io::azure {

/// \brief The scope of every token (the Blob service's audience).
inline constexpr std::string_view kStorageScope = "https://storage.azure.com/.default";

/// \brief A CredentialsSource handing out bearer tokens for options.client_id /
/// client_secret / tenant_id from options.authority_host. OnRejected drops the rejected
/// token and fetches a new one (unless another caller already has).
/// \return the source; Invalid when the id, secret or tenant is missing, or for a
/// malformed authority host.
Result<std::shared_ptr<CredentialsSource>> MakeClientSecretTokenSource(
    const AzureOptions& options);

}  // namespace lance::io::azure

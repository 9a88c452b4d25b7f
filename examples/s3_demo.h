// SPDX-License-Identifier: Apache-2.0
// The RGW part of lance-demo (s3_demo.cc).
#pragma once

#include <cstdint>
#include <string>

#include "lance/core/record_batch.h"
#include "lance/result.h"
#include "lance/status.h"

namespace demo {

/// \brief The environment variable `name`, or "" when unset.
std::string Env(const char* name);

/// \brief OK when LANCE_S3_ENDPOINT, LANCE_S3_BUCKET, LANCE_S3_ACCESS_KEY and `extra`
/// (what the story needs besides the RGW's address and key) are set; Invalid naming them
/// otherwise. Both RGW stories start with it.
lance::Status RequireRgwEnv(const char* extra);

/// \brief Rows id = first.., name = "<prefix>-<id>" (id non-null int64, name utf8).
lance::Result<lance::RecordBatchPtr> NamedRows(const std::string& prefix, int64_t first,
                                               int64_t n);

/// \brief Vended, expiring RGW keys refreshed during reads and writes through a
/// namespace. Needs LANCE_S3_ENDPOINT, LANCE_S3_BUCKET, LANCE_S3_ACCESS_KEY,
/// LANCE_S3_SECRET_KEY and LANCE_RGW_CONF (scripts/rgw.sh start prints them). Prints no
/// secret.
lance::Status RunS3Demo();

/// \brief A served namespace (RestAdapter over a DirectoryNamespace on RGW with STS
/// credential vending) and a RestNamespace client: scoped credentials per table. Needs
/// LANCE_S3_* including LANCE_S3_STS_ROLE_ARN. Prints no secret.
lance::Status RunRestDemo();

/// \brief A served namespace on an az:// root vending Azure SAS tokens (azure_demo.cc),
/// on the Azurite whose LANCE_AZURE_* are set (scripts/azurite.sh start prints them).
/// Prints no secret.
lance::Status RunAzureDemo();

}  // namespace demo

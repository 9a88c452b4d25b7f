// SPDX-License-Identifier: Apache-2.0
// The RGW part of lance-demo (s3_demo.cc).
#pragma once

#include "lance/status.h"

namespace demo {

/// \brief Vended, expiring RGW keys refreshed during reads and writes through a
/// namespace. Needs LANCE_S3_ENDPOINT, LANCE_S3_BUCKET, LANCE_S3_ACCESS_KEY,
/// LANCE_S3_SECRET_KEY and LANCE_RGW_CONF (scripts/rgw.sh start prints them). Prints no
/// secret.
lance::Status RunS3Demo();

/// \brief A served namespace (RestAdapter over a DirectoryNamespace on RGW with STS
/// credential vending) and a RestNamespace client: scoped credentials per table. Needs
/// LANCE_S3_* including LANCE_S3_STS_ROLE_ARN. Prints no secret.
lance::Status RunRestDemo();

}  // namespace demo

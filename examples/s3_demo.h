// SPDX-License-Identifier: Apache-2.0
// The RGW part of lance-demo (s3_demo.cc).
#pragma once

#include "lance/status.h"

namespace demo {

/// \brief Vended, expiring RGW keys refreshed during reads and writes through a namespace.
/// Needs LANCE_S3_ENDPOINT, LANCE_S3_BUCKET, LANCE_S3_ACCESS_KEY, LANCE_S3_SECRET_KEY and
/// LANCE_RGW_CONF (scripts/rgw.sh start prints them). Prints no secret.
lance::Status RunS3Demo();

}  // namespace demo

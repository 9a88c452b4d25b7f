// SPDX-License-Identifier: Apache-2.0
// Random identifiers of the table format: transaction UUIDs, data file names, deletion
// file ids.
#pragma once

#include <cstdint>
#include <string>

namespace lance::table_internal {

/// \brief 64 random bits from a per-thread generator seeded from std::random_device.
uint64_t RandomU64();
/// \brief A random (version 4) UUID, hyphenated lower-case: "8-4-4-4-12".
std::string RandomUuid();
/// \brief A new data file name as current Lance writers make them: the first 3 bytes of
/// a random UUID as 24 binary digits, then the other 13 bytes as 26 hex digits, then
/// ".lance" (56 characters). The binary prefix spreads files over S3 key partitions.
std::string NewDataFileName();

}  // namespace lance::table_internal

// SPDX-License-Identifier: Apache-2.0
// The portable serialization of 32-bit Roaring bitmaps, as used by Lance's `.bin`
// deletion files (and by every Roaring implementation: CRoaring, roaring-rs, Java).
//
// Layout (all integers little-endian):
//   cookie u32      12346 = no run containers, followed by u32 container count n;
//                   or (n - 1) << 16 | 12347 = some run containers, followed by a bitset
//                   of ceil(n / 8) bytes marking which containers are runs
//   n x {u16 key, u16 cardinality - 1}        (keys strictly increasing)
//   n x u32 container offsets                 (omitted with runs when n < 4)
//   containers: array  = cardinality x u16 (sorted), when cardinality <= 4096
//               bitmap = 1024 x u64 (8 KiB), when cardinality > 4096
//               run    = u16 run count, then {u16 start, u16 length - 1} per run
// A value is (key << 16) | low 16 bits.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lance/result.h"

namespace lance::table_internal {

/// \brief Decodes a portable Roaring bitmap into its sorted values.
///
/// `limit` bounds the values (each must be < limit), which also bounds the memory a
/// hostile input can make us allocate; `what` names the input in error messages.
/// \return Corrupt (naming `what`) for a bad cookie, truncation, unsorted keys or
/// values, inconsistent cardinalities, or a value >= limit.
Result<std::vector<uint32_t>> DeserializeRoaring(std::string_view bytes, uint64_t limit,
                                                 std::string_view what);

/// \brief Encodes sorted, unique values. Without runs the output uses cookie 12346 and
/// array/bitmap containers only (what Lance writes); with runs, containers that are
/// smaller as runs are written as run containers (cookie 12347).
/// REQUIRES: `values` strictly increasing.
std::string SerializeRoaring(const std::vector<uint32_t>& values, bool use_runs = false);

}  // namespace lance::table_internal

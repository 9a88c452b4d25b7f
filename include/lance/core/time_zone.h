// SPDX-License-Identifier: Apache-2.0
/// \file time_zone.h
/// \brief The time zone of a timestamp column (Arrow's `timezone` string), resolved to a
/// fixed offset from UTC.
///
/// Policy (docs/cli.md, "Time zones"): a timestamp value is an instant. A zone tells how
/// to show it and how to read wall-clock text that carries no offset. Supported zones are
/// the ones with a fixed offset: the UTC spellings, "+HH:MM" / "+HHMM" / "+HH", and
/// "Etc/GMT+N" (POSIX sign: Etc/GMT+8 is UTC-08:00). Zones with daylight-saving rules
/// ("Europe/Paris") need a time-zone database; std::chrono::tzdb is not in libstdc++ 12,
/// so they are refused (ResolveZoneOffset) where an answer would depend on them.

#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "lance/result.h"

namespace lance {

/// \brief Seconds east of UTC of a zone with a fixed offset; 0 for "" (no zone) and for
/// the UTC spellings ("UTC", "Z", "Etc/UTC", "GMT", "Zulu", ... any case); nullopt for
/// a zone with rules or an unknown name.
std::optional<int32_t> FixedZoneOffset(std::string_view tz);

/// \brief True for the UTC spellings and zero offsets (not for "", a zone-less column).
bool IsUtcZone(std::string_view tz);

/// \brief FixedZoneOffset, or NotImplemented naming the zone and what is supported.
Result<int32_t> ResolveZoneOffset(std::string_view tz);

}  // namespace lance

// SPDX-License-Identifier: Apache-2.0
#include "lance/core/time_zone.h"

#include "lance/core/ascii.h"
#include "lance/core/temporal.h"

namespace lance {

namespace {

// "Etc/GMT+N" is N hours *west* of UTC (the POSIX sign), N in [0, 14]; "GMT+0" and
// "GMT-0" are also zone names, "GMT+5" is not.
std::optional<int32_t> ParseEtcGmt(std::string_view tz) {
  std::string_view rest;
  bool is_etc = false;
  if (tz.size() > 7 && EqualsIgnoreAsciiCase(tz.substr(0, 7), "Etc/GMT")) {
    rest = tz.substr(7);
    is_etc = true;
  } else if (tz.size() > 3 && EqualsIgnoreAsciiCase(tz.substr(0, 3), "GMT")) {
    rest = tz.substr(3);
  } else {
    return std::nullopt;
  }
  if (rest == "0") return 0;
  if (rest.size() < 2 || rest.size() > 3 || (rest[0] != '+' && rest[0] != '-')) {
    return std::nullopt;
  }
  int32_t hours = 0;
  for (char c : rest.substr(1)) {
    if (c < '0' || c > '9') return std::nullopt;
    hours = hours * 10 + (c - '0');
  }
  if (hours > 14 || (!is_etc && hours != 0)) return std::nullopt;
  return rest[0] == '+' ? -hours * 3600 : hours * 3600;
}

}  // namespace

bool IsUtcZone(std::string_view tz) {
  if (tz.empty()) return false;
  const auto offset = FixedZoneOffset(tz);
  return offset && *offset == 0;
}

std::optional<int32_t> FixedZoneOffset(std::string_view tz) {
  if (tz.empty()) return 0;
  static constexpr std::string_view kUtcNames[] = {
      "UTC",      "Z",       "Zulu",          "UCT",      "Universal",
      "GMT",      "GMT0",    "Greenwich",     "Etc/UTC",  "Etc/UCT",
      "Etc/Zulu", "Etc/GMT", "Etc/Universal", "Etc/GMT0", "Etc/Greenwich"};
  for (std::string_view name : kUtcNames) {
    if (EqualsIgnoreAsciiCase(tz, name)) return 0;
  }
  // Arrow's fixed offsets: +HH:MM, +HHMM, +HH ("Z" alone is a UTC name above).
  if (tz[0] == '+' || tz[0] == '-') return ParseUtcOffset(tz);
  return ParseEtcGmt(tz);
}

Result<int32_t> ResolveZoneOffset(std::string_view tz) {
  if (auto offset = FixedZoneOffset(tz)) return *offset;
  return Status::NotImplemented(
      "time zone '", tz,
      "' has rules (daylight saving) that need a time-zone database, which this build "
      "does not have; supported zones are UTC, fixed offsets such as +08:00, and "
      "Etc/GMT+N");
}

}  // namespace lance

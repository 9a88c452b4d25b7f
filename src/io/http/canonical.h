// SPDX-License-Identifier: Apache-2.0
// Small text and time helpers the request signers and answer parsers share (private).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lance::io::http {

/// \brief `value` without leading and trailing `blanks`, inner runs of them collapsed to
/// one space: a canonical header value (SigV4: spaces and tabs; Shared Key: also line
/// breaks).
std::string CollapseBlanks(std::string_view value, std::string_view blanks);

/// \brief Seconds since the epoch of a UTC calendar time (month 1-12, day 1-31).
int64_t UtcSeconds(int year, int month, int day, int hour, int minute, int second);

}  // namespace lance::io::http

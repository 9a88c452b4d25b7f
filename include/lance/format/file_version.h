// SPDX-License-Identifier: Apache-2.0
/// \file file_version.h
/// \brief Lance data file versions: which exist, how Lance spells them, which we write.

#pragma once

#include <cstdint>
#include <string_view>

#include "lance/result.h"

namespace lance::format {

/// \brief The Lance data file versions this library knows.
///
/// kLegacy is the v0.1/v0.2 format of Lance before 0.18 (read only). kV2_0 files say 0.3
/// in their footer. kV2_2 is what pylance 14 writes by default ("stable").
enum class LanceFileVersion : uint8_t { kLegacy, kV2_0, kV2_1, kV2_2 };

/// \brief The version new datasets get when nothing is asked: what the pinned pylance
/// (14.0.2) writes by default.
inline constexpr LanceFileVersion kDefaultFileVersion = LanceFileVersion::kV2_2;

/// \brief "0.1" (legacy), "2.0", "2.1" or "2.2": the spelling manifests record in
/// `data_format.version` and pylance reports as `data_storage_version`.
std::string_view FileVersionString(LanceFileVersion version);

/// \brief Parses a version as Lance spells it: "legacy" / "0.1" / "0.2", "2.0" / "0.3",
/// "2.1", "2.2", and "stable" (= 2.2, as in pylance 14).
/// \return Invalid naming the text for anything else; NotImplemented for "next" and
/// "2.3" (unstable in pylance 14, not supported here).
Result<LanceFileVersion> ParseFileVersion(std::string_view text);

/// \brief ParseFileVersion for a version to write: 2.0, 2.1, 2.2 (or "stable").
/// \return as ParseFileVersion; NotImplemented for legacy, which we read but never write.
Result<LanceFileVersion> ParseWritableFileVersion(std::string_view text);

}  // namespace lance::format

// SPDX-License-Identifier: Apache-2.0
// Lance data file versions and their spellings.

#include "lance/format/file_version.h"

#include <string>

#include "lance/core/enum_names.h"
#include "lance/macros.h"

namespace lance::format {

constexpr auto kFileVersionNames =
    MakeEnumNames<LanceFileVersion>("0.1", "2.0", "2.1", "2.2");
static_assert(kFileVersionNames.size() == EnumCount(LanceFileVersion::kV2_2));

std::string_view FileVersionString(LanceFileVersion version) {
  return kFileVersionNames.Name(version, "?");
}

Result<LanceFileVersion> ParseFileVersion(std::string_view text) {
  // Lance's own spellings: "0.3" is what v2.0 footers say; "stable" resolves to 2.2 in
  // pylance 14 (and to 2.0 in Lance releases before it -- we follow the pinned one).
  if (text == "legacy" || text == "0.1" || text == "0.2")
    return LanceFileVersion::kLegacy;
  if (text == "2.0" || text == "0.3") return LanceFileVersion::kV2_0;
  if (text == "2.1") return LanceFileVersion::kV2_1;
  if (text == "2.2" || text == "stable") return LanceFileVersion::kV2_2;
  if (text == "next" || text == "2.3") {
    return Status::NotImplemented("Lance file version '" + std::string(text) +
                                  "' (2.3, unstable in Lance) is not supported; use 2.0, "
                                  "2.1, 2.2 or stable");
  }
  return Status::Invalid("unknown Lance file version '" + std::string(text) +
                         "' (expected legacy, 2.0, 2.1, 2.2 or stable)");
}

Result<LanceFileVersion> ParseWritableFileVersion(std::string_view text) {
  LANCE_ASSIGN_OR_RAISE(LanceFileVersion version, ParseFileVersion(text));
  if (version == LanceFileVersion::kLegacy) {
    return Status::NotImplemented(
        "writing Lance file version '" + std::string(text) +
        "' (legacy 0.1) is not supported: lance-cpp reads legacy "
        "files but writes 2.0, 2.1 or 2.2");
  }
  return version;
}

}  // namespace lance::format

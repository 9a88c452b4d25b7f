// SPDX-License-Identifier: Apache-2.0
// Manifests on disk: where a dataset keeps them (`_versions/`), how their files are
// named (V1 `{v}.manifest`, V2 `{u64::MAX - v:020}.manifest`), how the latest one is
// found, and the file framing:
//
//   [u32 len + IndexSection]   optional; Manifest.index_section = its offset
//   [u32 len + Transaction]    optional; Manifest.transaction_section = its offset
//   [u32 len + Manifest]       must end exactly where the footer starts
//   [i64 manifest offset][u16 major = 0][u16 minor][ "LANC" ]
//
// See docs/commit-protocol.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/io/object_store.h"
#include "lance/result.h"
#include "table/proto/table.pb.h"
#include "table/proto/transaction.pb.h"

namespace lance::table_internal {

namespace pb = ::lance::table;

/// \brief Footer version written after the manifest ("0.2", as Lance 8 writes).
inline constexpr uint16_t kManifestFooterMajor = 0;
inline constexpr uint16_t kManifestFooterMinor = 2;
inline constexpr std::string_view kManifestMagic = "LANC";

/// \brief What Lance calls the manifest naming scheme.
enum class NamingScheme : uint8_t {
  kV1,  ///< "_versions/{v}.manifest"
  kV2,  ///< "_versions/{u64::MAX - v, zero-padded to 20 digits}.manifest"
};
std::string_view NamingSchemeName(NamingScheme scheme);

/// \brief The file name (no folder) of version `version` under `scheme`.
std::string ManifestFileName(uint64_t version, NamingScheme scheme);

/// \brief A committed manifest name parsed back.
struct ManifestName {
  uint64_t version = 0;
  NamingScheme scheme = NamingScheme::kV1;
};
/// \brief Parses a file name in `_versions/`; nullopt for anything that is not a
/// committed manifest (temp and staged files, detached "d..." manifests, the hint).
std::optional<ManifestName> ParseManifestFileName(std::string_view name);

/// \brief The root of one dataset inside an object store.
class DatasetDir {
 public:
  DatasetDir() = default;
  DatasetDir(std::shared_ptr<io::ObjectStore> store, std::string base);

  const std::shared_ptr<io::ObjectStore>& store() const { return store_; }
  /// \brief The dataset's key prefix in the store ("" when it is the store root).
  const std::string& base() const { return base_; }
  /// \brief The object key of `relative` ("_versions/1.manifest").
  std::string Key(std::string_view relative) const;
  /// \brief The full URI of `relative`, for messages.
  std::string Uri(std::string_view relative) const;
  /// \brief The dataset's URI, for messages.
  std::string Uri() const;

  std::string ManifestKey(uint64_t version, NamingScheme scheme) const {
    return Key("_versions/" + ManifestFileName(version, scheme));
  }

 private:
  std::shared_ptr<io::ObjectStore> store_;
  std::string base_;
};

/// \brief A committed manifest file.
struct ManifestLocation {
  uint64_t version = 0;
  NamingScheme scheme = NamingScheme::kV2;
  std::string key;    ///< object key
  int64_t size = -1;  ///< bytes; -1 when unknown
};

/// \brief Every committed manifest, by ascending version.
/// \return Corrupt if V1 and V2 names are mixed; IOError from the store.
Result<std::vector<ManifestLocation>> ListManifests(const DatasetDir& dir);

/// \brief The newest committed manifest (listing `_versions/`; the hint file is never
/// trusted); nullopt when the dataset has none.
Result<std::optional<ManifestLocation>> FindLatestManifest(const DatasetDir& dir);

/// \brief The manifest of `version`: tries `scheme` when given, else the V2 name then
/// the V1 name. \return NotFound naming the dataset and version.
Result<ManifestLocation> FindManifest(const DatasetDir& dir, uint64_t version,
                                      std::optional<NamingScheme> scheme = std::nullopt);

/// \brief A decoded manifest file.
struct LoadedManifest {
  ManifestLocation location;
  pb::Manifest manifest;
  /// \brief The serialized IndexSection message carried by the file (empty if none).
  /// Kept opaque: we never read indices, but carry them forward on appends so that
  /// Lance keeps using them.
  std::string index_section;
  /// \brief The serialized inline Transaction, if the file has one.
  std::optional<std::string> transaction_section;
};

/// \brief Decodes manifest file bytes; `name` identifies the file in messages.
/// \return Corrupt naming the file for bad magic, offsets, lengths or protobuf.
Result<LoadedManifest> ParseManifestFile(std::string_view bytes, std::string_view name);

/// \brief Reads and decodes a manifest file (and checks its version field).
/// \return NotFound; Corrupt naming the file; IOError.
Result<LoadedManifest> ReadManifest(const DatasetDir& dir,
                                    const ManifestLocation& location);

/// \brief The bytes of a manifest file holding `manifest`, preceded by the optional
/// index section and inline transaction (whose offsets are filled in).
std::string SerializeManifestFile(pb::Manifest manifest, std::string_view index_section,
                                  const pb::Transaction* transaction);

/// \brief "_versions/latest_version_hint.json".
inline constexpr std::string_view kVersionHintPath = "_versions/latest_version_hint.json";

}  // namespace lance::table_internal

// SPDX-License-Identifier: Apache-2.0
#include "table/manifest.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>

#include "lance/macros.h"

namespace lance::table_internal {
namespace {

constexpr std::string_view kManifestSuffix = ".manifest";
constexpr size_t kV2StemDigits = 20;
constexpr uint64_t kMaxU64 = std::numeric_limits<uint64_t>::max();
constexpr size_t kFooterSize = 16;

uint32_t LoadU32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
uint64_t LoadU64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
void PutU16(std::string* out, uint16_t v) {
  out->push_back(static_cast<char>(v & 0xFF));
  out->push_back(static_cast<char>(v >> 8));
}
void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// Appends a u32 length prefix and the bytes; returns the offset of the prefix.
uint64_t AppendSection(std::string* out, std::string_view bytes) {
  const uint64_t offset = out->size();
  PutU32(out, static_cast<uint32_t>(bytes.size()));
  out->append(bytes);
  return offset;
}

// Checks the u32-prefixed section at `offset` lies within [0, end); returns its body.
Result<std::string_view> SectionAt(std::string_view bytes, uint64_t offset, uint64_t end,
                                   std::string_view name, const char* what) {
  if (offset > end || end - offset < 4) {
    return Status::Corrupt("Manifest " + std::string(name) + ": the " + what +
                           " offset " + std::to_string(offset) + " is out of range");
  }
  const uint64_t len = LoadU32(bytes.data() + offset);
  if (len > end - offset - 4) {
    return Status::Corrupt("Manifest " + std::string(name) + ": the " + what +
                           " length " + std::to_string(len) + " overruns the file");
  }
  return bytes.substr(offset + 4, len);
}

}  // namespace

std::string_view NamingSchemeName(NamingScheme scheme) {
  return scheme == NamingScheme::kV1 ? "V1" : "V2";
}

std::string ManifestFileName(uint64_t version, NamingScheme scheme) {
  if (scheme == NamingScheme::kV1) return std::to_string(version) + ".manifest";
  std::string digits = std::to_string(kMaxU64 - version);
  return std::string(kV2StemDigits - digits.size(), '0') + digits + ".manifest";
}

std::optional<ManifestName> ParseManifestFileName(std::string_view name) {
  if (name.size() <= kManifestSuffix.size() || !name.ends_with(kManifestSuffix)) {
    return std::nullopt;
  }
  const std::string_view stem = name.substr(0, name.size() - kManifestSuffix.size());
  // Only plain digits: this rejects detached ("d...") and staged names, which Lance
  // never treats as committed versions.
  if (!std::all_of(stem.begin(), stem.end(),
                   [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  uint64_t n = 0;
  auto [ptr, ec] = std::from_chars(stem.data(), stem.data() + stem.size(), n);
  if (ec != std::errc() || ptr != stem.data() + stem.size()) return std::nullopt;
  ManifestName out;
  if (stem.size() == kV2StemDigits) {
    out.scheme = NamingScheme::kV2;
    out.version = kMaxU64 - n;
  } else {
    out.scheme = NamingScheme::kV1;
    out.version = n;
  }
  if (out.version == 0) return std::nullopt;  // versions start at 1
  return out;
}

DatasetDir::DatasetDir(std::shared_ptr<io::ObjectStore> store, std::string base)
    : store_(std::move(store)), base_(std::move(base)) {
  while (!base_.empty() && base_.back() == '/') base_.pop_back();
}

std::string DatasetDir::Key(std::string_view relative) const {
  if (base_.empty()) return std::string(relative);
  std::string key = base_;
  key.push_back('/');
  key.append(relative);
  return key;
}

// Messages name what the user gave: the store's display form of the key (the absolute
// path for a local dataset, not the root-relative key).
std::string DatasetDir::Uri(std::string_view relative) const {
  return store_->DisplayPath(Key(relative));
}

std::string DatasetDir::Uri() const {
  return base_.empty() ? store_->uri() : store_->DisplayPath(base_);
}

Result<std::vector<ManifestLocation>> ListManifests(const DatasetDir& dir) {
  LANCE_ASSIGN_OR_RAISE(io::ListResult listing,
                        dir.store()->ListAll(dir.Key("_versions/"), /*recursive=*/false));
  std::vector<ManifestLocation> out;
  bool saw_v1 = false;
  bool saw_v2 = false;
  for (const io::ObjectMeta& meta : listing.objects) {
    const size_t slash = meta.path.rfind('/');
    const std::string_view name = slash == std::string::npos
                                      ? std::string_view(meta.path)
                                      : std::string_view(meta.path).substr(slash + 1);
    auto parsed = ParseManifestFileName(name);
    if (!parsed) continue;
    (parsed->scheme == NamingScheme::kV1 ? saw_v1 : saw_v2) = true;
    out.push_back({parsed->version, parsed->scheme, meta.path, meta.size});
  }
  if (saw_v1 && saw_v2) {
    return Status::Corrupt("Dataset " + dir.Uri() +
                           " mixes V1 and V2 manifest names in _versions/; Lance refuses "
                           "such datasets (migrate all manifests to one scheme)");
  }
  std::sort(out.begin(), out.end(),
            [](const ManifestLocation& a, const ManifestLocation& b) {
              return a.version < b.version;
            });
  return out;
}

Result<std::optional<ManifestLocation>> FindLatestManifest(const DatasetDir& dir) {
  LANCE_ASSIGN_OR_RAISE(auto all, ListManifests(dir));
  if (all.empty()) return std::optional<ManifestLocation>();
  return std::optional<ManifestLocation>(all.back());
}

Result<ManifestLocation> FindManifest(const DatasetDir& dir, uint64_t version,
                                      std::optional<NamingScheme> scheme) {
  std::vector<NamingScheme> candidates;
  if (scheme) {
    candidates.push_back(*scheme);
  } else {
    candidates = {NamingScheme::kV2, NamingScheme::kV1};
  }
  for (NamingScheme s : candidates) {
    const std::string key = dir.ManifestKey(version, s);
    auto head = dir.store()->Head(key);
    if (head.ok()) return ManifestLocation{version, s, key, head->size};
    if (!head.status().IsNotFound()) return head.status();
  }
  return Status::NotFound("Version " + std::to_string(version) + " of dataset " +
                          dir.Uri() + " does not exist");
}

Result<LoadedManifest> ParseManifestFile(std::string_view bytes, std::string_view name) {
  const std::string file(name);
  if (bytes.size() < kFooterSize + 4) {
    return Status::Corrupt("Manifest " + file + " is too small (" +
                           std::to_string(bytes.size()) + " bytes) to be a manifest");
  }
  const uint64_t size = bytes.size();
  if (bytes.substr(size - 4) != kManifestMagic) {
    return Status::Corrupt("Manifest " + file + " does not end with the LANC magic");
  }
  const uint64_t pos = LoadU64(bytes.data() + size - kFooterSize);
  const uint64_t body_end = size - kFooterSize;
  // Lance requires the Manifest message to end exactly at the footer.
  if (pos > body_end || body_end - pos < 4 ||
      LoadU32(bytes.data() + pos) != body_end - pos - 4) {
    return Status::Corrupt("Manifest " + file + ": the footer's manifest offset " +
                           std::to_string(pos) +
                           " does not point at a message ending at "
                           "the footer");
  }
  LoadedManifest out;
  const std::string_view message = bytes.substr(pos + 4, body_end - pos - 4);
  if (!out.manifest.ParseFromArray(message.data(), static_cast<int>(message.size()))) {
    return Status::Corrupt("Manifest " + file +
                           ": the Manifest protobuf does not decode");
  }
  if (out.manifest.has_index_section()) {
    LANCE_ASSIGN_OR_RAISE(
        std::string_view section,
        SectionAt(bytes, out.manifest.index_section(), pos, name, "index section"));
    out.index_section.assign(section);
  }
  if (out.manifest.has_transaction_section()) {
    LANCE_ASSIGN_OR_RAISE(std::string_view section,
                          SectionAt(bytes, out.manifest.transaction_section(), pos, name,
                                    "transaction section"));
    out.transaction_section = std::string(section);
  }
  return out;
}

Result<LoadedManifest> ReadManifest(const DatasetDir& dir,
                                    const ManifestLocation& location) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, dir.store()->Read(location.key));
  const std::string name = dir.store()->DisplayPath(location.key);
  LANCE_ASSIGN_OR_RAISE(LoadedManifest loaded,
                        ParseManifestFile(bytes->ToStringView(), name));
  if (loaded.manifest.version() != location.version) {
    return Status::Corrupt("Manifest " + name + " records version " +
                           std::to_string(loaded.manifest.version()) +
                           " but its name says version " +
                           std::to_string(location.version));
  }
  loaded.location = location;
  loaded.location.size = bytes->size();
  return loaded;
}

std::string SerializeManifestFile(pb::Manifest manifest, std::string_view index_section,
                                  const pb::Transaction* transaction) {
  std::string out;
  if (!index_section.empty()) {
    manifest.set_index_section(AppendSection(&out, index_section));
  } else {
    manifest.clear_index_section();
  }
  if (transaction != nullptr) {
    manifest.set_transaction_section(
        AppendSection(&out, transaction->SerializeAsString()));
  } else {
    manifest.clear_transaction_section();
  }
  const uint64_t pos = AppendSection(&out, manifest.SerializeAsString());
  PutU64(&out, pos);
  PutU16(&out, kManifestFooterMajor);
  PutU16(&out, kManifestFooterMinor);
  out.append(kManifestMagic);
  return out;
}

}  // namespace lance::table_internal

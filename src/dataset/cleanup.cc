// SPDX-License-Identifier: Apache-2.0
// Dataset::CleanupOldVersions: Lance's cleanup (rust/lance/src/dataset/cleanup.rs).
//
// Every manifest is read. Those older than the cutoff -- except the version this object
// reads and newer ones, and tagged versions -- are removed; the others form the working
// set. A file under data/, _deletions/, _transactions/ or _indices/ is deleted when no
// working-set manifest references it and either an old manifest did ("verified") or it
// is at least 7 days old (or delete_unverified). Files modified after the oldest kept
// manifest are not considered (see the listing cutoffs below, as Lance 14): a writer
// committing concurrently only adds files newer than that, or unverified young ones, so
// what it writes (and what it references) survives.
#include <algorithm>
#include <chrono>
#include <set>

#include "dataset/dataset_internal.h"
#include "dataset/maintenance_internal.h"
#include "lance/dataset/dataset.h"
#include "lance/macros.h"
#include "table/deletion.h"

namespace lance {

namespace ti = table_internal;
namespace pb = ti::pb;

namespace {

constexpr int64_t kUnverifiedThresholdMs = 7LL * 24 * 3600 * 1000;

struct Referenced {
  std::set<std::string> data;
  std::set<std::string> deletions;
  std::set<std::string> transactions;
  std::set<std::string> index_uuids;
  bool all_indices = false;  ///< an index section we could not read: keep every index
};

// Reads a varint at `*pos`; false when truncated.
bool ReadVarint(std::string_view s, size_t* pos, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= s.size()) return false;
    const auto b = static_cast<uint8_t>(s[(*pos)++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

// The length-delimited fields number `field` of a serialized message; false when the
// bytes do not decode.
bool LengthFields(std::string_view msg, uint32_t field,
                  std::vector<std::string_view>* out) {
  size_t pos = 0;
  while (pos < msg.size()) {
    uint64_t key = 0;
    if (!ReadVarint(msg, &pos, &key)) return false;
    const uint64_t wire = key & 7;
    uint64_t len = 0;
    switch (wire) {
      case 0:
        if (!ReadVarint(msg, &pos, &len)) return false;
        break;
      case 1:
        pos += 8;
        break;
      case 5:
        pos += 4;
        break;
      case 2:
        if (!ReadVarint(msg, &pos, &len) || len > msg.size() - pos) return false;
        if ((key >> 3) == field) out->push_back(msg.substr(pos, len));
        pos += len;
        break;
      default:
        return false;
    }
    if (pos > msg.size()) return false;
  }
  return true;
}

// The index UUIDs of an IndexSection (indices = 1; IndexMetadata.uuid = 1; UUID.uuid =
// 1), hyphenated as the folder names under _indices/.
bool IndexUuids(std::string_view section, std::set<std::string>* out) {
  std::vector<std::string_view> indices;
  if (!LengthFields(section, 1, &indices)) return false;
  for (std::string_view index : indices) {
    std::vector<std::string_view> uuid_msgs;
    if (!LengthFields(index, 1, &uuid_msgs) || uuid_msgs.size() != 1) return false;
    std::vector<std::string_view> bytes;
    if (!LengthFields(uuid_msgs[0], 1, &bytes) || bytes.size() != 1 ||
        bytes[0].size() != 16) {
      return false;
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string text;
    for (size_t i = 0; i < 16; ++i) {
      if (i == 4 || i == 6 || i == 8 || i == 10) text.push_back('-');
      const auto b = static_cast<uint8_t>(bytes[0][i]);
      text.push_back(kHex[b >> 4]);
      text.push_back(kHex[b & 15]);
    }
    out->insert(std::move(text));
  }
  return true;
}

void Collect(const ti::LoadedManifest& loaded, Referenced* refs) {
  const pb::Manifest& m = loaded.manifest;
  for (const pb::DataFragment& f : m.fragments()) {
    for (const pb::DataFile& file : f.files()) refs->data.insert("data/" + file.path());
    if (f.has_deletion_file()) {
      refs->deletions.insert(ti::DeletionFileRelativePath(f.id(), f.deletion_file()));
    }
  }
  if (!m.transaction_file().empty()) {
    refs->transactions.insert("_transactions/" + m.transaction_file());
  }
  if (!loaded.index_section.empty() &&
      !IndexUuids(loaded.index_section, &refs->index_uuids)) {
    refs->all_indices = true;
  }
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

int64_t TimestampMs(const pb::Manifest& m) {
  return m.timestamp().seconds() * 1000 + m.timestamp().nanos() / 1000000;
}

// The manifests sorted into those that stay (the working set) and those that go.
struct VersionSplit {
  Referenced kept;
  Referenced verified;
  std::vector<ti::ManifestLocation> old_manifests;
  std::vector<std::string> tagged_old;
  std::optional<int64_t> earliest_kept_ms;
  std::optional<int64_t> latest_removed_ms;
};

Result<VersionSplit> SplitVersions(const ti::DatasetDir& dir,
                                   const CleanupOptions& options, uint64_t current,
                                   int64_t now_ms) {
  LANCE_ASSIGN_OR_RAISE(auto tags, ti::ReadTags(dir));
  std::map<uint64_t, std::vector<std::string>> tagged;
  for (const auto& [name, tag] : tags) tagged[tag.version].push_back(name);

  LANCE_ASSIGN_OR_RAISE(auto locations, ti::ListManifests(dir));
  // Lance's retain_n_versions: versions before the n-th newest may go.
  std::optional<uint64_t> before_version;
  if (options.retain_versions && !locations.empty()) {
    const auto n = static_cast<size_t>(*options.retain_versions);
    before_version = locations.size() <= n ? locations.front().version
                                           : locations[locations.size() - n].version;
  }
  VersionSplit split;
  for (const ti::ManifestLocation& loc : locations) {
    // A manifest that cannot be read is an error: skipping it could delete files it
    // references (Lance does the same).
    LANCE_ASSIGN_OR_RAISE(ti::LoadedManifest loaded, ti::ReadManifest(dir, loc));
    const pb::Manifest& m = loaded.manifest;
    const bool is_current_or_newer = m.version() >= current;
    const bool old =
        (!options.older_than_ms || TimestampMs(m) < now_ms - *options.older_than_ms) &&
        (!before_version || m.version() < *before_version);
    const bool is_tagged = tagged.count(m.version()) != 0;
    if (is_tagged && old && !is_current_or_newer) {
      for (const std::string& name : tagged[m.version()]) {
        split.tagged_old.push_back(StrCat(name, " (version ", m.version(), ")"));
      }
    }
    if (is_current_or_newer || !old || is_tagged) {
      Collect(loaded, &split.kept);
      const int64_t ts = TimestampMs(m);
      if (!split.earliest_kept_ms || ts < *split.earliest_kept_ms) {
        split.earliest_kept_ms = ts;
      }
    } else {
      Collect(loaded, &split.verified);
      split.old_manifests.push_back(loc);
      const int64_t ts = TimestampMs(m);
      if (!split.latest_removed_ms || ts > *split.latest_removed_ms) {
        split.latest_removed_ms = ts;
      }
    }
  }
  return split;
}

// Old manifests go first: should we stop half-way, no remaining manifest names a
// deleted file.
Status RemoveOldManifests(const ti::DatasetDir& dir, const VersionSplit& split,
                          bool dry_run, const std::string& base, CleanupStats* stats) {
  for (const ti::ManifestLocation& loc : split.old_manifests) {
    int64_t size = loc.size;
    if (size < 0) {
      LANCE_ASSIGN_OR_RAISE(io::ObjectMeta meta, dir.store()->Head(loc.key));
      size = meta.size;
    }
    if (!dry_run) LANCE_RETURN_NOT_OK(dir.store()->Delete(loc.key));
    stats->bytes_removed += size;
    ++stats->old_versions;
    stats->removed_paths.push_back(StartsWith(loc.key, base) ? loc.key.substr(base.size())
                                                             : loc.key);
  }
  return Status::OK();
}

// Whether the listed file `rel` (relative to the dataset) goes, and the statistic it
// counts under (null: none).
struct Removal {
  bool remove = false;
  int64_t* counter = nullptr;
};

Removal ShouldRemove(std::string_view rel, bool maybe_in_progress,
                     const VersionSplit& split, CleanupStats* stats) {
  const std::string path(rel);
  const Referenced& kept = split.kept;
  const Referenced& verified = split.verified;
  // One rule for every kind of file: a referenced one stays; an unreferenced one goes,
  // unless a commit may be in progress and no verified version names it either.
  auto decide = [&](std::set<std::string> Referenced::*names, const std::string& key,
                    int64_t* counter) -> Removal {
    if ((kept.*names).count(key) != 0) return {};
    return {!maybe_in_progress || (verified.*names).count(key) != 0, counter};
  };
  if (StartsWith(rel, "_versions/.tmp")) {
    return {!maybe_in_progress, nullptr};
  }
  if (StartsWith(rel, "_indices/")) {
    const size_t slash = rel.find('/', 9);
    if (slash == std::string_view::npos || kept.all_indices) return {};
    return decide(&Referenced::index_uuids, std::string(rel.substr(9, slash - 9)),
                  &stats->index_files_removed);
  }
  if (StartsWith(rel, "data/") && EndsWith(rel, ".lance")) {
    return decide(&Referenced::data, path, &stats->data_files_removed);
  }
  if (StartsWith(rel, "_deletions/") &&
      (EndsWith(rel, ".arrow") || EndsWith(rel, ".bin"))) {
    return decide(&Referenced::deletions, path, &stats->deletion_files_removed);
  }
  if (StartsWith(rel, "_transactions/") && EndsWith(rel, ".txn")) {
    return decide(&Referenced::transactions, path, &stats->transaction_files_removed);
  }
  return {};
}

Status RemoveUnreferencedFiles(const ti::DatasetDir& dir, const CleanupOptions& options,
                               const VersionSplit& split, const std::string& base,
                               int64_t now_ms, CleanupStats* stats) {
  // Lance 14: only files not modified since the oldest kept manifest are listed --
  // unless a removed manifest is newer than that (a tag kept an old version), when
  // everything is listed; data files are listed up to the 7-day threshold at least
  // (all of them with delete_unverified); index files are always all listed.
  const bool list_all = split.earliest_kept_ms && split.latest_removed_ms &&
                        *split.latest_removed_ms > *split.earliest_kept_ms;
  const std::optional<int64_t> cutoff_listing =
      list_all ? std::optional<int64_t>() : split.earliest_kept_ms;
  std::optional<int64_t> cutoff_data;
  if (!options.delete_unverified && cutoff_listing) {
    cutoff_data = std::max(*cutoff_listing, now_ms - kUnverifiedThresholdMs);
  }
  LANCE_ASSIGN_OR_RAISE(io::ListResult listed, dir.store()->ListAll(base, true));
  for (const io::ObjectMeta& meta : listed.objects) {
    std::string_view rel = meta.path;
    if (!StartsWith(rel, base)) continue;
    rel.remove_prefix(base.size());
    const std::optional<int64_t>* cutoff = StartsWith(rel, "data/") ? &cutoff_data
                                           : StartsWith(rel, "_indices/")
                                               ? nullptr
                                               : &cutoff_listing;
    if (cutoff != nullptr && *cutoff && meta.last_modified > **cutoff) continue;
    const bool maybe_in_progress = !options.delete_unverified &&
                                   meta.last_modified >= now_ms - kUnverifiedThresholdMs;
    const Removal removal = ShouldRemove(rel, maybe_in_progress, split, stats);
    if (!removal.remove) continue;
    Status st = options.dry_run ? Status::OK() : dir.store()->Delete(meta.path);
    if (!st.ok() && !st.IsNotFound()) {
      ++stats->failed_deletes;
      continue;
    }
    stats->removed_paths.push_back(std::string(rel));
    stats->bytes_removed += meta.size;
    if (removal.counter != nullptr) ++*removal.counter;
  }
  return Status::OK();
}

}  // namespace

Result<CleanupStats> Dataset::CleanupOldVersions(const CleanupOptions& options) {
  const std::shared_ptr<DatasetImpl> ds = impl_;
  const ti::DatasetDir& dir = ds->dir;
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  if (options.retain_versions && *options.retain_versions <= 0) {
    return Status::Invalid("retain_versions must be greater than 0, got ",
                           *options.retain_versions);
  }
  if (options.older_than_ms && *options.older_than_ms < 0) {
    return Status::Invalid("older_than must not be negative");
  }
  const uint64_t current = ds->proto().version();
  LANCE_ASSIGN_OR_RAISE(VersionSplit split, SplitVersions(dir, options, current, now_ms));
  if (options.error_if_tagged_old_versions && !split.tagged_old.empty()) {
    std::string names;
    for (const std::string& n : split.tagged_old) {
      names += (names.empty() ? "" : ", ") + n;
    }
    return Status::Invalid(split.tagged_old.size(),
                           " tagged version(s) have been marked for cleanup. Either set "
                           "`error_if_tagged_old_versions=false` or delete the following "
                           "tag(s) to enable cleanup: ",
                           names);
  }

  CleanupStats stats;
  const std::string base = dir.base().empty() ? "" : dir.Key("");
  LANCE_RETURN_NOT_OK(RemoveOldManifests(dir, split, options.dry_run, base, &stats));
  LANCE_RETURN_NOT_OK(RemoveUnreferencedFiles(dir, options, split, base, now_ms, &stats));
  return stats;
}

}  // namespace lance

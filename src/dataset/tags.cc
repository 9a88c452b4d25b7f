// SPDX-License-Identifier: Apache-2.0
// Tags: `_refs/tags/<name>.json`, with the keys Lance 8 writes (branch, version,
// createdAt, updatedAt, manifestSize, metadata), and checkout by tag.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "dataset/dataset_internal.h"
#include "dataset/maintenance_internal.h"
#include "lance/dataset/dataset.h"
#include "lance/macros.h"

namespace lance {

namespace ti = table_internal;

namespace {

constexpr std::string_view kTagsDir = "_refs/tags/";

// Lance's rule for reference names: non-empty, no path separators, no "..", none of
// the characters git forbids, not ending in ".lock" or ".".
Status CheckTagName(const std::string& name) {
  bool ok = !name.empty() && name.find("..") == std::string::npos &&
            name.front() != '.' && name.back() != '.' &&
            !(name.size() >= 5 && name.compare(name.size() - 5, 5, ".lock") == 0);
  for (char c : name) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
    ok = ok && allowed;
  }
  if (!ok) {
    return Status::Invalid("Invalid tag name '", name,
                           "': use letters, digits, '.', '-' and '_' (no '..', not "
                           "starting or ending with '.', not ending with '.lock')");
  }
  return Status::OK();
}

std::string NowRfc3339() {
  const auto now = std::chrono::system_clock::now();
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch())
          .count();
  const std::time_t secs = static_cast<std::time_t>(ns / 1000000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                tm.tm_sec, static_cast<long long>(ns % 1000000000));
  return buf;
}

std::string TagKey(const ti::DatasetDir& dir, const std::string& name) {
  return dir.Key(std::string(kTagsDir) + name + ".json");
}

Result<TagInfo> ParseTag(std::string_view bytes, const std::string& where) {
  nlohmann::json j = nlohmann::json::parse(bytes, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("version") ||
      !j["version"].is_number_unsigned()) {
    return Status::Corrupt("Tag file ", where,
                           " is not a JSON object with an unsigned \"version\"");
  }
  TagInfo t;
  t.version = j["version"].get<uint64_t>();
  if (j.contains("branch") && j["branch"].is_string()) {
    t.branch = j["branch"].get<std::string>();
  }
  if (j.contains("manifestSize") && j["manifestSize"].is_number_integer()) {
    t.manifest_size = j["manifestSize"].get<int64_t>();
  }
  if (j.contains("createdAt") && j["createdAt"].is_string()) {
    t.created_at = j["createdAt"].get<std::string>();
  }
  if (j.contains("updatedAt") && j["updatedAt"].is_string()) {
    t.updated_at = j["updatedAt"].get<std::string>();
  }
  if (j.contains("metadata") && j["metadata"].is_object()) {
    for (const auto& [k, v] : j["metadata"].items()) {
      if (v.is_string()) t.metadata[k] = v.get<std::string>();
    }
  }
  return t;
}

std::string SerializeTag(const TagInfo& t) {
  nlohmann::ordered_json j;
  j["branch"] = t.branch ? nlohmann::ordered_json(*t.branch) : nlohmann::ordered_json();
  j["version"] = t.version;
  j["createdAt"] = t.created_at;
  j["updatedAt"] = t.updated_at;
  j["manifestSize"] = t.manifest_size;
  j["metadata"] = nlohmann::ordered_json::object();
  for (const auto& [k, v] : t.metadata) j["metadata"][k] = v;
  return j.dump(2);
}

Result<TagInfo> ReadTag(const ti::DatasetDir& dir, const std::string& name) {
  LANCE_RETURN_NOT_OK(CheckTagName(name));
  const std::string key = TagKey(dir, name);
  auto bytes = dir.store()->Read(key);
  if (!bytes.ok()) {
    if (bytes.status().IsNotFound()) {
      return Status::NotFound("Tag ", name, " does not exist in ", dir.Uri());
    }
    return bytes.status();
  }
  return ParseTag(std::string_view(reinterpret_cast<const char*>((*bytes)->data()),
                                   static_cast<size_t>((*bytes)->size())),
                  dir.store()->DisplayPath(key));
}

// The record of a new tag on `version` (which must exist).
Result<TagInfo> MakeRecord(const ti::DatasetDir& dir, uint64_t version) {
  auto location = ti::FindManifest(dir, version);
  if (!location.ok()) {
    if (location.status().IsNotFound()) {
      return Status::NotFound("Cannot tag version ", version, " of ", dir.Uri(),
                              ": it does not exist");
    }
    return location.status();
  }
  int64_t size = location->size;
  if (size < 0) {
    LANCE_ASSIGN_OR_RAISE(io::ObjectMeta meta, dir.store()->Head(location->key));
    size = meta.size;
  }
  TagInfo t;
  t.version = version;
  t.manifest_size = size;
  t.created_at = t.updated_at = NowRfc3339();
  return t;
}

}  // namespace

namespace table_internal {

Result<std::map<std::string, TagInfo>> ReadTags(const DatasetDir& dir) {
  std::map<std::string, TagInfo> out;
  const std::string prefix = dir.Key(kTagsDir);
  LANCE_ASSIGN_OR_RAISE(io::ListResult listed, dir.store()->ListAll(prefix, false));
  for (const io::ObjectMeta& meta : listed.objects) {
    std::string_view name = meta.path;
    if (name.size() <= prefix.size()) continue;
    name.remove_prefix(prefix.size());
    if (name.find('/') != std::string_view::npos || name.size() <= 5 ||
        name.substr(name.size() - 5) != ".json") {
      continue;
    }
    const std::string tag(name.substr(0, name.size() - 5));
    LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, dir.store()->Read(meta.path));
    LANCE_ASSIGN_OR_RAISE(
        TagInfo rec,
        ParseTag(std::string_view(reinterpret_cast<const char*>(bytes->data()),
                                  static_cast<size_t>(bytes->size())),
                 dir.store()->DisplayPath(meta.path)));
    out.emplace(tag, std::move(rec));
  }
  return out;
}

}  // namespace table_internal

Result<uint64_t> Dataset::TagVersion(const std::string& name) const {
  LANCE_ASSIGN_OR_RAISE(TagInfo t, ReadTag(impl_->dir, name));
  return t.version;
}

Result<std::map<std::string, TagInfo>> Dataset::ListTags() const {
  return ti::ReadTags(impl_->dir);
}

Status Dataset::CreateTag(const std::string& name, uint64_t version) {
  LANCE_RETURN_NOT_OK(CheckTagName(name));
  LANCE_ASSIGN_OR_RAISE(TagInfo t, MakeRecord(impl_->dir, version));
  Status st =
      impl_->dir.store()->PutIfNotExists(TagKey(impl_->dir, name), SerializeTag(t));
  if (st.IsAlreadyExists()) {
    return Status::AlreadyExists("Tag ", name, " already exists in ", impl_->dir.Uri());
  }
  return st;
}

Status Dataset::UpdateTag(const std::string& name, uint64_t version) {
  LANCE_ASSIGN_OR_RAISE(TagInfo old, ReadTag(impl_->dir, name));
  LANCE_ASSIGN_OR_RAISE(TagInfo t, MakeRecord(impl_->dir, version));
  t.created_at = old.created_at;
  t.branch = old.branch;
  t.metadata = old.metadata;
  return impl_->dir.store()->Put(TagKey(impl_->dir, name), SerializeTag(t));
}

Status Dataset::DeleteTag(const std::string& name) {
  LANCE_RETURN_NOT_OK(ReadTag(impl_->dir, name).status());
  return impl_->dir.store()->Delete(TagKey(impl_->dir, name));
}

Result<std::shared_ptr<Dataset>> Dataset::CheckoutTag(const std::string& name) const {
  LANCE_ASSIGN_OR_RAISE(uint64_t version, TagVersion(name));
  return CheckoutVersion(version);
}

}  // namespace lance

// SPDX-License-Identifier: Apache-2.0

#include "lance/format/file_session.h"

#include <algorithm>
#include <utility>

#include "lance/macros.h"

namespace lance::format {

namespace {

// Relative paths only: a session must not reach outside its base (which may be the only
// prefix its vended credentials allow).
Status CheckRelativePath(const std::string& path, bool allow_empty, std::string_view what,
                         const std::string& base) {
  auto bad = [&](std::string_view why) {
    return Status::Invalid(what, " '", path, "' in the file session at '", base,
                           "': ", why);
  };
  if (path.empty()) return allow_empty ? Status::OK() : bad("the path is empty");
  if (path.front() == '/') return bad("the path must be relative to the session's base");
  if (path.find("://") != std::string::npos) return bad("the path must not be a URI");
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string_view part(path.data() + start, end - start);
    // A trailing '/' is allowed for directory prefixes only.
    const bool trailing = end == path.size() && part.empty();
    if (part.empty() && !(trailing && allow_empty)) return bad("empty path component");
    if (part == "." || part == "..") return bad("'.' and '..' are not allowed");
    start = end + 1;
  }
  return Status::OK();
}

}  // namespace

LanceFileSession::LanceFileSession(std::string base_uri,
                                   std::shared_ptr<io::ObjectStore> store,
                                   std::string base_path)
    : base_uri_(std::move(base_uri)),
      store_(std::move(store)),
      base_path_(std::move(base_path)) {
  while (!base_path_.empty() && base_path_.back() == '/') base_path_.pop_back();
}

Result<std::shared_ptr<LanceFileSession>> LanceFileSession::Open(
    std::string_view base_uri, const io::StorageAccess& access) {
  Result<io::ResolvedLocation> loc = io::ResolveObjectStore(base_uri, access);
  if (!loc.ok()) {
    return loc.status().WithContext("opening a Lance file session at '" +
                                    std::string(base_uri) + "'");
  }
  return std::make_shared<LanceFileSession>(std::string(base_uri), std::move(loc->store),
                                            std::move(loc->path));
}

Result<std::string> LanceFileSession::KeyOf(const std::string& path,
                                            std::string_view what) const {
  LANCE_RETURN_NOT_OK(CheckRelativePath(path, /*allow_empty=*/false, what, base_uri_));
  if (path.back() == '/') {
    return Status::Invalid(what, " '", path, "' in the file session at '", base_uri_,
                           "': names a directory, not a file");
  }
  return base_path_.empty() ? path : base_path_ + "/" + path;
}

Result<bool> LanceFileSession::Contains(const std::string& path) const {
  LANCE_ASSIGN_OR_RAISE(std::string key, KeyOf(path, "checking for the file"));
  Result<bool> exists = store_->Exists(key);
  if (!exists.ok()) {
    return exists.status().WithContext("checking for '" + path +
                                       "' in the file session at '" + base_uri_ + "'");
  }
  return exists;
}

Result<std::vector<std::string>> LanceFileSession::List(const std::string& prefix) const {
  LANCE_RETURN_NOT_OK(CheckRelativePath(prefix, /*allow_empty=*/true,
                                        "listing the directory", base_uri_));
  // Listed as a directory: "a" lists "a/..." but not "ab".
  std::string dir = base_path_;
  if (!prefix.empty()) dir = dir.empty() ? prefix : dir + "/" + prefix;
  if (!dir.empty() && dir.back() != '/') dir += '/';
  Result<io::ListResult> listed = store_->ListAll(dir, /*recursive=*/true);
  if (!listed.ok()) {
    return listed.status().WithContext("listing '" + prefix +
                                       "' in the file session at '" + base_uri_ + "'");
  }
  const size_t strip = base_path_.empty() ? 0 : base_path_.size() + 1;
  std::vector<std::string> out;
  out.reserve(listed->objects.size());
  for (const io::ObjectMeta& meta : listed->objects) {
    if (meta.path.size() <= strip) continue;
    out.push_back(meta.path.substr(strip));
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::unique_ptr<LanceFileWriter>> LanceFileSession::OpenWriter(
    const std::string& path, LanceSchema schema, FileWriterOptions options) const {
  LANCE_ASSIGN_OR_RAISE(std::string key, KeyOf(path, "opening a writer of"));
  auto writer = LanceFileWriter::Open(store_, std::move(key), std::move(schema), options);
  if (!writer.ok()) {
    return writer.status().WithContext("opening a writer of '" + path +
                                       "' in the file session at '" + base_uri_ + "'");
  }
  return writer;
}

Result<std::shared_ptr<LanceFileReader>> LanceFileSession::OpenReader(
    const std::string& path, FileReaderOptions options) const {
  LANCE_ASSIGN_OR_RAISE(std::string key, KeyOf(path, "opening a reader of"));
  auto reader = LanceFileReader::Open(store_, std::move(key), options);
  if (!reader.ok()) {
    return reader.status().WithContext("opening a reader of '" + path +
                                       "' in the file session at '" + base_uri_ + "'");
  }
  return reader;
}

}  // namespace lance::format

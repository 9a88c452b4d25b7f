// SPDX-License-Identifier: Apache-2.0

#include "lance/io/uri.h"

#include <cctype>
#include <filesystem>
#include <string>
#include <system_error>

#include "io/io_util.h"
#include "lance/core/ascii.h"
#include "lance/io/object_store.h"
#include "lance/macros.h"

namespace lance::io {

using internal::IsValidScheme;

namespace {

// Local paths follow file system rules: ".." climbs, "//" collapses. Climbing above "/"
// stays at "/", as the kernel does.
Result<Uri> LocalUri(std::string_view raw) {
  if (raw.find('\0') != std::string_view::npos) {
    return Status::Invalid("local path contains a NUL byte");
  }
  std::filesystem::path path{std::string(raw)};
  if (path.is_relative()) {
    std::error_code ec;
    std::filesystem::path cwd = std::filesystem::current_path(ec);
    if (ec) {
      return Status::IOError(
          "When resolving the relative path '" + std::string(raw) +
          "': cannot determine the working directory: " + ec.message());
    }
    path = cwd / path;
  }
  std::string normal = path.lexically_normal().generic_string();
  size_t begin = normal.find_first_not_of('/');
  if (begin == std::string::npos) return Uri{"file", "", ""};
  size_t end = normal.find_last_not_of('/');
  return Uri{"file", "", normal.substr(begin, end - begin + 1)};
}

}  // namespace

std::string Uri::ToString() const {
  std::string out = scheme + "://" + authority;
  if (!path.empty() || scheme == "file") out.push_back('/');
  out.append(path);
  return out;
}

Result<Uri> ParseUri(std::string_view text) {
  if (text.empty()) return Status::Invalid("empty location");
  const size_t sep = text.find("://");
  const size_t colon = text.find(':');
  // "file:/abs" (RFC 8089 short form).
  if (sep == std::string_view::npos && colon != std::string_view::npos &&
      AsciiToLower(text.substr(0, colon)) == "file" && colon + 1 < text.size() &&
      text[colon + 1] == '/') {
    return LocalUri(text.substr(colon + 1));
  }
  // No scheme, or something before "://" that is a path rather than a scheme
  // ("./a://b"): a local path.
  if (sep == std::string_view::npos ||
      text.substr(0, sep).find('/') != std::string_view::npos) {
    return LocalUri(text);
  }
  std::string_view scheme_text = text.substr(0, sep);
  if (!IsValidScheme(scheme_text)) {
    return Status::Invalid("malformed scheme in location '" + std::string(text) + "'");
  }
  const std::string scheme = AsciiToLower(scheme_text);
  std::string_view rest = text.substr(sep + 3);
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path =
      slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  // abfs(s)://<container>@<account>.dfs.core.windows.net: the part before '@' names the
  // container, not a user (a ':' would make it user:password again).
  const bool container_at_host =
      (scheme == "abfs" || scheme == "abfss") &&
      authority.substr(0, authority.find('@')).find(':') == std::string_view::npos;
  if (authority.find('@') != std::string_view::npos && !container_at_host) {
    // Do not echo the location: the part before '@' is likely a secret.
    return Status::Invalid(
        "credentials embedded in a " + scheme +
        ":// location are not supported; pass them as storage options");
  }
  if (scheme == "file") {
    if (!authority.empty() && AsciiToLower(authority) != "localhost") {
      return Status::Invalid("file location '" + std::string(text) +
                             "' names a remote host; only local files are supported");
    }
    return LocalUri("/" + std::string(path));
  }
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (!path.empty()) {
    Status st = ValidateObjectPath(path);
    if (!st.ok())
      return st.WithContext("parsing the location '" + std::string(text) + "'");
  }
  return Uri{scheme, std::string(authority), std::string(path)};
}

}  // namespace lance::io

// SPDX-License-Identifier: Apache-2.0
/// \file uri.h
/// \brief Parsing of dataset and object-store locations.

#pragma once

#include <string>
#include <string_view>

#include "lance/result.h"

namespace lance::io {

/// \brief A parsed location: `scheme://authority/path`.
///
/// Forms accepted by ParseUri:
/// - `file:///abs/path`, `file://localhost/abs/path` and `file:/abs/path`;
/// - a plain absolute path (`/abs/path`) or a relative one (`data/x.lance`, resolved
///   against the current working directory), both becoming scheme "file";
/// - `<scheme>://<authority>/<key...>` for any other scheme, e.g. `memory://name/a/b`,
///   `s3://bucket/a/b`.
///
/// Local paths are normalized lexically ("." and ".." resolved, repeated '/' collapsed);
/// for other schemes the path must already be a well-formed key (no empty, "." or ".."
/// segment). Trailing '/' are dropped. No percent-decoding is done: characters are taken
/// literally. Credentials in the authority (`user:secret@host`) are rejected; only
/// `abfs://` and `abfss://` keep an '@' (`container@account.dfs.core.windows.net`, no ':'
/// before it) as part of the authority.
///
/// A value type; thread-compatible.
struct Uri {
  /// \brief Lower-case scheme: "file", "memory", "s3", ...
  std::string scheme;
  /// \brief Bucket, instance name or host; empty for "file".
  std::string authority;
  /// \brief The path below the authority without leading or trailing '/'; for "file",
  /// the absolute path without its leading '/' ("" is the file system root).
  std::string path;

  /// \brief `scheme://authority/path` ("file:///abs/path" for local files); the root of
  /// an authority prints without a trailing '/' ("s3://bucket"), except "file:///".
  std::string ToString() const;
  /// \brief The same URI with an empty path: the root of the store that holds it.
  Uri Root() const { return Uri{scheme, authority, ""}; }

  bool operator==(const Uri&) const = default;
};

/// \brief Parses a location (see Uri for the accepted forms).
/// \return the parsed URI; Invalid if it is empty, has a malformed scheme, credentials
/// in the authority, a non-local "file" host, or a malformed key; IOError if a relative
/// path cannot be resolved because the working directory is unknown.
Result<Uri> ParseUri(std::string_view uri);

}  // namespace lance::io

// SPDX-License-Identifier: Apache-2.0
// Option values shared by the verbs: storage options (with redaction of secrets),
// numbers, column lists.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "lance/result.h"

namespace lance::cli {

/// \brief Whether a storage option key names a secret: io::IsSecretOptionKey, the one
/// rule of lance/io/storage_options.h ("aws_access_key_id" is a key id, not a secret;
/// "account_key" is a secret).
bool IsSecretKey(std::string_view key);

/// \brief `value` as it may be shown: io::RedactOptionValue ("<redacted>" for a secret,
/// the first 4 characters and "…" for a key id).
std::string RedactValue(std::string_view key, std::string_view value);

/// \brief The URI with a userinfo password and the values of secret-looking query
/// parameters replaced by "<redacted>".
std::string RedactUri(std::string_view uri);

/// \brief "KEY=VALUE" strings to a map. Keys must be non-empty and unique. Error
/// messages name keys, never values.
Result<std::map<std::string, std::string>> ParseStorageOptions(
    const std::vector<std::string>& pairs);

/// \brief A non-negative decimal integer for option `--name`.
Result<int64_t> ParseCount(std::string_view text, std::string_view name);

/// \brief Column names from one or more comma-separated lists (spaces around names are
/// dropped; empty names are Invalid).
Result<std::vector<std::string>> ParseColumnList(const std::vector<std::string>& lists);

}  // namespace lance::cli

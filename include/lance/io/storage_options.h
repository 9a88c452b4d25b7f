// SPDX-License-Identifier: Apache-2.0
/// \file storage_options.h
/// \brief StorageOptions: the flat map of Lance storage-option keys ("aws_region",
/// "aws_access_key_id", "expires_at_millis", ...) that configures every store. Declared
/// here once; every layer uses this type. Also the one rule that decides which options
/// are secret and how a value is shown in logs, messages and the CLI.

#pragma once

#include <map>
#include <string>
#include <string_view>

namespace lance::io {

/// \brief Storage options: Lance's key names to values. Options a store does not know are
/// ignored.
using StorageOptions = std::map<std::string, std::string>;

/// \brief How much of an option's value may be shown.
enum class OptionSensitivity {
  /// \brief Shown as is ("aws_region", "aws_endpoint", "timeout", "client_id").
  kPlain,
  /// \brief A key id ("aws_access_key_id"): names a credential without granting it.
  /// Shown redacted (its first 4 characters and "…"), never used as a cache key.
  kIdentifier,
  /// \brief Never shown ("aws_secret_access_key", "aws_session_token", "account_key").
  kSecret,
};

/// \brief The value shown in place of a secret.
inline constexpr std::string_view kRedactedValue = "<redacted>";

/// \brief Classifies an option key, case-insensitively: kSecret if it contains "secret",
/// "token", "password", "passwd", "credential", "signature" or "sas"; else kIdentifier
/// if it contains "key" and ends in "id" ("aws_access_key_id", "key_id"); else kSecret if
/// it contains "key" ("account_key", "api_key", "key"); else kPlain. Deliberately broad:
/// a plain option classified as secret only costs some display.
OptionSensitivity ClassifyOptionKey(std::string_view key);

/// \brief True if the value of `key` must never be shown (kSecret).
bool IsSecretOptionKey(std::string_view key);

/// \brief True if the value of `key` must not be shown verbatim nor enter a cache key
/// (kSecret or kIdentifier).
bool IsSensitiveOptionKey(std::string_view key);

/// \brief `value` as it may be shown for `key`: as is (kPlain), its first 4 characters
/// followed by "…" (kIdentifier; "…" alone when empty), or kRedactedValue (kSecret).
std::string RedactOptionValue(std::string_view key, std::string_view value);

}  // namespace lance::io

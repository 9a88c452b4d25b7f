// SPDX-License-Identifier: Apache-2.0
// The one rule for secret storage options (see storage_options.h). The registry's cache
// keys, S3Options::ToString, AwsCredentials::ToString and the CLI all ask it, so that a
// key that is hidden in one place is never printed in another.

#include "lance/io/storage_options.h"

#include <algorithm>
#include <cctype>

#include "lance/core/ascii.h"
#include "lance/core/text.h"
#include "lance/str_cat.h"

namespace lance::io {

OptionSensitivity ClassifyOptionKey(std::string_view key) {
  static constexpr std::string_view kSecretMarkers[] = {
      "secret", "token", "password", "passwd", "credential", "signature", "sas",
  };
  const std::string lower = AsciiToLower(key);
  for (std::string_view marker : kSecretMarkers) {
    if (lower.find(marker) != std::string::npos) return OptionSensitivity::kSecret;
  }
  if (lower.find("key") != std::string::npos) {
    // A key id names the key; the key itself (account_key, api_key) grants access.
    const bool is_id = lower.size() >= 2 && lower.compare(lower.size() - 2, 2, "id") == 0;
    return is_id ? OptionSensitivity::kIdentifier : OptionSensitivity::kSecret;
  }
  return OptionSensitivity::kPlain;
}

bool IsSecretOptionKey(std::string_view key) {
  return ClassifyOptionKey(key) == OptionSensitivity::kSecret;
}

bool IsSensitiveOptionKey(std::string_view key) {
  return ClassifyOptionKey(key) != OptionSensitivity::kPlain;
}

std::optional<CredentialPart> CredentialPartOf(std::string_view key) {
  for (const CredentialOptionKey& k : kCredentialOptionKeys) {
    if (k.key.size() == key.size() &&
        std::equal(k.key.begin(), k.key.end(), key.begin(), [](char a, char b) {
          return a == std::tolower(static_cast<unsigned char>(b));
        })) {
      return k.part;
    }
  }
  return std::nullopt;
}

Result<std::map<CredentialPart, OptionSetting>> CredentialSettings(
    const StorageOptions& options) {
  std::map<CredentialPart, OptionSetting> out;
  for (const auto& [key, value] : options) {
    // Namespaces and config files often carry "key": "" meaning "not set".
    if (TrimAscii(value).empty()) continue;
    const std::optional<CredentialPart> part = CredentialPartOf(TrimAscii(key));
    if (!part) continue;
    auto [it, inserted] = out.try_emplace(*part, OptionSetting{key, value});
    // Two spellings of one part with different values are ambiguous: picking one would
    // depend on map order.
    if (!inserted && TrimAscii(it->second.value) != TrimAscii(value)) {
      return ConflictingSettingsError(it->second, OptionSetting{key, value},
                                      "credential");
    }
  }
  return out;
}

Status ConflictingSettingsError(const OptionSetting& a, const OptionSetting& b,
                                std::string_view setting) {
  std::string msg = StrCat("storage options '", a.source, "' and '", b.source,
                           "' set the same ", setting, " to different values");
  if (!IsSecretOptionKey(a.source) && !IsSecretOptionKey(b.source)) {
    msg += StrCat(" ('", RedactOptionValue(a.source, a.value), "' and '",
                  RedactOptionValue(b.source, b.value), "')");
  }
  return Status::Invalid(msg + "; give only one of them");
}

bool IsCredentialOptionKey(std::string_view key) {
  return CredentialPartOf(key).has_value() || IsSensitiveOptionKey(key);
}

std::string RedactOptionValue(std::string_view key, std::string_view value) {
  switch (ClassifyOptionKey(key)) {
    case OptionSensitivity::kPlain:
      return std::string(value);
    case OptionSensitivity::kIdentifier: {
      std::string out(value.substr(0, std::min<size_t>(4, value.size())));
      out += "\u2026";
      return out;
    }
    case OptionSensitivity::kSecret:
      break;
  }
  return std::string(kRedactedValue);
}

}  // namespace lance::io

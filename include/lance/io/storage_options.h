// SPDX-License-Identifier: Apache-2.0
/// \file storage_options.h
/// \brief StorageOptions: the flat map of Lance storage-option keys ("aws_region",
/// "aws_access_key_id", "expires_at_millis", ...) that configures every store. Declared
/// here once; every layer uses this type. Also the one rule that decides which options
/// are secret and how a value is shown in logs, messages and the CLI.

#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "lance/result.h"

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

/// \brief What a credential option is part of. A namespace vends these together, a
/// refresh replaces them together, and a table's own options never override them.
/// A new part joins as an enumerator, its rows in kCredentialOptionKeys and a field of
/// io::Credentials read by CredentialsFromStorageOptions.
enum class CredentialPart {
  /// \brief The AWS parts (s3::AwsCredentials).
  kAccessKeyId,
  kSecretAccessKey,
  kSessionToken,
  /// \brief The Azure parts (AzureCredentials): Shared Key, SAS, OAuth bearer token.
  kAzureAccountKey,
  kAzureSasToken,
  kAzureBearerToken,
  /// \brief The Google Cloud Storage OAuth token (GoogleCredentials).
  kGoogleBearerToken,
  /// \brief When the vended credentials expire (Lance's `expires_at_millis`).
  kExpiresAtMillis,
  /// \brief How long before the expiry a refresh starts (`refresh_offset_millis`).
  kRefreshOffsetMillis,
};

/// \brief One credential option key (lower case) and its part.
struct CredentialOptionKey {
  std::string_view key;
  CredentialPart part;
};

/// \brief The credential option keys, Lance's aliases included: the one list that option
/// parsing (CredentialSettings, hence ParseS3Options and the refresh's
/// CredentialsFromStorageOptions), the refresh (WithoutRefreshableOptions), the
/// namespace's merge of vended options (MergeStorageOptions) and the REST server's
/// withholding all read. Lance's names and the aliases of its object store.
inline constexpr CredentialOptionKey kCredentialOptionKeys[] = {
    {"aws_access_key_id", CredentialPart::kAccessKeyId},
    {"access_key_id", CredentialPart::kAccessKeyId},
    {"aws_secret_access_key", CredentialPart::kSecretAccessKey},
    {"secret_access_key", CredentialPart::kSecretAccessKey},
    {"aws_session_token", CredentialPart::kSessionToken},
    {"aws_token", CredentialPart::kSessionToken},
    {"aws_security_token", CredentialPart::kSessionToken},
    {"session_token", CredentialPart::kSessionToken},
    {"token", CredentialPart::kSessionToken},
    {"azure_storage_account_key", CredentialPart::kAzureAccountKey},
    {"azure_storage_access_key", CredentialPart::kAzureAccountKey},
    {"account_key", CredentialPart::kAzureAccountKey},
    {"access_key", CredentialPart::kAzureAccountKey},
    {"azure_storage_sas_token", CredentialPart::kAzureSasToken},
    {"azure_storage_sas_key", CredentialPart::kAzureSasToken},
    {"sas_token", CredentialPart::kAzureSasToken},
    {"sas_key", CredentialPart::kAzureSasToken},
    {"azure_storage_token", CredentialPart::kAzureBearerToken},
    {"bearer_token", CredentialPart::kAzureBearerToken},
    {"google_storage_token", CredentialPart::kGoogleBearerToken},
    {"expires_at_millis", CredentialPart::kExpiresAtMillis},
    {"refresh_offset_millis", CredentialPart::kRefreshOffsetMillis},
};

/// \brief The credential part `key` names (case-insensitively), if it is one of
/// kCredentialOptionKeys.
std::optional<CredentialPart> CredentialPartOf(std::string_view key);

/// \brief One setting as given: the option key as the caller spelled it (or the name of
/// the environment variable it came from) and its value.
struct OptionSetting {
  std::string source;
  std::string value;
};

/// \brief The credential options of `options`, one per part: keys matched by
/// CredentialPartOf (surrounding blanks ignored), values blank-only counted as absent.
/// \return the settings by part; Invalid when two aliases of one part carry different
/// values (ConflictingSettingsError).
Result<std::map<CredentialPart, OptionSetting>> CredentialSettings(
    const StorageOptions& options);

/// \brief The error for two options that set the same `setting` ("S3 setting",
/// "credential") to different values: names both keys, and shows the values only as
/// RedactOptionValue does, and not at all when either key is secret.
Status ConflictingSettingsError(const OptionSetting& a, const OptionSetting& b,
                                std::string_view setting);

/// \brief True if `key` is a credential option: one of kCredentialOptionKeys, or any
/// other option whose value must never be shown or cached (IsSensitiveOptionKey: a key
/// a future store reads is covered before it joins the list).
bool IsCredentialOptionKey(std::string_view key);

/// \brief `value` as it may be shown for `key`: as is (kPlain), its first 4 characters
/// followed by "…" (kIdentifier; "…" alone when empty), or kRedactedValue (kSecret).
std::string RedactOptionValue(std::string_view key, std::string_view value);

}  // namespace lance::io

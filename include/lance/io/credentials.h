// SPDX-License-Identifier: Apache-2.0
/// \file credentials.h
/// \brief CredentialsSource: what a remote store asks for credentials on every request.
///
/// The credentials seam: a store never copies keys in at construction; it holds a
/// source and calls Current() for each request it signs (each attempt of a retry too),
/// so a source that refreshes (the namespace-backed one of the credential-refresh
/// design) hot-swaps AWS keys, an Azure SAS or an OAuth token under a live store.

#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "lance/io/storage_options.h"
#include "lance/result.h"

namespace lance::io {

namespace s3 {

/// \brief Long-term or temporary AWS credentials: what S3 requests are signed with.
///
/// Never log the struct's fields directly; ToString() redacts them.
struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  /// \brief Session token of temporary credentials; empty for long-term ones.
  std::string session_token;

  /// \brief True when no key id is set (the request goes unsigned).
  bool empty() const { return access_key_id.empty(); }
  /// \brief A loggable form: the key id redacted as RedactOptionValue does for
  /// identifiers (its first 4 characters), the secret and the token never (only whether
  /// a token is present).
  std::string ToString() const;

  bool operator==(const AwsCredentials&) const = default;
};

}  // namespace s3

/// \brief Azure Blob Storage credentials, in the order a store uses them: Shared Key
/// signing with the account key, else a SAS appended to every request's query, else an
/// OAuth bearer token. The account name is not a credential (it is part of the location).
struct AzureCredentials {
  /// \brief The storage account key (base64), for Shared Key signing.
  std::string account_key;
  /// \brief A shared access signature: a query string without the leading '?'.
  std::string sas_token;
  /// \brief An OAuth 2 access token for https://storage.azure.com.
  std::string bearer_token;

  bool empty() const {
    return account_key.empty() && sas_token.empty() && bearer_token.empty();
  }
  bool operator==(const AzureCredentials&) const = default;
};

/// \brief Google Cloud Storage credentials: an OAuth 2 access token (Lance's
/// `google_storage_token`, or one a service-account key or a namespace produced).
struct GoogleCredentials {
  std::string bearer_token;

  bool empty() const { return bearer_token.empty(); }
  bool operator==(const GoogleCredentials&) const = default;
};

/// \brief What a CredentialsSource hands out: the credentials of every cloud a storage
/// options map may carry. A store reads its own part (S3 `aws`, Azure `azure`, GCS
/// `google`); a namespace vends one of them, and a refresh replaces all of them at once.
///
/// Never log the fields directly; ToString() redacts them.
struct Credentials {
  s3::AwsCredentials aws;
  AzureCredentials azure;
  GoogleCredentials google;

  Credentials() = default;
  /// \brief AWS credentials alone (implicit: AWS credentials are credentials).
  Credentials(s3::AwsCredentials aws_credentials)  // NOLINT(google-explicit-constructor)
      : aws(std::move(aws_credentials)) {}

  /// \brief True when no part is set: requests go unsigned (anonymous access).
  bool empty() const { return aws.empty() && azure.empty() && google.empty(); }
  /// \brief Which parts are present, with the AWS key id redacted as in
  /// AwsCredentials::ToString and nothing else shown: "AwsCredentials{...}",
  /// "AzureCredentials{sas_token=<redacted>}",
  /// "GoogleCredentials{bearer_token=<redacted>}", joined by ", ";
  /// "Credentials{anonymous}" when empty.
  std::string ToString() const;

  bool operator==(const Credentials&) const = default;
};

/// \brief Looks up an environment variable (s3::ProcessEnv() reads the process's); null:
/// no environment.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

/// \brief The credentials of a storage-options map, every part under every alias of
/// kCredentialOptionKeys (CredentialSettings: the one list), values trimmed:
/// - AWS: key id, secret and session token. Only when the options name none of them,
///   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN from `env` (a lone
///   token is ignored): credentials come from one place only, a key id from the options
///   never pairs with a secret from the environment.
/// - Azure: account key, SAS token (a leading '?' dropped), bearer token.
/// - Google: the bearer token (`google_storage_token`).
/// Other options are ignored.
/// \return the credentials (empty() when there are none); Invalid for an AWS key id
/// without secret or vice versa, a session token without key id, or two aliases with
/// different values (naming the keys, never a secret value).
Result<Credentials> CredentialsFromStorageOptions(const StorageOptions& options,
                                                  const EnvLookup& env = nullptr);

/// \brief Supplies the credentials of a remote store, request by request.
///
/// Thread-safe: Current() and OnRejected() may be called concurrently from any number
/// of threads. Implementations must make Current() cheap (it sits on every request).
class CredentialsSource {
 public:
  virtual ~CredentialsSource() = default;

  /// \brief The credentials to sign the next request with. A store reads its own part;
  /// an empty part means "send the request unsigned" (anonymous access).
  /// \return the credentials (shared, immutable); an error if none are available (for
  /// example expired credentials whose refresh failed), which fails the request.
  virtual Result<std::shared_ptr<const Credentials>> Current() = 0;

  /// \brief The server rejected `rejected` (expired or unknown token/key). A source that
  /// can refresh fetches new credentials and returns them; the caller retries the
  /// request once with them.
  /// \return fresh credentials; or the status to fail the request with. The default
  /// (sources that cannot refresh) returns Unauthorized: the request fails.
  virtual Result<std::shared_ptr<const Credentials>> OnRejected(
      const Credentials& rejected);

  /// \brief Identity of the source, part of the registry's store cache key: two stores
  /// with sources of different ids never share. Never contains a secret.
  virtual std::string id() const = 0;

  /// \brief One line for logs; never contains a secret.
  virtual std::string ToString() const = 0;
};

/// \brief Fixed credentials (from storage options or the environment).
class StaticCredentialsSource final : public CredentialsSource {
 public:
  explicit StaticCredentialsSource(Credentials credentials);

  Result<std::shared_ptr<const Credentials>> Current() override;
  /// \brief "static"; stores with static credentials are told apart by the registry's
  /// secrets fingerprint, not by this id.
  std::string id() const override;
  /// \brief "StaticCredentials(AwsCredentials{access_key_id=AKIA…, ...})", or
  /// "StaticCredentials(anonymous)".
  std::string ToString() const override;

 private:
  std::shared_ptr<const Credentials> credentials_;
};

}  // namespace lance::io

// SPDX-License-Identifier: Apache-2.0
/// \file credentials.h
/// \brief CredentialsSource: what a remote store asks for credentials on every request.
///
/// The credentials seam: a store never copies keys in at construction; it holds a
/// source and calls Current() for each request it signs (each attempt of a retry too),
/// so a source that refreshes (the namespace-backed one of the credential-refresh
/// design) hot-swaps key id, secret and session token under a live store.

#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "lance/io/storage_options.h"
#include "lance/result.h"

namespace lance::io {

namespace s3 {

/// \brief Long-term or temporary AWS credentials: what a CredentialsSource hands out and
/// what S3 requests are signed with.
///
/// Never log the struct's fields directly; ToString() redacts them.
struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  /// \brief Session token of temporary credentials; empty for long-term ones.
  std::string session_token;

  /// \brief A loggable form: the key id redacted as RedactOptionValue does for
  /// identifiers (its first 4 characters), the secret and the token never (only whether
  /// a token is present).
  std::string ToString() const;
};

}  // namespace s3

/// \brief Looks up an environment variable (s3::ProcessEnv() reads the process's); null:
/// no environment.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

/// \brief The AWS credentials of a storage-options map: key id, secret and session token
/// under every alias of kCredentialOptionKeys (CredentialSettings: the one list), values
/// trimmed. Only when the options name none of them, AWS_ACCESS_KEY_ID,
/// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN from `env` (a lone token is ignored):
/// credentials come from one place only, a key id from the options never pairs with a
/// secret from the environment. Other options are ignored.
/// \return the credentials (empty key id when there are none); Invalid for a key id
/// without secret or vice versa, a token without key id, or two aliases with different
/// values (naming the keys, never a secret value).
Result<s3::AwsCredentials> CredentialsFromStorageOptions(const StorageOptions& options,
                                                         const EnvLookup& env = nullptr);

/// \brief Supplies the credentials of a remote store, request by request.
///
/// Thread-safe: Current() and OnRejected() may be called concurrently from any number
/// of threads. Implementations must make Current() cheap (it sits on every request).
class CredentialsSource {
 public:
  virtual ~CredentialsSource() = default;

  /// \brief The credentials to sign the next request with. An empty access key id means
  /// "send the request unsigned" (anonymous access).
  /// \return the credentials (shared, immutable); an error if none are available (for
  /// example expired credentials whose refresh failed), which fails the request.
  virtual Result<std::shared_ptr<const s3::AwsCredentials>> Current() = 0;

  /// \brief The server rejected `rejected` (expired or unknown token/key). A source that
  /// can refresh fetches new credentials and returns them; the caller retries the
  /// request once with them.
  /// \return fresh credentials; or the status to fail the request with. The default
  /// (sources that cannot refresh) returns Unauthorized: the request fails.
  virtual Result<std::shared_ptr<const s3::AwsCredentials>> OnRejected(
      const s3::AwsCredentials& rejected);

  /// \brief Identity of the source, part of the registry's store cache key: two stores
  /// with sources of different ids never share. Never contains a secret.
  virtual std::string id() const = 0;

  /// \brief One line for logs; never contains a secret.
  virtual std::string ToString() const = 0;
};

/// \brief Fixed credentials (from storage options or the environment).
class StaticCredentialsSource final : public CredentialsSource {
 public:
  explicit StaticCredentialsSource(s3::AwsCredentials credentials);

  Result<std::shared_ptr<const s3::AwsCredentials>> Current() override;
  /// \brief "static"; stores with static credentials are told apart by the registry's
  /// secrets fingerprint, not by this id.
  std::string id() const override;
  /// \brief "StaticCredentials(AwsCredentials{access_key_id=AKIA…, ...})".
  std::string ToString() const override;

 private:
  std::shared_ptr<const s3::AwsCredentials> credentials_;
};

}  // namespace lance::io

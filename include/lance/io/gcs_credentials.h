// SPDX-License-Identifier: Apache-2.0
/// \file gcs_credentials.h
/// \brief Google Cloud Storage credentials: the bearer token a CredentialsSource hands
/// the GCS store, service-account keys, the signed JWT they are exchanged with, and
/// GoogleOAuthCredentialsSource, which fetches, caches and refreshes OAuth tokens.
///
/// A service-account key ("type": "service_account": client_email, private_key (PEM),
/// private_key_id, token_uri) is turned into an access token by the JWT-bearer grant
/// (RFC 7523): a JWT signed with the key (RS256; claims iss = client_email, scope, aud =
/// token_uri, iat, exp = iat + 1 h) is POSTed to token_uri as
/// grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<jwt>, and the
/// answer's access_token / expires_in are cached. An "authorized_user" file (client_id,
/// client_secret, refresh_token; what `gcloud auth application-default login` writes)
/// uses the refresh-token grant at the same endpoint.

#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "lance/core/clock.h"
#include "lance/io/credentials.h"
#include "lance/result.h"

namespace lance::io::gcs {

/// \brief What a CredentialsSource hands out (io::Credentials); the GCS store reads its
/// `google` part. Everything GCS reads or builds goes through these three names.
using SeamCredentials = Credentials;
/// \brief The OAuth bearer token of `credentials` (empty: send requests unauthenticated).
const std::string& BearerTokenOf(const SeamCredentials& credentials);
/// \brief Credentials whose Google part is `token`.
SeamCredentials BearerCredentials(std::string token);

/// \brief The OAuth scope the store asks for.
inline constexpr std::string_view kReadWriteScope =
    "https://www.googleapis.com/auth/devstorage.read_write";
/// \brief Google's token endpoint (a key's token_uri usually names it).
inline constexpr std::string_view kDefaultTokenUri =
    "https://oauth2.googleapis.com/token";

/// \brief A Google credentials file: a service-account key or an authorized user.
/// Never log the struct; ToString() redacts it.
struct GoogleCredentialsFile {
  enum class Type { kServiceAccount, kAuthorizedUser };
  Type type = Type::kServiceAccount;
  // service_account
  std::string client_email;
  std::string private_key;  ///< PEM (PKCS#8 or PKCS#1 RSA)
  std::string private_key_id;
  // authorized_user
  std::string client_id;
  std::string client_secret;
  std::string refresh_token;
  /// \brief Where tokens are fetched (kDefaultTokenUri when the file names none).
  std::string token_uri;
  /// \brief object_store's emulator fields: the storage base URL to use, and "send
  /// requests without a token" (disable_oauth).
  std::string gcs_base_url;
  bool disable_oauth = false;

  /// \brief "GoogleCredentialsFile(service_account, client_email=...,
  /// private_key_id=ab12…, token_uri=...)": never the private key, secret or refresh
  /// token.
  std::string ToString() const;
};

/// \brief Parses a credentials file's JSON. A missing "type" with a client_email and a
/// private_key is a service account (object_store accepts such keys), so is an emulator
/// key with disable_oauth.
/// \return Invalid naming the missing or malformed field, never a secret's value.
Result<GoogleCredentialsFile> ParseGoogleCredentialsFile(std::string_view json);

/// \brief Reads and parses the file at `path`. \return IOError naming the path; Invalid.
Result<GoogleCredentialsFile> ReadGoogleCredentialsFile(const std::string& path);

/// \brief The signed JWT (RS256) of a service account's token request: header {"alg":
/// "RS256","typ":"JWT","kid":private_key_id}, claims {"iss": client_email, "scope":
/// scope, "aud": token_uri, "iat": now, "exp": now + lifetime}.
/// \return the compact JWT; Invalid for a malformed private key (message without it).
Result<std::string> BuildServiceAccountJwt(
    const GoogleCredentialsFile& key, std::string_view scope,
    std::chrono::system_clock::time_point now,
    std::chrono::seconds lifetime = std::chrono::seconds(3600));

/// \brief Fetches OAuth access tokens for a credentials file and hands them out as
/// SeamCredentials, cached until `refresh_margin` before they expire. Thread-safe; one
/// fetch at a time (callers that find the token stale while a fetch runs wait for its
/// result instead of fetching again). A failed fetch keeps serving the cached token while
/// it has not expired.
class GoogleOAuthCredentialsSource final : public CredentialsSource {
 public:
  struct Options {
    /// \brief Overrides the file's token_uri (tests; "lance_cpp_google_token_uri").
    std::string token_uri;
    std::string scope = std::string(kReadWriteScope);
    /// \brief Refresh this long before expiry (at most half the token's lifetime).
    std::chrono::seconds refresh_margin{60};
    std::chrono::milliseconds connect_timeout{5'000};
    std::chrono::milliseconds request_timeout{30'000};
    bool allow_http = false;
    bool allow_invalid_certificates = false;
    std::shared_ptr<Clock> clock;  ///< null: the real clock
  };

  /// \return the source; Invalid for a file without what its grant needs, or an http://
  /// token endpoint without allow_http.
  static Result<std::shared_ptr<GoogleOAuthCredentialsSource>> Make(
      GoogleCredentialsFile file, Options options);
  ~GoogleOAuthCredentialsSource() override;

  Result<std::shared_ptr<const SeamCredentials>> Current() override;
  /// \brief Fetches a new token unless the cached one already differs from `rejected`.
  Result<std::shared_ptr<const SeamCredentials>> OnRejected(
      const SeamCredentials& rejected) override;
  /// \brief "google-oauth:<client_email or client_id>".
  std::string id() const override;
  /// \brief "GoogleOAuthCredentials(service_account client_email=..., token_uri=...)".
  std::string ToString() const override;

  /// \brief Token fetches made so far (tests).
  int64_t fetches() const;

 private:
  struct Impl;
  explicit GoogleOAuthCredentialsSource(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lance::io::gcs

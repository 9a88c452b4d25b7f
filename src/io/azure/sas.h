// SPDX-License-Identifier: Apache-2.0
// Shared access signatures for Blob storage (private to the io layer; the namespace's
// credential vendor uses it too): the service SAS, signed with the account key, and the
// user-delegation SAS, signed with a user delegation key (AzureClient::
// GetUserDelegationKey). Both are scoped to a container (sr=c), a blob (sr=b) or, on
// accounts with a hierarchical namespace, a directory (sr=d with its depth sdd).
//
// String to sign, versions 2020-12-06 and later ("Create a service SAS", "Create a user
// delegation SAS"), fields joined by "\n": service SAS
//   sp st se canonicalizedResource si sip spr sv sr snapshot ses rscc rscd rsce rscl rsct
// user delegation SAS
//   sp st se canonicalizedResource skoid sktid skt ske sks skv saoid suoid scid sip spr
//   sv sr snapshot ses rscc rscd rsce rscl rsct
// with canonicalizedResource "/blob/<account>/<container>[/<blob or directory>]". The
// signature is base64(HMAC-SHA256(base64-decoded key, string to sign)).
//
// A SAS is a bearer secret: its `sig` parameter must never reach a log or a message
// (RedactSas; io::http::RedactUrl does the same for URLs).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "lance/result.h"

namespace lance::io::azure {

/// \brief The SAS version these functions sign for ("sv").
inline constexpr std::string_view kSasVersion = "2021-08-06";

/// \brief The permission letters of the access levels Lance's vendor grants: read = r+l,
/// write = +a,c,w, admin = +d (in the canonical order of the Blob service).
inline constexpr std::string_view kSasReadPermissions = "rl";
inline constexpr std::string_view kSasWritePermissions = "racwl";
inline constexpr std::string_view kSasAdminPermissions = "racwdl";

/// \brief What a SAS grants access to ("sr").
enum class SasResource {
  kContainer,  ///< "c": every blob of the container
  kDirectory,  ///< "d": a directory and its subtree (hierarchical namespace only)
  kBlob,       ///< "b": one blob
};

struct SasOptions {
  std::string account;
  std::string container;
  SasResource resource = SasResource::kContainer;
  /// \brief The blob (kBlob) or the directory (kDirectory, no leading or trailing '/');
  /// empty for kContainer.
  std::string path;
  /// \brief Permission letters, any order, from "racwdxyltmeopi" ("sp").
  std::string permissions;
  /// \brief "st"; absent: valid from when it is issued.
  std::optional<std::chrono::system_clock::time_point> start;
  /// \brief "se".
  std::chrono::system_clock::time_point expiry;
  /// \brief "spr": "" (any), "https" or "https,http".
  std::string protocol;
  /// \brief "sip": "" (any), an address or "a-b".
  std::string ip_range;
  std::string version = std::string(kSasVersion);
};

/// \brief A user delegation key (Get User Delegation Key's answer). `value` is secret:
/// never log it (ToString redacts it).
struct UserDelegationKey {
  std::string signed_oid;      ///< skoid
  std::string signed_tid;      ///< sktid
  std::string signed_start;    ///< skt, ISO 8601
  std::string signed_expiry;   ///< ske, ISO 8601
  std::string signed_service;  ///< sks ("b")
  std::string signed_version;  ///< skv
  std::string value;           ///< base64 key

  /// \brief "UserDelegationKey(oid=.., tid=.., start=.., expiry=.., value=<redacted>)".
  std::string ToString() const;
};

/// \brief `letters` checked against "racwdxyltmeopi" and put in that (canonical) order,
/// duplicates dropped. \return Invalid naming the first unknown letter.
Result<std::string> NormalizeSasPermissions(std::string_view letters);

/// \brief The string to sign of a service SAS (for tests and diagnostics).
/// \return Invalid for a malformed scope (empty account or container, a path on a
/// container SAS, none on a blob or directory SAS) or bad permissions.
Result<std::string> ServiceSasStringToSign(const SasOptions& options);
/// \brief The service SAS query string (without '?'), signed with `account_key`
/// (base64): "sv=...&st=...&se=...&sr=...&sp=...[&sdd=..][&sip=..][&spr=..]&sig=...".
/// \return Invalid as above or for a key that is not base64 (never quoting it).
Result<std::string> MakeServiceSas(const SasOptions& options,
                                   std::string_view account_key);

/// \brief The string to sign of a user-delegation SAS.
Result<std::string> UserDelegationSasStringToSign(const SasOptions& options,
                                                  const UserDelegationKey& key);
/// \brief The user-delegation SAS query string (skoid, sktid, skt, ske, sks, skv added).
Result<std::string> MakeUserDelegationSas(const SasOptions& options,
                                          const UserDelegationKey& key);

/// \brief `text` with the value of every `sig=` parameter replaced by "<redacted>" (a
/// SAS, a URL, or a message holding either).
std::string RedactSas(std::string_view text);

/// \brief When the SAS `sas` expires ("se"), if it says.
std::optional<std::chrono::system_clock::time_point> SasExpiry(std::string_view sas);

}  // namespace lance::io::azure

// SPDX-License-Identifier: Apache-2.0
/// \file credential_vendor.h
/// \brief Credential vending: temporary credentials scoped to one table's location, as
/// Lance's `credential_vendor.*` of the directory namespace (lance-namespace-impls
/// `credentials/aws.rs`, #5566).
///
/// A DirectoryNamespace with `credential_vendor.enabled=true` answers describe_table /
/// declare_table (with vend_credentials not false) with the credentials of
/// `CredentialVendor::Vend(location, permission)` instead of its own root options:
/// `aws_access_key_id`, `aws_secret_access_key`, `aws_session_token`,
/// `expires_at_millis`, `refresh_offset_millis` (plus the root's non-credential options:
/// endpoint, region, allow_http; never the root's own keys). describe_table vends
/// `credential_vendor.permission`; declare_table / create_empty_table at least write (the
/// client writes the table it declared). With vend_credentials=false the answer has no
/// storage options. docs/rest.md has the policy and the cache rules.

#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "lance/core/clock.h"
#include "lance/io/azure_sas.h"
#include "lance/io/credentials.h"
#include "lance/namespace/namespace.h"
#include "lance/result.h"

namespace lance::ns {

/// \brief OK when `text` (a table or namespace name, or a location) holds nothing an
/// access-policy language reads as more than itself: IAM's wildcards `*` and `?` and its
/// policy variables `${...}` (S3 resource ARNs and `s3:prefix` conditions), and no
/// control character, and is valid UTF-8. A scope built from such a name would cover more
/// than the literal prefix (a table `*` at the root would get every root table), so names
/// and locations holding one are refused, and the vendor checks its prefix again. A '$'
/// alone stays allowed: Lance's own directory names hold it ("1ce3c3c6_ns$t"). GCS access
/// boundaries put the prefix in a single-quoted CEL string, so a quote (' or ") or a
/// backslash is refused as well; Azure SAS scopes are containers or directories, whose
/// names the vendor checks against the Blob service's rules. \return InvalidInput
/// naming `what` and the character otherwise.
Status CheckPolicySafeName(std::string_view text, std::string_view what);

/// \brief "read" / "write" / "admin" (case-insensitive). \return InvalidInput otherwise.
Result<VendPermission> ParseVendPermission(std::string_view text);
std::string_view VendPermissionName(VendPermission permission);

/// \brief Temporary credentials as storage options.
struct VendedCredentials {
  /// \brief aws_access_key_id, aws_secret_access_key, aws_session_token,
  /// expires_at_millis, refresh_offset_millis (and aws_region when configured).
  Properties storage_options;
  /// \brief When the STS answer says they expire (epoch ms).
  int64_t expires_at_millis = 0;
};

/// \brief Hands out credentials for a table location. Thread-safe.
class CredentialVendor {
 public:
  virtual ~CredentialVendor() = default;
  /// \brief Credentials allowed on `location` (an s3:// URI: the table's prefix) and
  /// nothing else, with `permission`.
  virtual Result<VendedCredentials> Vend(const std::string& location,
                                         VendPermission permission) = 0;
  /// \brief For namespace_id / logs; no secret.
  virtual std::string ToString() const = 0;
};

/// \brief The `credential_vendor.*` properties (Lance's names where Lance has them).
struct AwsCredentialVendorOptions {
  /// \brief `credential_vendor.aws_role_arn` (required).
  std::string role_arn;
  std::optional<std::string> external_id;  ///< `.aws_external_id`
  std::string region = "us-east-1";        ///< `.aws_region`
  std::string role_session_name =
      "lance-credential-vendor";  ///< `.aws_role_session_name`
  /// \brief `.aws_duration_millis` (Lance: default 1 h, 15 min .. 12 h).
  int64_t duration_millis = 3'600'000;
  /// \brief `.permission` (default read).
  VendPermission default_permission = VendPermission::kRead;
  /// \brief `.aws_sts_endpoint`: the STS endpoint (default: the root's `aws_endpoint`
  /// storage option, else AWS's regional endpoint).
  std::string sts_endpoint;
  /// \brief `.reported_lifetime_millis` (ours, for tests): report expires_at_millis as
  /// now + this instead of the STS expiry (RGW's minimum duration is 900 s).
  std::optional<int64_t> reported_lifetime_millis;
  /// \brief `.refresh_offset_millis` (ours): returned to clients as
  /// refresh_offset_millis (default 60 000).
  int64_t refresh_offset_millis = 60'000;
  /// \brief The long-term credentials that call AssumeRole: the root's storage options
  /// (`aws_access_key_id`, `aws_secret_access_key`, `aws_session_token`), else the
  /// environment.
  Properties caller_storage_options;
};

/// \brief The STS session policy that narrows a role to the objects under
/// `bucket`/`prefix`/ (Get + GetVersion; write: + Put and the multipart actions; admin:
/// + Delete), ListBucket only with s3:prefix `prefix/` or `prefix/*` (never the bare
/// prefix, which would list a sibling `prefix2/`), and GetBucketLocation. Compact JSON.
/// REQUIRES: `prefix` non-empty, without leading or trailing '/', and policy-safe
/// (CheckPolicySafeName): the vendor checks both before it calls this.
std::string AwsScopedSessionPolicy(const std::string& bucket, const std::string& prefix,
                                   VendPermission permission);

/// \brief AssumeRole on the S3 server's STS with a session policy scoped to the
/// location's bucket/prefix (policy JSON sent compact: RGW does not decode '+').
Result<std::shared_ptr<CredentialVendor>> MakeAwsCredentialVendor(
    AwsCredentialVendorOptions options);

/// \brief The `credential_vendor.gcp_*` properties.
struct GcpCredentialVendorOptions {
  /// \brief `.gcp_sts_endpoint` (ours; tests point it at a local stand-in): Google's
  /// Security Token Service, where the namespace's token is exchanged.
  std::string sts_endpoint = "https://sts.googleapis.com/v1/token";
  /// \brief `.permission` (default read).
  VendPermission default_permission = VendPermission::kRead;
  /// \brief `.reported_lifetime_millis` (ours, for tests): report expires_at_millis as
  /// at most now + this.
  std::optional<int64_t> reported_lifetime_millis;
  /// \brief `.refresh_offset_millis` (ours), returned as refresh_offset_millis.
  int64_t refresh_offset_millis = 60'000;
  /// \brief The namespace's own Google credentials (their google.bearer_token is the
  /// token that is downscoped): a source over the root's options.
  std::shared_ptr<io::CredentialsSource> caller;
};

/// \brief The Credential Access Boundary (compact JSON) that narrows a Google token to
/// the objects under `bucket`/`prefix`/ and to listings whose prefix starts with
/// `prefix`/ (never the bare prefix, which would reach a sibling `prefix2/`), with the
/// predefined roles of `permission`: read objectViewer, write + objectCreator, admin
/// objectAdmin. REQUIRES: `prefix` non-empty, without leading or trailing '/', and
/// policy-safe (CheckPolicySafeName: no quote can end the CEL string).
std::string GcsCredentialAccessBoundary(const std::string& bucket,
                                        const std::string& prefix,
                                        VendPermission permission);

/// \brief Downscoped tokens: the caller's token exchanged at the STS endpoint with the
/// boundary of GcsCredentialAccessBoundary; vended as `google_storage_token` with
/// `expires_at_millis` (the answer's expires_in) and `refresh_offset_millis`.
Result<std::shared_ptr<CredentialVendor>> MakeGcpCredentialVendor(
    GcpCredentialVendorOptions options);

/// \brief The storage option in which a vendor says what its credentials reach when
/// that is wider than the table (ours): "container:<container>" for an Azure SAS on a
/// flat account, "directory:<container>/<dir>" when the SAS is the table's own. A plain
/// option (ClassifyOptionKey): shown and logged as is.
inline constexpr std::string_view kVendedScopeKey = "lance_cpp_vended_scope";

/// \brief The `credential_vendor.azure_*` properties (Lance's names where Lance has
/// them).
struct AzureCredentialVendorOptions {
  /// \brief `.azure_account_name`: the account SAS tokens are signed for (default: the
  /// root's azure_storage_account_name).
  std::string account_name;
  /// \brief `.azure_duration_millis` (Lance: default 1 h, at most 7 days).
  int64_t duration_millis = 3'600'000;
  /// \brief `.azure_hierarchical_namespace` (ours): auto (ask the account), true, false.
  io::azure::HierarchicalNamespace hierarchical_namespace =
      io::azure::HierarchicalNamespace::kAuto;
  /// \brief `.permission` (default read).
  VendPermission default_permission = VendPermission::kRead;
  /// \brief `.reported_lifetime_millis` (ours, for tests): mint SAS tokens that live at
  /// most this long (so that they really expire during a test).
  std::optional<int64_t> reported_lifetime_millis;
  /// \brief `.refresh_offset_millis` (ours), returned as refresh_offset_millis.
  int64_t refresh_offset_millis = 60'000;
  /// \brief The namespace's own Azure options (account key or OAuth credentials sign).
  Properties caller_storage_options;
};

/// \brief SAS tokens per table (io::azure::SasMinter): a directory SAS where the account
/// has a hierarchical namespace, else a container SAS (logged, and said in
/// kVendedScopeKey); returned as azure_storage_sas_token, azure_storage_account_name,
/// expires_at_millis, refresh_offset_millis.
Result<std::shared_ptr<CredentialVendor>> MakeAzureCredentialVendor(
    AzureCredentialVendorOptions options);

/// \brief A cache in front of `inner`, keyed by (location, permission): an entry is
/// reused until half its lifetime has passed (capped at 30 min); credentials with less
/// than a minute left are not cached (Lance's CachingCredentialVendor). Concurrent
/// misses for one key make one Vend (single-flight).
std::shared_ptr<CredentialVendor> MakeCachingCredentialVendor(
    std::shared_ptr<CredentialVendor> inner, std::shared_ptr<Clock> clock = nullptr);

/// \brief Builds the vendor of `credential_vendor.*` properties (prefix included in the
/// keys), given the root's storage options. \return nullptr when
/// `credential_vendor.enabled` is not "true"; InvalidInput for a missing role ARN or a
/// bad number / permission.
Result<std::shared_ptr<CredentialVendor>> CredentialVendorFromProperties(
    const Properties& properties, const Properties& root_storage_options);

}  // namespace lance::ns

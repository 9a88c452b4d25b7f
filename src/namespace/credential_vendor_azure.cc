// SPDX-License-Identifier: Apache-2.0
// The Azure credential vendor (credential_vendor.h): a SAS per table, minted by
// io::azure::SasMinter with the namespace's own account key or OAuth credentials, with
// Lance's permission letters (read = r+l, write = +a,c,w, admin = +d) and Lance's option
// names in the answer (azure_storage_sas_token + azure_storage_account_name).

#include <string>
#include <utility>

#include "lance/core/clock.h"
#include "lance/io/azure_sas.h"
#include "lance/io/uri.h"
#include "lance/macros.h"
#include "lance/namespace/credential_vendor.h"
#include "lance/str_cat.h"

namespace lance::ns {

namespace {

constexpr int64_t kMaxAzureDurationMillis = 7LL * 24 * 3'600'000;  // Azure: 7 days

// Lance's SAS permission letters of each VendPermission (kRead, kWrite, kAdmin): read
// lists and reads, write also adds, creates and writes, admin also deletes.
constexpr std::string_view kSasPermissionLetters[] = {"rl", "racwl", "racwdl"};

std::string_view SasPermissionLetters(VendPermission permission) {
  return kSasPermissionLetters[static_cast<size_t>(permission)];
}

struct AzureLocation {
  std::string container;
  std::string directory;  // no leading or trailing '/'
  std::string account;    // named by an abfss:// authority, else empty
};

Result<AzureLocation> ParseAzureLocation(const std::string& location) {
  Result<io::Uri> uri = io::ParseUri(location);
  const bool azure = uri.ok() && (uri->scheme == "az" || uri->scheme == "azure" ||
                                  uri->scheme == "abfs" || uri->scheme == "abfss");
  if (!azure || uri->authority.empty()) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          StrCat("cannot vend Azure credentials for '", location,
                                 "': not an az://, azure:// or abfss:// location"));
  }
  AzureLocation out;
  out.container = uri->authority;
  // abfss://container@account.dfs.core.windows.net/path
  if (size_t at = out.container.find('@'); at != std::string::npos) {
    std::string host = out.container.substr(at + 1);
    out.container.resize(at);
    out.account = host.substr(0, host.find('.'));
  }
  out.directory = uri->path;
  while (!out.directory.empty() && out.directory.back() == '/') out.directory.pop_back();
  return out;
}

class AzureCredentialVendor final : public CredentialVendor {
 public:
  AzureCredentialVendor(AzureCredentialVendorOptions options,
                        std::shared_ptr<io::azure::SasMinter> minter)
      : options_(std::move(options)), minter_(std::move(minter)) {}

  Result<VendedCredentials> Vend(const std::string& location,
                                 VendPermission permission) override {
    LANCE_ASSIGN_OR_RAISE(AzureLocation where, ParseAzureLocation(location));
    if (where.directory.empty()) {
      return NamespaceError(ErrorCode::kInvalidInput,
                            StrCat("cannot vend credentials for ", location,
                                   ": it is a whole container, not a table's directory"));
    }
    if (!where.account.empty() && where.account != minter_->account()) {
      return NamespaceError(
          ErrorCode::kInvalidInput,
          StrCat("cannot vend credentials for ", location, ": it is in account '",
                 where.account, "', the vendor signs for '", minter_->account(), "'"));
    }
    LANCE_RETURN_NOT_OK(CheckPolicySafeName(where.directory, "the location " + location)
                            .WithContext("vending credentials"));
    int64_t lifetime = options_.duration_millis;
    if (options_.reported_lifetime_millis) {
      // Tests want tokens that really expire soon: mint them that short.
      lifetime = std::min(lifetime, *options_.reported_lifetime_millis);
    }
    Result<io::azure::SasGrant> grant =
        minter_->Mint(where.container, where.directory, SasPermissionLetters(permission),
                      std::chrono::milliseconds(lifetime));
    if (!grant.ok()) {
      const bool invalid = grant.status().IsInvalid();
      Status error = grant.status().WithContext(StrCat(
          "vending ", VendPermissionName(permission), " credentials for ", location));
      return invalid ? NamespaceError(ErrorCode::kInvalidInput, error.message()) : error;
    }
    VendedCredentials out;
    out.expires_at_millis = grant->expires_at_millis;
    Properties& so = out.storage_options;
    so["azure_storage_sas_token"] = std::move(grant->sas_token);
    so["azure_storage_account_name"] = grant->account;
    so["expires_at_millis"] = std::to_string(grant->expires_at_millis);
    so["refresh_offset_millis"] = std::to_string(options_.refresh_offset_millis);
    // Said in the answer: on a flat account the SAS reaches the whole container.
    so[std::string(kVendedScopeKey)] =
        StrCat(io::azure::SasScopeName(grant->scope), ":", grant->scoped_to);
    return out;
  }

  std::string ToString() const override {
    return StrCat("AzureCredentialVendor { ", minter_->ToString(), " }");
  }

 private:
  const AzureCredentialVendorOptions options_;
  const std::shared_ptr<io::azure::SasMinter> minter_;
};

}  // namespace

Result<std::shared_ptr<CredentialVendor>> MakeAzureCredentialVendor(
    AzureCredentialVendorOptions options) {
  if (options.duration_millis <= 0 || options.duration_millis > kMaxAzureDurationMillis) {
    return NamespaceError(
        ErrorCode::kInvalidInput,
        StrCat("credential_vendor.azure_duration_millis must be between "
               "1 and 604800000 (7 days), got ",
               options.duration_millis));
  }
  if (options.reported_lifetime_millis && *options.reported_lifetime_millis <= 0) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          "credential_vendor.reported_lifetime_millis must be positive");
  }
  Result<std::shared_ptr<io::azure::SasMinter>> minter =
      io::azure::SasMinter::Make(options.caller_storage_options, options.account_name,
                                 options.hierarchical_namespace);
  if (!minter.ok()) {
    return NamespaceError(
        ErrorCode::kInvalidInput,
        minter.status().WithContext("setting up Azure credential vending").message());
  }
  return std::shared_ptr<CredentialVendor>(
      std::make_shared<AzureCredentialVendor>(std::move(options), std::move(*minter)));
}

}  // namespace lance::ns

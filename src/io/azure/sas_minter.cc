// SPDX-License-Identifier: Apache-2.0
// SasMinter (azure_sas.h): service SAS with an account key, user-delegation SAS with an
// OAuth token, at the narrowest scope the account offers.

#include <algorithm>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "io/azure/azure_client.h"
#include "io/azure/sas.h"
#include "lance/core/logging.h"
#include "lance/io/azure_object_store.h"
#include "lance/io/azure_options.h"
#include "lance/io/azure_sas.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io::azure {

namespace {

using Clock = std::chrono::system_clock;

// Valid from a little before now, as Microsoft recommends: a client whose clock runs
// behind the service's would otherwise be refused at first.
constexpr std::chrono::minutes kClockSkew{5};
constexpr std::chrono::hours kMaxLifetime{24 * 7};  // user delegation keys: 7 days
// A delegation key is fetched for at least this long, so that minting for many tables
// does not fetch one per SAS.
constexpr std::chrono::hours kMinDelegationKeyLifetime{1};

Status ValidateDirectory(const std::string& directory) {
  if (directory.empty()) {
    return Status::Invalid(
        "a table's SAS needs its directory (a whole container is not "
        "a table)");
  }
  if (directory.front() == '/' || directory.back() == '/' ||
      directory.find("//") != std::string::npos) {
    return Status::Invalid("the directory '", directory, "' is not a relative path");
  }
  for (std::string_view segment : {std::string_view("."), std::string_view("..")}) {
    // A "." or ".." segment would name another directory than the one it spells.
    const std::string s(segment);
    if (directory == s || directory.rfind(s + "/", 0) == 0 ||
        directory.find("/" + s + "/") != std::string::npos ||
        (directory.size() > s.size() && directory.compare(directory.size() - s.size() - 1,
                                                          s.size() + 1, "/" + s) == 0)) {
      return Status::Invalid("the directory '", directory, "' has a '", s, "' segment");
    }
  }
  return Status::OK();
}

class SasMinterImpl final : public SasMinter {
 public:
  SasMinterImpl(std::shared_ptr<AzureClient> client, HierarchicalNamespace hns)
      : client_(std::move(client)), hns_(hns) {}

  Result<SasGrant> Mint(const std::string& container, const std::string& directory,
                        std::string_view permissions,
                        std::chrono::milliseconds lifetime) override {
    const std::string what = StrCat("minting a SAS for az://", container, "/", directory,
                                    " of account ", account());
    LANCE_RETURN_NOT_OK(ValidateContainerName(container).WithContext(what));
    LANCE_RETURN_NOT_OK(ValidateDirectory(directory).WithContext(what));
    if (lifetime <= std::chrono::milliseconds(0) || lifetime > kMaxLifetime) {
      return Status::Invalid(what, ": the lifetime must be positive and at most 7 days");
    }
    LANCE_ASSIGN_OR_RAISE(bool hns, HasHierarchicalNamespace());
    SasOptions sas;
    sas.account = account();
    sas.container = container;
    if (hns) {
      sas.resource = SasResource::kDirectory;
      sas.path = directory;
    } else {
      sas.resource = SasResource::kContainer;
      WarnContainerScopeOnce(container);
    }
    sas.permissions = std::string(permissions);
    const auto now = Clock::now();
    sas.start = now - kClockSkew;
    // The SAS says its expiry in whole seconds: report exactly that instant, so that a
    // client refreshing before it never holds a SAS the service already refuses.
    sas.expiry = std::chrono::floor<std::chrono::seconds>(
        now + std::chrono::duration_cast<Clock::duration>(lifetime));
    sas.protocol = client_->options().allow_http ? "" : "https";
    LANCE_ASSIGN_OR_RAISE(auto credentials, client_->credentials()->Current());
    Result<std::string> token = Status::Invalid("no credentials");
    if (!credentials->azure.account_key.empty()) {
      token = MakeServiceSas(sas, credentials->azure.account_key);
    } else if (!credentials->azure.bearer_token.empty()) {
      LANCE_ASSIGN_OR_RAISE(UserDelegationKey key, DelegationKey(sas.expiry));
      token = MakeUserDelegationSas(sas, key);
    } else {
      return Status::Invalid(what,
                             ": the namespace's credentials can sign no SAS (give "
                             "it an account key or OAuth credentials)");
    }
    if (!token.ok()) return token.status().WithContext(what);
    SasGrant out;
    out.sas_token = std::move(*token);
    out.account = account();
    out.scope = hns ? SasScope::kDirectory : SasScope::kContainer;
    out.scoped_to = hns ? StrCat(container, "/", directory) : container;
    out.expires_at_millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                                sas.expiry.time_since_epoch())
                                .count();
    return out;
  }

  const std::string& account() const override { return client_->options().account; }

  std::string ToString() const override {
    return StrCat("SasMinter(account=", account(),
                  ", endpoint=", client_->options().endpoint,
                  ", credentials=", client_->credentials()->ToString(), ")");
  }

 private:
  Result<bool> HasHierarchicalNamespace() {
    if (hns_ == HierarchicalNamespace::kYes) return true;
    if (hns_ == HierarchicalNamespace::kNo) return false;
    std::lock_guard<std::mutex> lock(mu_);
    if (!hns_answer_.has_value()) {
      Result<bool> answer = client_->IsHierarchicalNamespace();
      if (!answer.ok()) {
        return answer.status().WithContext(StrCat("asking Azure account ", account(),
                                                  " whether it has a hierarchical "
                                                  "namespace"));
      }
      hns_answer_ = *answer;
    }
    return *hns_answer_;
  }

  void WarnContainerScopeOnce(const std::string& container) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!warned_.insert(container).second) return;
    LANCE_LOG(Warn, "azure")
        << "Azure account " << account()
        << " has no hierarchical namespace: a SAS cannot be scoped to a table's "
           "directory there, so SAS tokens vended for tables of container '"
        << container << "' reach the whole container";
  }

  Result<UserDelegationKey> DelegationKey(Clock::time_point needed_until) {
    std::lock_guard<std::mutex> lock(mu_);
    if (key_.has_value() && key_expiry_ >= needed_until) return *key_;
    const auto now = Clock::now();
    const auto until = std::min(now + kMaxLifetime - kClockSkew,
                                std::max(needed_until, now + kMinDelegationKeyLifetime));
    LANCE_ASSIGN_OR_RAISE(UserDelegationKey key,
                          client_->GetUserDelegationKey(now - kClockSkew, until));
    key_ = key;
    key_expiry_ = until;
    return key;
  }

  const std::shared_ptr<AzureClient> client_;
  const HierarchicalNamespace hns_;
  std::mutex mu_;
  std::optional<bool> hns_answer_;
  std::set<std::string> warned_;
  std::optional<UserDelegationKey> key_;
  Clock::time_point key_expiry_;
};

}  // namespace

std::string_view SasScopeName(SasScope scope) {
  return scope == SasScope::kDirectory ? "directory" : "container";
}

Result<std::shared_ptr<SasMinter>> SasMinter::Make(const StorageOptions& root_options,
                                                   std::string_view account,
                                                   HierarchicalNamespace hns) {
  StorageOptions options = root_options;
  if (!account.empty()) options["azure_storage_account_name"] = std::string(account);
  Result<AzureOptions> parsed = ParseAzureOptions(options);
  if (!parsed.ok()) {
    return parsed.status().WithContext("reading the Azure options that mint SAS tokens");
  }
  LANCE_ASSIGN_OR_RAISE(auto source, MakeAzureCredentialsSource(*parsed));
  LANCE_ASSIGN_OR_RAISE(auto current, source->Current());
  if (current->azure.account_key.empty() && current->azure.bearer_token.empty()) {
    return Status::Invalid(
        "minting Azure SAS tokens needs the namespace's own account key "
        "(azure_storage_account_key) or OAuth credentials (azure_storage_token, or "
        "azure_client_id / azure_client_secret / azure_tenant_id); a SAS cannot mint "
        "another");
  }
  LANCE_ASSIGN_OR_RAISE(auto client,
                        AzureClient::Make("", std::move(*parsed), std::move(source)));
  return std::shared_ptr<SasMinter>(
      std::make_shared<SasMinterImpl>(std::move(client), hns));
}

}  // namespace lance::io::azure

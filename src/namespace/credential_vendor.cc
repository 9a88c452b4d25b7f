// SPDX-License-Identifier: Apache-2.0
// Credential vending (credential_vendor.h): AssumeRole with a session policy scoped to a
// table's location, a cache in front of it, and the `credential_vendor.*` properties.
//
// The policy follows Lance's AWS vendor (lance-namespace-impls credentials/aws.rs,
// #5566): objects under `arn:aws:s3:::BUCKET/PREFIX/*` (Get + GetVersion; + Put for
// write; + Delete for admin), ListBucket on the bucket only for the prefixes "PREFIX/*"
// and "PREFIX", and GetBucketLocation. Sent as compact JSON (RGW 16 does not decode '+'
// in the form body, see docs/rest.md).

#include "lance/namespace/credential_vendor.h"

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "lance/core/ascii.h"
#include "lance/core/enum_names.h"
#include "lance/io/gcs_object_store.h"
#include "lance/io/s3/s3_options.h"
#include "lance/io/s3/sts_client.h"
#include "lance/io/uri.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::ns {

namespace {

constexpr std::string_view kPrefix = "credential_vendor.";
constexpr int64_t kMinDurationMillis = 900'000;      // STS minimum: 15 min
constexpr int64_t kMaxDurationMillis = 43'200'000;   // STS maximum: 12 h
constexpr int64_t kMaxCacheTtlMillis = 30 * 60'000;  // Lance: at most 30 min
constexpr int64_t kMinCacheableLifeMillis = 60'000;  // Lance: < 1 min left: no cache

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

Result<int64_t> ParseMillis(const std::string& key, const std::string& value) {
  int64_t out = 0;
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, out);
  if (value.empty() || ec != std::errc() || ptr != end || out < 0) {
    return NamespaceError(ErrorCode::kInvalidInput, "property '" + key +
                                                        "' must be a non-negative "
                                                        "number of milliseconds, got '" +
                                                        value + "'");
  }
  return out;
}

struct S3Location {
  std::string bucket;
  std::string prefix;  // no leading or trailing '/'; may be empty (the whole bucket)
};

Result<S3Location> ParseS3Location(const std::string& location) {
  Result<io::Uri> uri = io::ParseUri(location);
  if (!uri.ok() || (uri->scheme != "s3" && uri->scheme != "s3a") ||
      uri->authority.empty()) {
    return NamespaceError(
        ErrorCode::kInvalidInput,
        "cannot vend AWS credentials for '" + location + "': not an s3:// location");
  }
  S3Location out{uri->authority, uri->path};
  while (!out.prefix.empty() && out.prefix.back() == '/') out.prefix.pop_back();
  return out;
}

}  // namespace

Status CheckPolicySafeName(std::string_view text, std::string_view what) {
  // A policy is JSON: text that is not UTF-8 cannot be written into it as itself.
  if (!IsValidUtf8(text)) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          std::string(what) + " is not valid UTF-8");
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "0x%02X", c);
      return NamespaceError(ErrorCode::kInvalidInput,
                            std::string(what) + " contains the control character " + hex +
                                ", which names may not contain");
    }
    if (c == '*' || c == '?') {
      return NamespaceError(ErrorCode::kInvalidInput,
                            std::string(what) + " contains '" + static_cast<char>(c) +
                                "', which access policies read as a wildcard (names may "
                                "not contain '*' or '?')");
    }
    if (c == '\'' || c == '"' || c == '\\') {
      return NamespaceError(ErrorCode::kInvalidInput,
                            StrCat(what, " contains '", static_cast<char>(c),
                                   "', which would end a quoted string of an access "
                                   "condition (names may not contain quotes or '\\')"));
    }
    if (c == '$' && i + 1 < text.size() && text[i + 1] == '{') {
      return NamespaceError(ErrorCode::kInvalidInput,
                            std::string(what) +
                                " contains '${', which access policies read as a policy "
                                "variable (names may not contain it)");
    }
  }
  return Status::OK();
}

constexpr auto kVendPermissionNames =
    MakeEnumNames<VendPermission>("read", "write", "admin");
static_assert(kVendPermissionNames.size() == EnumCount(VendPermission::kAdmin));

Result<VendPermission> ParseVendPermission(std::string_view text) {
  if (auto permission = kVendPermissionNames.Find(Lower(text))) return *permission;
  return NamespaceError(
      ErrorCode::kInvalidInput,
      "credential vending permission must be read, write or admin, got '" +
          std::string(text) + "'");
}

std::string_view VendPermissionName(VendPermission permission) {
  return kVendPermissionNames.Name(permission, "read");
}

namespace {}  // namespace

std::string AwsScopedSessionPolicy(const std::string& bucket, const std::string& prefix,
                                   VendPermission permission) {
  using nlohmann::json;
  json object_actions = json::array({"s3:GetObject", "s3:GetObjectVersion"});
  if (permission != VendPermission::kRead) {
    object_actions.push_back("s3:PutObject");
    object_actions.push_back("s3:AbortMultipartUpload");
    object_actions.push_back("s3:ListMultipartUploadParts");
  }
  if (permission == VendPermission::kAdmin) {
    object_actions.push_back("s3:DeleteObject");
    object_actions.push_back("s3:DeleteObjectVersion");
  }
  const std::string bucket_arn = "arn:aws:s3:::" + bucket;
  const std::string objects_arn = bucket_arn + "/" + prefix + "/*";
  // "P/" and "P/*" only: the bare "P" would also list the keys of a sibling whose name
  // starts with P ("a" listing "a2.lance/...").
  json list = {
      {"Effect", "Allow"},
      {"Action", "s3:ListBucket"},
      {"Resource", bucket_arn},
      {"Condition", {{"StringLike", {{"s3:prefix", {prefix + "/", prefix + "/*"}}}}}}};
  json policy = {
      {"Version", "2012-10-17"},
      {"Statement",
       json::array(
           {{{"Effect", "Allow"}, {"Action", object_actions}, {"Resource", objects_arn}},
            list,
            {{"Effect", "Allow"},
             {"Action", "s3:GetBucketLocation"},
             {"Resource", bucket_arn}}})}};
  // dump() without indent is compact: no spaces (RGW needs that, see above). Replacing
  // bytes that are not UTF-8 keeps it from throwing; callers refuse such prefixes first
  // (a replaced byte would only narrow the scope).
  return policy.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

class AwsCredentialVendor final : public CredentialVendor {
 public:
  AwsCredentialVendor(AwsCredentialVendorOptions options, io::s3::AwsCredentials caller,
                      bool allow_invalid_certificates)
      : options_(std::move(options)),
        caller_(std::move(caller)),
        allow_invalid_certificates_(allow_invalid_certificates) {}

  Result<VendedCredentials> Vend(const std::string& location,
                                 VendPermission permission) override {
    LANCE_ASSIGN_OR_RAISE(S3Location where, ParseS3Location(location));
    // The namespace refuses such names already; the vendor checks again because a
    // stretched scope is the one failure it must never produce, whoever calls it.
    if (where.prefix.empty()) {
      return NamespaceError(ErrorCode::kInvalidInput,
                            "cannot vend credentials for " + location +
                                ": it is a whole bucket, not a table's prefix");
    }
    LANCE_RETURN_NOT_OK(CheckPolicySafeName(where.prefix, "the location " + location)
                            .WithContext("vending credentials"));
    io::s3::AssumeRoleRequest request;
    request.endpoint = options_.sts_endpoint;
    request.region = options_.region;
    request.role_arn = options_.role_arn;
    request.role_session_name = options_.role_session_name;
    request.duration_seconds = options_.duration_millis / 1000;
    request.external_id = options_.external_id;
    request.allow_invalid_certificates = allow_invalid_certificates_;
    request.policy = AwsScopedSessionPolicy(where.bucket, where.prefix, permission);
    Result<io::s3::AssumeRoleResult> assumed = io::s3::AssumeRole(request, caller_);
    if (!assumed.ok()) {
      return assumed.status().WithContext("vending " +
                                          std::string(VendPermissionName(permission)) +
                                          " credentials for " + location);
    }
    int64_t expires = assumed->expiration_millis;
    if (options_.reported_lifetime_millis) {
      expires = std::min(expires, RealClock::Instance()->NowMillis() +
                                      *options_.reported_lifetime_millis);
    }
    VendedCredentials out;
    out.expires_at_millis = expires;
    Properties& so = out.storage_options;
    so["aws_access_key_id"] = assumed->credentials.access_key_id;
    so["aws_secret_access_key"] = assumed->credentials.secret_access_key;
    so["aws_session_token"] = assumed->credentials.session_token;
    so["expires_at_millis"] = std::to_string(expires);
    so["refresh_offset_millis"] = std::to_string(options_.refresh_offset_millis);
    if (!options_.region.empty()) so["aws_region"] = options_.region;
    return out;
  }

  std::string ToString() const override {
    return "AwsCredentialVendor { role_arn: \"" + options_.role_arn +
           "\", sts_endpoint: \"" + options_.sts_endpoint + "\", region: \"" +
           options_.region + "\" }";
  }

 private:
  const AwsCredentialVendorOptions options_;
  const io::s3::AwsCredentials caller_;
  const bool allow_invalid_certificates_;
};

class CachingCredentialVendor final : public CredentialVendor {
 public:
  CachingCredentialVendor(std::shared_ptr<CredentialVendor> inner,
                          std::shared_ptr<Clock> clock)
      : inner_(std::move(inner)), clock_(std::move(clock)) {}

  Result<VendedCredentials> Vend(const std::string& location,
                                 VendPermission permission) override {
    const std::string key = std::string(VendPermissionName(permission)) + "|" + location;
    std::unique_lock lock(mutex_);
    auto cached = cache_.find(key);
    if (cached != cache_.end()) {
      if (clock_->NowMillis() < cached->second.valid_until_millis) {
        return cached->second.credentials;
      }
      cache_.erase(cached);
    }
    auto running = flights_.find(key);
    if (running != flights_.end()) {
      // Single-flight: wait for the call already under way for this key.
      std::shared_ptr<Flight> flight = running->second;
      flight->done_cv.wait(lock, [&] { return flight->result.has_value(); });
      return *flight->result;
    }
    auto flight = std::make_shared<Flight>();
    flights_[key] = flight;
    lock.unlock();
    Result<VendedCredentials> result = inner_->Vend(location, permission);
    lock.lock();
    if (result.ok()) {
      const int64_t now = clock_->NowMillis();
      const int64_t remaining = result->expires_at_millis - now;
      if (remaining >= kMinCacheableLifeMillis) {
        const int64_t ttl = std::min(remaining / 2, kMaxCacheTtlMillis);
        cache_[key] = Entry{*result, now + ttl};
      }
    }
    flight->result = result;
    flights_.erase(key);
    flight->done_cv.notify_all();
    return result;
  }

  std::string ToString() const override {
    return "CachingCredentialVendor { inner: " + inner_->ToString() + " }";
  }

 private:
  struct Entry {
    VendedCredentials credentials;
    int64_t valid_until_millis = 0;
  };
  struct Flight {
    std::optional<Result<VendedCredentials>> result;
    std::condition_variable done_cv;
  };

  const std::shared_ptr<CredentialVendor> inner_;
  const std::shared_ptr<Clock> clock_;
  std::mutex mutex_;
  std::map<std::string, Entry> cache_;
  std::map<std::string, std::shared_ptr<Flight>> flights_;
};

}  // namespace

Result<std::shared_ptr<CredentialVendor>> MakeAwsCredentialVendor(
    AwsCredentialVendorOptions options) {
  if (options.role_arn.empty()) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          "credential vending needs credential_vendor.aws_role_arn");
  }
  if (options.duration_millis < kMinDurationMillis ||
      options.duration_millis > kMaxDurationMillis) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          "credential_vendor.aws_duration_millis must be between 900000 "
                          "(15 min) and 43200000 (12 h), got " +
                              std::to_string(options.duration_millis));
  }
  if (options.reported_lifetime_millis && *options.reported_lifetime_millis <= 0) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          "credential_vendor.reported_lifetime_millis must be positive");
  }
  // The caller's long-term credentials (and TLS settings) as the S3 store reads them:
  // the storage options, else the environment.
  Result<io::s3::S3Options> caller =
      io::s3::ParseS3Options(options.caller_storage_options);
  if (!caller.ok()) {
    return caller.status().WithContext(
        "reading the credentials that call STS AssumeRole for credential vending");
  }
  if (caller->credentials.access_key_id.empty() ||
      caller->credentials.secret_access_key.empty()) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          "credential vending needs credentials to call STS AssumeRole "
                          "with: set aws_access_key_id and aws_secret_access_key in the "
                          "root's storage options or the environment");
  }
  return std::shared_ptr<CredentialVendor>(std::make_shared<AwsCredentialVendor>(
      std::move(options), caller->credentials, caller->allow_invalid_certificates));
}

std::shared_ptr<CredentialVendor> MakeCachingCredentialVendor(
    std::shared_ptr<CredentialVendor> inner, std::shared_ptr<Clock> clock) {
  if (clock == nullptr) clock = RealClock::Instance();
  return std::make_shared<CachingCredentialVendor>(std::move(inner), std::move(clock));
}

namespace {

// Routes each location to the vendor of its cloud (Lance picks the vendor by the
// location's scheme too), so one namespace can hold tables on several clouds.
class SchemeRoutingVendor final : public CredentialVendor {
 public:
  explicit SchemeRoutingVendor(
      std::map<std::string, std::shared_ptr<CredentialVendor>> by_scheme)
      : by_scheme_(std::move(by_scheme)) {}

  Result<VendedCredentials> Vend(const std::string& location,
                                 VendPermission permission) override {
    Result<io::Uri> uri = io::ParseUri(location);
    auto it = uri.ok() ? by_scheme_.find(uri->scheme) : by_scheme_.end();
    if (it == by_scheme_.end()) {
      return NamespaceError(
          ErrorCode::kInvalidInput,
          StrCat("cannot vend credentials for '", location,
                 "': no credential vendor is configured for its scheme (configured: ",
                 Schemes(), ")"));
    }
    return it->second->Vend(location, permission);
  }

  std::string ToString() const override {
    std::string out = "CredentialVendors {";
    const CredentialVendor* last = nullptr;
    for (const auto& [scheme, vendor] : by_scheme_) {
      if (vendor.get() == last) continue;  // one vendor serves several schemes
      out += StrCat(last == nullptr ? " " : ", ", vendor->ToString());
      last = vendor.get();
    }
    return out + " }";
  }

 private:
  std::string Schemes() const {
    std::string out;
    for (const auto& entry : by_scheme_)
      out += StrCat(out.empty() ? "" : ", ", entry.first);
    return out;
  }

  const std::map<std::string, std::shared_ptr<CredentialVendor>> by_scheme_;
};

// The `credential_vendor.*` properties, looked up without the prefix.
struct VendorProperties {
  const Properties& properties;
  const std::string* Get(std::string_view name) const {
    auto it = properties.find(StrCat(kPrefix, name));
    return it == properties.end() ? nullptr : &it->second;
  }
  bool HasAny(std::string_view name_prefix) const {
    const std::string full = StrCat(kPrefix, name_prefix);
    auto it = properties.lower_bound(full);
    return it != properties.end() && it->first.compare(0, full.size(), full) == 0;
  }
  Result<std::optional<int64_t>> Millis(std::string_view name) const {
    const std::string* v = Get(name);
    if (v == nullptr) return std::optional<int64_t>();
    LANCE_ASSIGN_OR_RAISE(int64_t millis, ParseMillis(StrCat(kPrefix, name), *v));
    return std::optional<int64_t>(millis);
  }
};

// The namespace's own Google credentials, whose token the GCP vendor downscopes, read
// as the GCS store reads them: a token, or a service-account key (file or JSON) or
// application credentials, exchanged for tokens that are fetched and refreshed.
bool HasGoogleCredentials(const Properties& root_storage_options) {
  // The options alone (no environment): an ambient key must not add a GCS vendor to a
  // namespace that did not ask for one (credential_vendor.gcp_* does).
  Result<io::gcs::GcsOptions> own = io::gcs::ParseGcsOptions(root_storage_options);
  return own.ok() && !own->skip_signature &&
         (!own->bearer_token.empty() || !own->service_account_path.empty() ||
          !own->service_account_key.empty() || !own->application_credentials.empty());
}

Result<std::shared_ptr<io::CredentialsSource>> GoogleCallerSource(
    const Properties& root_storage_options) {
  constexpr std::string_view kWhat = "reading the namespace's own Google credentials";
  // Parse errors name keys, never values (GcsOptions holds secrets).
  Result<io::gcs::GcsOptions> own =
      io::gcs::ParseGcsOptions(root_storage_options, io::s3::ProcessEnv());
  if (!own.ok()) return own.status().WithContext(kWhat);
  Result<std::shared_ptr<io::CredentialsSource>> source =
      io::gcs::MakeGcsCredentialsSource(*own);
  if (!source.ok()) return source.status().WithContext(kWhat);
  return *source;
}

// What every vendor reads alike: the default permission, the lifetime tests report
// (`.reported_lifetime_millis`) and the refresh offset (`.refresh_offset_millis`).
template <typename Options>
Status ReadCommonVendorOptions(const VendorProperties& props, VendPermission permission,
                               Options* options) {
  options->default_permission = permission;
  LANCE_ASSIGN_OR_RAISE(options->reported_lifetime_millis,
                        props.Millis("reported_lifetime_millis"));
  LANCE_ASSIGN_OR_RAISE(auto offset, props.Millis("refresh_offset_millis"));
  if (offset) options->refresh_offset_millis = *offset;
  return Status::OK();
}

Result<std::shared_ptr<CredentialVendor>> AwsVendorFromProperties(
    const VendorProperties& props, VendPermission permission,
    const Properties& root_storage_options) {
  AwsCredentialVendorOptions options;
  LANCE_RETURN_NOT_OK(ReadCommonVendorOptions(props, permission, &options));
  options.role_arn = *props.Get("aws_role_arn");
  if (const std::string* v = props.Get("aws_external_id")) options.external_id = *v;
  if (const std::string* v = props.Get("aws_role_session_name")) {
    options.role_session_name = *v;
  }
  LANCE_ASSIGN_OR_RAISE(auto duration, props.Millis("aws_duration_millis"));
  if (duration) options.duration_millis = *duration;
  // Region and STS endpoint default to the root store's (RGW serves STS on its S3 port).
  Result<io::s3::S3Options> root = io::s3::ParseS3Options(root_storage_options);
  if (const std::string* v = props.Get("aws_region")) {
    options.region = *v;
  } else if (root.ok() && !root->region.empty()) {
    options.region = root->region;
  }
  if (const std::string* v = props.Get("aws_sts_endpoint")) {
    options.sts_endpoint = *v;
  } else if (root.ok()) {
    options.sts_endpoint = root->endpoint;
  }
  options.caller_storage_options = root_storage_options;
  return MakeAwsCredentialVendor(std::move(options));
}

Result<std::shared_ptr<CredentialVendor>> GcpVendorFromProperties(
    const VendorProperties& props, VendPermission permission,
    const Properties& root_storage_options) {
  GcpCredentialVendorOptions options;
  LANCE_RETURN_NOT_OK(ReadCommonVendorOptions(props, permission, &options));
  if (const std::string* v = props.Get("gcp_sts_endpoint")) options.sts_endpoint = *v;
  LANCE_ASSIGN_OR_RAISE(options.caller, GoogleCallerSource(root_storage_options));
  return MakeGcpCredentialVendor(std::move(options));
}

bool HasAzureAccount(const VendorProperties& props,
                     const Properties& root_storage_options) {
  if (props.HasAny("azure_")) return true;
  for (const char* key : {"azure_storage_account_name", "account_name",
                          "azure_storage_use_emulator", "use_emulator"}) {
    if (root_storage_options.count(key) != 0) return true;
  }
  return false;
}

Result<std::shared_ptr<CredentialVendor>> AzureVendorFromProperties(
    const VendorProperties& props, VendPermission permission,
    const Properties& root_storage_options) {
  AzureCredentialVendorOptions options;
  LANCE_RETURN_NOT_OK(ReadCommonVendorOptions(props, permission, &options));
  if (const std::string* v = props.Get("azure_account_name")) options.account_name = *v;
  LANCE_ASSIGN_OR_RAISE(auto duration, props.Millis("azure_duration_millis"));
  if (duration) options.duration_millis = *duration;
  if (const std::string* v = props.Get("azure_hierarchical_namespace")) {
    const std::string value = Lower(*v);
    if (value == "true") {
      options.hierarchical_namespace = io::azure::HierarchicalNamespace::kYes;
    } else if (value == "false") {
      options.hierarchical_namespace = io::azure::HierarchicalNamespace::kNo;
    } else if (value != "auto") {
      return NamespaceError(
          ErrorCode::kInvalidInput,
          StrCat("credential_vendor.azure_hierarchical_namespace must be "
                 "auto, true or false, got '",
                 *v, "'"));
    }
  }
  options.caller_storage_options = root_storage_options;
  return MakeAzureCredentialVendor(std::move(options));
}

}  // namespace

Result<std::shared_ptr<CredentialVendor>> CredentialVendorFromProperties(
    const Properties& properties, const Properties& root_storage_options) {
  const VendorProperties props{properties};
  const std::string* enabled = props.Get("enabled");
  if (enabled == nullptr || Lower(*enabled) != "true") {
    return std::shared_ptr<CredentialVendor>();
  }
  VendPermission permission = VendPermission::kRead;
  if (const std::string* v = props.Get("permission")) {
    LANCE_ASSIGN_OR_RAISE(permission, ParseVendPermission(*v));
  }
  std::map<std::string, std::shared_ptr<CredentialVendor>> by_scheme;
  auto add = [&](std::shared_ptr<CredentialVendor> vendor,
                 std::initializer_list<const char*> schemes) {
    auto cached = MakeCachingCredentialVendor(std::move(vendor));
    for (const char* scheme : schemes) by_scheme[scheme] = cached;
  };
  const std::string* role_arn = props.Get("aws_role_arn");
  if (role_arn != nullptr && !role_arn->empty()) {
    LANCE_ASSIGN_OR_RAISE(
        auto aws, AwsVendorFromProperties(props, permission, root_storage_options));
    add(std::move(aws), {"s3", "s3a"});
  }
  if (HasAzureAccount(props, root_storage_options)) {
    LANCE_ASSIGN_OR_RAISE(
        auto azure, AzureVendorFromProperties(props, permission, root_storage_options));
    add(std::move(azure), {"az", "azure", "abfs", "abfss"});
  }
  if (props.HasAny("gcp_") || HasGoogleCredentials(root_storage_options)) {
    LANCE_ASSIGN_OR_RAISE(
        auto gcp, GcpVendorFromProperties(props, permission, root_storage_options));
    add(std::move(gcp), {"gs"});
  }
  if (by_scheme.empty()) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          "credential_vendor.enabled is true but no cloud is configured: "
                          "set credential_vendor.aws_role_arn (S3), "
                          "credential_vendor.azure_account_name (Azure) or "
                          "credential_vendor.gcp_* / a Google token in the root's "
                          "options (GCS)");
  }
  return std::shared_ptr<CredentialVendor>(
      std::make_shared<SchemeRoutingVendor>(std::move(by_scheme)));
}

}  // namespace lance::ns

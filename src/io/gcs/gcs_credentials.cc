// SPDX-License-Identifier: Apache-2.0
// Google credentials files, the service-account JWT and the OAuth token source; see
// lance/io/gcs_credentials.h.

#include "lance/io/gcs_credentials.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <condition_variable>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "io/gcs/gcs_util.h"
#include "lance/core/logging.h"
#include "lance/io/http/http_client.h"
#include "lance/io/storage_options.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io::gcs {

// -- The seam
// ----------------------------------------------------------------------------

const std::string& BearerTokenOf(const SeamCredentials& credentials) {
  return credentials.google.bearer_token;
}

SeamCredentials BearerCredentials(std::string token) {
  SeamCredentials out;
  out.google.bearer_token = std::move(token);
  return out;
}

// -- Credentials files
// -------------------------------------------------------------------

namespace {

using Json = nlohmann::json;

std::string Field(const Json& doc, const char* name) {
  auto it = doc.find(name);
  if (it == doc.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

std::string Base64Url(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return out;
}

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

// RS256 of `input` with the PEM key. Messages never contain the key.
Result<std::string> SignRs256(const std::string& pem, std::string_view input) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (bio == nullptr) return internal::IoError("out of memory reading the private key");
  std::unique_ptr<EVP_PKEY, PkeyFree> key(
      PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr));
  BIO_free(bio);
  if (key == nullptr || EVP_PKEY_base_id(key.get()) != EVP_PKEY_RSA) {
    return Status::Invalid(
        "the service-account private_key is not a PEM RSA private key");
  }
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  size_t len = 0;
  if (ctx == nullptr ||
      EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &len,
                     reinterpret_cast<const unsigned char*>(input.data()),
                     input.size()) != 1) {
    return internal::IoError("signing the service-account JWT failed");
  }
  std::string sig(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len,
                     reinterpret_cast<const unsigned char*>(input.data()),
                     input.size()) != 1) {
    return internal::IoError("signing the service-account JWT failed");
  }
  sig.resize(len);
  return sig;
}

}  // namespace

std::string GoogleCredentialsFile::ToString() const {
  std::string out = "GoogleCredentialsFile(";
  if (type == Type::kServiceAccount) {
    StrAppend(&out, "service_account, client_email=", client_email,
              ", private_key_id=", RedactOptionValue("private_key_id", private_key_id));
  } else {
    StrAppend(&out, "authorized_user, client_id=", client_id);
  }
  StrAppend(&out, ", token_uri=", token_uri);
  if (!gcs_base_url.empty()) StrAppend(&out, ", gcs_base_url=", gcs_base_url);
  if (disable_oauth) out += ", disable_oauth";
  return out + ")";
}

Result<GoogleCredentialsFile> ParseGoogleCredentialsFile(std::string_view json) {
  Json doc = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Status::Invalid("the Google credentials file is not a JSON object");
  }
  GoogleCredentialsFile out;
  const std::string type = Field(doc, "type");
  out.token_uri = Field(doc, "token_uri");
  if (out.token_uri.empty()) out.token_uri = std::string(kDefaultTokenUri);
  out.gcs_base_url = Field(doc, "gcs_base_url");
  if (auto it = doc.find("disable_oauth"); it != doc.end() && it->is_boolean()) {
    out.disable_oauth = it->get<bool>();
  }
  if (type == "authorized_user") {
    out.type = GoogleCredentialsFile::Type::kAuthorizedUser;
    out.client_id = Field(doc, "client_id");
    out.client_secret = Field(doc, "client_secret");
    out.refresh_token = Field(doc, "refresh_token");
    if (out.client_id.empty() || out.client_secret.empty() || out.refresh_token.empty()) {
      return Status::Invalid(
          "the authorized_user credentials need client_id, "
          "client_secret and refresh_token");
    }
    return out;
  }
  if (!type.empty() && type != "service_account") {
    return Status::Invalid("Google credentials of type '", type,
                           "' are not supported (service_account, authorized_user)");
  }
  out.client_email = Field(doc, "client_email");
  out.private_key = Field(doc, "private_key");
  out.private_key_id = Field(doc, "private_key_id");
  if (!out.disable_oauth && (out.client_email.empty() || out.private_key.empty())) {
    return Status::Invalid("the service-account key needs client_email and private_key");
  }
  return out;
}

Result<GoogleCredentialsFile> ReadGoogleCredentialsFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return internal::IoError("cannot read the Google credentials file '", path, "'");
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = ParseGoogleCredentialsFile(text.str());
  if (!parsed.ok()) return parsed.status().WithContext("reading '" + path + "'");
  return parsed;
}

Result<std::string> BuildServiceAccountJwt(const GoogleCredentialsFile& key,
                                           std::string_view scope,
                                           std::chrono::system_clock::time_point now,
                                           std::chrono::seconds lifetime) {
  if (key.type != GoogleCredentialsFile::Type::kServiceAccount ||
      key.private_key.empty()) {
    return Status::Invalid("a JWT needs a service-account key with a private_key");
  }
  Json header = {{"alg", "RS256"}, {"typ", "JWT"}};
  if (!key.private_key_id.empty()) header["kid"] = key.private_key_id;
  const int64_t iat =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  Json claims = {{"iss", key.client_email},
                 {"scope", std::string(scope)},
                 {"aud", key.token_uri},
                 {"iat", iat},
                 {"exp", iat + lifetime.count()}};
  const std::string input = Base64Url(header.dump()) + "." + Base64Url(claims.dump());
  LANCE_ASSIGN_OR_RAISE(std::string sig, SignRs256(key.private_key, input));
  return input + "." + Base64Url(sig);
}

// -- The OAuth source
// --------------------------------------------------------------------

namespace {

std::string FormEncode(std::string_view s) { return internal::PercentEncode(s); }

}  // namespace

struct GoogleOAuthCredentialsSource::Impl {
  GoogleCredentialsFile file;
  Options options;
  std::string token_uri;
  std::unique_ptr<http::HttpClient> http;

  std::mutex mu;                 // guards what follows
  std::condition_variable done;  // a fetch ended
  bool fetching = false;
  std::shared_ptr<const SeamCredentials> cached;
  Clock::SystemTimePoint expires_at;
  Clock::SystemTimePoint refresh_at;
  int64_t fetches = 0;

  std::string Body(Clock::SystemTimePoint now) const;
  Result<internal::TokenAnswer> Fetch(Clock::SystemTimePoint now);
  Result<std::shared_ptr<const SeamCredentials>> Get(const std::string* rejected);
};

std::string GoogleOAuthCredentialsSource::Impl::Body(Clock::SystemTimePoint now) const {
  (void)now;
  if (file.type == GoogleCredentialsFile::Type::kAuthorizedUser) {
    return StrCat("grant_type=refresh_token&client_id=", FormEncode(file.client_id),
                  "&client_secret=", FormEncode(file.client_secret),
                  "&refresh_token=", FormEncode(file.refresh_token));
  }
  return "";
}

Result<internal::TokenAnswer> GoogleOAuthCredentialsSource::Impl::Fetch(
    Clock::SystemTimePoint now) {
  std::string body = Body(now);
  if (body.empty()) {
    LANCE_ASSIGN_OR_RAISE(std::string jwt,
                          BuildServiceAccountJwt(file, options.scope, now));
    body =
        StrCat("grant_type=", FormEncode("urn:ietf:params:oauth:grant-type:jwt-bearer"),
               "&assertion=", jwt);
  }
  http::HttpResponse resp = http->Send(http::FormPost(token_uri, body));
  const std::string what =
      StrCat("fetching a Google OAuth token from ", token_uri, " for ",
             file.type == GoogleCredentialsFile::Type::kServiceAccount ? file.client_email
                                                                       : file.client_id);
  if (!resp.answered()) {
    return Status::Unavailable(StrCat(what, ": ", resp.transport_message, " (curl error ",
                                      resp.transport_code, ")"));
  }
  if (resp.status != 200) {
    internal::GcsError err = internal::ParseErrorBody(resp.body, resp.status);
    std::string msg = StrCat(what, ": HTTP ", resp.status);
    if (!err.reason.empty()) StrAppend(&msg, " ", err.reason);
    if (!err.message.empty()) StrAppend(&msg, ": ", err.message);
    if (internal::IsRetryableStatus(resp.status)) return Status::Unavailable(msg);
    return Status::Unauthorized(msg);
  }
  auto answer = internal::ParseTokenAnswer(resp.body);
  if (!answer.ok()) return internal::IoError(what, ": ", answer.status().message());
  return answer;
}

Result<std::shared_ptr<const SeamCredentials>> GoogleOAuthCredentialsSource::Impl::Get(
    const std::string* rejected) {
  std::unique_lock<std::mutex> lock(mu);
  while (true) {
    const auto now = options.clock->Now();
    const bool usable = cached != nullptr && now < refresh_at &&
                        (rejected == nullptr || BearerTokenOf(*cached) != *rejected);
    if (usable) return cached;
    if (!fetching) break;
    // Single flight: wait for the fetch under way, then look again.
    done.wait(lock);
    if (cached != nullptr && options.clock->Now() < expires_at &&
        (rejected == nullptr || BearerTokenOf(*cached) != *rejected)) {
      return cached;
    }
  }
  fetching = true;
  ++fetches;
  lock.unlock();
  const auto now = options.clock->Now();
  Result<internal::TokenAnswer> answer = Fetch(now);
  lock.lock();
  fetching = false;
  done.notify_all();
  if (!answer.ok()) {
    // A token that has not expired (and was not rejected) still serves.
    if (cached != nullptr && options.clock->Now() < expires_at &&
        (rejected == nullptr || BearerTokenOf(*cached) != *rejected)) {
      LANCE_LOG(Warn, "gcs") << answer.status().message()
                             << "; the cached token serves until it expires";
      return cached;
    }
    return answer.status();
  }
  const auto lifetime = std::chrono::seconds(std::max<int64_t>(1, answer->expires_in_s));
  const auto margin =
      std::min<std::chrono::seconds>(options.refresh_margin, lifetime / 2);
  cached = std::make_shared<const SeamCredentials>(
      BearerCredentials(std::move(answer->access_token)));
  expires_at = now + lifetime;
  refresh_at = expires_at - margin;
  LANCE_LOG(Debug, "gcs") << "fetched a Google OAuth token from " << token_uri
                          << ", valid for " << lifetime.count() << " s";
  return cached;
}

GoogleOAuthCredentialsSource::GoogleOAuthCredentialsSource(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
GoogleOAuthCredentialsSource::~GoogleOAuthCredentialsSource() = default;

Result<std::shared_ptr<GoogleOAuthCredentialsSource>> GoogleOAuthCredentialsSource::Make(
    GoogleCredentialsFile file, Options options) {
  if (file.type == GoogleCredentialsFile::Type::kServiceAccount &&
      (file.client_email.empty() || file.private_key.empty())) {
    return Status::Invalid(
        "a Google OAuth source needs a key with client_email and "
        "private_key");
  }
  auto impl = std::make_unique<Impl>();
  impl->token_uri = options.token_uri.empty() ? file.token_uri : options.token_uri;
  LANCE_RETURN_NOT_OK(internal::ValidateBaseUrl(impl->token_uri, options.allow_http)
                          .WithContext("the Google token endpoint"));
  LANCE_ASSIGN_OR_RAISE(impl->http,
                        http::HttpClient::Make(http::MakeClientOptions(
                            "gcs-oauth", options.connect_timeout, options.request_timeout,
                            options.allow_invalid_certificates)));
  if (options.clock == nullptr) options.clock = RealClock::Instance();
  impl->file = std::move(file);
  impl->options = std::move(options);
  return std::shared_ptr<GoogleOAuthCredentialsSource>(
      new GoogleOAuthCredentialsSource(std::move(impl)));
}

Result<std::shared_ptr<const SeamCredentials>> GoogleOAuthCredentialsSource::Current() {
  return impl_->Get(nullptr);
}

Result<std::shared_ptr<const SeamCredentials>> GoogleOAuthCredentialsSource::OnRejected(
    const SeamCredentials& rejected) {
  return impl_->Get(&BearerTokenOf(rejected));
}

std::string GoogleOAuthCredentialsSource::id() const {
  const GoogleCredentialsFile& f = impl_->file;
  return StrCat("google-oauth:",
                f.type == GoogleCredentialsFile::Type::kServiceAccount ? f.client_email
                                                                       : f.client_id,
                "@", impl_->token_uri);
}

std::string GoogleOAuthCredentialsSource::ToString() const {
  const GoogleCredentialsFile& f = impl_->file;
  if (f.type == GoogleCredentialsFile::Type::kServiceAccount) {
    return StrCat("GoogleOAuthCredentials(service_account client_email=", f.client_email,
                  ", token_uri=", impl_->token_uri, ")");
  }
  return StrCat("GoogleOAuthCredentials(authorized_user client_id=", f.client_id,
                ", token_uri=", impl_->token_uri, ")");
}

int64_t GoogleOAuthCredentialsSource::fetches() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->fetches;
}

}  // namespace lance::io::gcs

// SPDX-License-Identifier: Apache-2.0
// The client-credentials token source (see token_source.h).

#include "io/azure/token_source.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

#include "io/azure/shared_key.h"
#include "lance/core/logging.h"
#include "lance/io/http/http_client.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io::azure {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMaxAttempts = 4;

struct Token {
  std::shared_ptr<const Credentials> credentials;
  Clock::time_point refresh_at;
};

// The first line of an identity-platform error description (the rest is trace ids).
std::string FirstLine(std::string_view text) {
  return std::string(text.substr(0, text.find_first_of("\r\n")));
}

class ClientSecretTokenSource final : public CredentialsSource {
 public:
  ClientSecretTokenSource(AzureOptions options, std::unique_ptr<http::HttpClient> http)
      : options_(std::move(options)), http_(std::move(http)) {}

  Result<std::shared_ptr<const Credentials>> Current() override {
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      if (token_.credentials != nullptr && Clock::now() < token_.refresh_at) {
        return token_.credentials;
      }
    }
    return FetchOnce(nullptr);
  }

  Result<std::shared_ptr<const Credentials>> OnRejected(
      const Credentials& rejected) override {
    return FetchOnce(&rejected.azure.bearer_token);
  }

  std::string id() const override {
    return StrCat("azure-client-secret:", options_.authority_host, "/",
                  options_.tenant_id, "/", options_.client_id);
  }

  std::string ToString() const override {
    return StrCat("AzureClientSecretTokenSource(tenant=", options_.tenant_id,
                  ", client_id=", options_.client_id,
                  ", authority=", options_.authority_host, ")");
  }

 private:
  // One fetch at a time: a caller that waited for another's fetch takes its token. With
  // `rejected`, a token other than the rejected one is taken as fresh.
  Result<std::shared_ptr<const Credentials>> FetchOnce(const std::string* rejected) {
    std::lock_guard<std::mutex> fetch_lock(fetch_mu_);
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      if (token_.credentials != nullptr) {
        const bool fresh = rejected != nullptr
                               ? token_.credentials->azure.bearer_token != *rejected
                               : Clock::now() < token_.refresh_at;
        if (fresh) return token_.credentials;
      }
    }
    LANCE_ASSIGN_OR_RAISE(Token token, Fetch());
    std::lock_guard<std::mutex> lock(state_mu_);
    token_ = token;
    return token.credentials;
  }

  Result<Token> Fetch() {
    const std::string url =
        StrCat(options_.authority_host, "/", options_.tenant_id, "/oauth2/v2.0/token");
    const std::string body = StrCat(
        "grant_type=client_credentials&client_id=", UrlEncode(options_.client_id, true),
        "&client_secret=", UrlEncode(options_.client_secret, true),
        "&scope=", UrlEncode(kStorageScope, true));
    const http::HttpRequest req = http::FormPost(url, body);
    const std::string where =
        StrCat("fetching an Azure token for client ", options_.client_id, " from ", url);
    auto delay = std::chrono::milliseconds(100);
    for (int attempt = 1;; ++attempt) {
      const Clock::time_point sent = Clock::now();
      http::HttpResponse resp = http_->Send(req);
      const bool transient = resp.answered()
                                 ? http::IsRetryableHttpStatus(resp.status)
                                 : http::IsTransientTransportError(resp.error);
      if (resp.answered() && resp.status == 200)
        return ParseToken(resp.body, sent, where);
      if (!transient || attempt >= kMaxAttempts) return Failure(resp, where, attempt);
      std::this_thread::sleep_for(delay);
      delay *= 2;
    }
  }

  Result<Token> ParseToken(const std::string& body, Clock::time_point sent,
                           const std::string& where) const {
    const nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
    if (!doc.is_object() || !doc.contains("access_token") ||
        !doc["access_token"].is_string()) {
      return Status::IOError(StrCat("When ", where, ": the answer has no access_token"));
    }
    int64_t expires_in = 3600;
    if (auto it = doc.find("expires_in"); it != doc.end()) {
      if (it->is_number_integer()) {
        expires_in = it->get<int64_t>();
      } else if (it->is_string()) {
        expires_in = std::atoll(it->get<std::string>().c_str());
      }
    }
    expires_in = std::max<int64_t>(expires_in, 1);
    // Refreshed in the last fifth of the lifetime, at most 5 minutes before the end.
    const int64_t margin_ms = std::min<int64_t>(expires_in * 200, 300'000);
    Credentials credentials;
    credentials.azure.bearer_token = doc["access_token"].get<std::string>();
    Token token;
    token.credentials = std::make_shared<const Credentials>(std::move(credentials));
    token.refresh_at = sent + std::chrono::milliseconds(expires_in * 1000 - margin_ms);
    LANCE_LOG(Info, "azure") << "fetched an Azure token for client " << options_.client_id
                             << " (tenant " << options_.tenant_id << "), valid "
                             << expires_in << " s";
    return token;
  }

  Status Failure(const http::HttpResponse& resp, const std::string& where,
                 int attempts) const {
    if (!resp.answered()) {
      return Status::Unavailable(StrCat("When ", where, ": ", resp.transport_message,
                                        " (curl error ", resp.transport_code, ") after ",
                                        attempts, " attempts"));
    }
    std::string detail;
    const nlohmann::json doc = nlohmann::json::parse(resp.body, nullptr, false);
    if (doc.is_object()) {
      if (auto e = doc.find("error"); e != doc.end() && e->is_string()) {
        detail = e->get<std::string>();
      }
      if (auto d = doc.find("error_description"); d != doc.end() && d->is_string()) {
        StrAppend(&detail, ": ", FirstLine(d->get<std::string>()));
      }
    }
    std::string msg =
        StrCat("When ", where, ": HTTP ", resp.status, detail.empty() ? "" : " ", detail);
    if (resp.status == 400 || resp.status == 401) return Status::Unauthorized(msg);
    if (resp.status == 403) return Status::Forbidden(msg);
    if (http::IsRetryableHttpStatus(resp.status))
      return Status::Unavailable(std::move(msg));
    return Status::IOError(std::move(msg));
  }

  const AzureOptions options_;
  std::unique_ptr<http::HttpClient> http_;
  std::mutex fetch_mu_;  // held while fetching
  std::mutex state_mu_;  // guards token_
  Token token_;
};

}  // namespace

Result<std::shared_ptr<CredentialsSource>> MakeClientSecretTokenSource(
    const AzureOptions& options) {
  if (options.client_id.empty() || options.client_secret.empty() ||
      options.tenant_id.empty()) {
    return Status::Invalid(
        "an Azure client-credentials token needs azure_client_id, azure_client_secret "
        "and "
        "azure_tenant_id");
  }
  if (options.authority_host.rfind("https://", 0) != 0 &&
      options.authority_host.rfind("http://", 0) != 0) {
    return Status::Invalid("the Azure authority host '", options.authority_host,
                           "' must start with https://");
  }
  LANCE_ASSIGN_OR_RAISE(auto client, http::HttpClient::Make(http::MakeClientOptions(
                                         "azure-token", options.connect_timeout,
                                         std::chrono::milliseconds(30'000),
                                         options.allow_invalid_certificates)));
  return std::shared_ptr<CredentialsSource>(
      std::make_shared<ClientSecretTokenSource>(options, std::move(client)));
}

}  // namespace lance::io::azure

// SPDX-License-Identifier: Apache-2.0
// A local stand-in of Google's OAuth token endpoint for service-account keys (the
// JWT-bearer grant), which grants the tokens it mints on the token-checking proxy.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lance/io/gcs_credentials.h"
#include "tests/gcs/gcs_env.h"
#include "tests/gcs/token_proxy.h"
#include "tests/io/gcs/jwt_testing.h"
#include "tests/testing/secret_ledger.h"

namespace lance::testing {

// Google's token endpoint, as far as the JWT-bearer grant goes: checks the assertion's
// RS256 signature with `public_pem` and its claims, then mints a token, which it also
// grants on the proxy for as long as it says.
class TokenEndpoint {
 public:
  TokenEndpoint(std::string public_pem, std::string email, GcsTokenProxy* proxy)
      : public_pem_(std::move(public_pem)), email_(std::move(email)), proxy_(proxy) {
    server_.Post("/token", [this](const httplib::Request& req, httplib::Response& res) {
      Handle(req, res);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 500 && !server_.is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  ~TokenEndpoint() {
    server_.stop();
    thread_.join();
  }
  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/token";
  }
  int requests() const { return requests_.load(); }
  int minted() const { return minted_.load(); }
  /// \brief Every token minted so far, oldest first.
  std::vector<std::string> tokens() const {
    std::lock_guard lock(mu_);
    return tokens_;
  }
  std::atomic<int> expires_in_s{3600};
  std::atomic<int> delay_ms{0};
  /// \brief Check iat/exp against the real clock (off for a source on a ManualClock).
  std::atomic<bool> check_times{true};

 private:
  void Refuse(httplib::Response& res, const std::string& why) {
    res.status = 400;
    res.set_content(R"({"error":"invalid_grant","error_description":")" + why + "\"}",
                    "application/json");
  }
  void Handle(const httplib::Request& req, httplib::Response& res) {
    requests_.fetch_add(1);
    if (delay_ms.load() > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    if (req.get_param_value("grant_type") !=
        "urn:ietf:params:oauth:grant-type:jwt-bearer") {
      return Refuse(res, "unsupported grant_type");
    }
    auto jwt = VerifyRs256Jwt(req.get_param_value("assertion"), public_pem_);
    if (!jwt) return Refuse(res, "Invalid JWT Signature.");
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    const auto& c = jwt->claims;
    if (c.value("iss", "") != email_ || c.value("aud", "") != url() ||
        c.value("scope", "") != std::string(io::gcs::kReadWriteScope) ||
        (check_times &&
         (c.value("exp", int64_t{0}) <= now || c.value("iat", int64_t{0}) > now + 5)) ||
        c.value("exp", int64_t{0}) - c.value("iat", int64_t{0}) > 3600) {
      return Refuse(res, "Invalid JWT claims.");
    }
    const std::string token = "ya29.sa-" + std::to_string(minted_.fetch_add(1)) + "-" +
                              GcsTestEnv::Unique("tok");
    RecordSecret(token, "gcs-oauth-token");
    {
      std::lock_guard lock(mu_);
      tokens_.push_back(token);
    }
    if (proxy_ != nullptr)
      proxy_->AddToken(token, std::chrono::seconds(expires_in_s.load()));
    nlohmann::json answer = {{"access_token", token},
                             {"expires_in", expires_in_s.load()},
                             {"token_type", "Bearer"}};
    res.set_content(answer.dump(), "application/json");
  }

  std::string public_pem_;
  std::string email_;
  GcsTokenProxy* proxy_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int> requests_{0};
  std::atomic<int> minted_{0};
  mutable std::mutex mu_;
  std::vector<std::string> tokens_;
};

}  // namespace lance::testing

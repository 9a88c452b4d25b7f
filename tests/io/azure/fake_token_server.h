// SPDX-License-Identifier: Apache-2.0
// A Microsoft identity platform token endpoint for tests, on a loopback socket: answers
// POST /<tenant>/oauth2/v2.0/token with {"access_token": <JWT>, "expires_in": ...}. The
// tokens are unsigned JWTs (alg none) with the claims Azurite's --oauth basic checks:
// aud https://storage.azure.com, iss https://sts.windows.net/<tenant>/, nbf, iat, exp.
// Counts requests and keeps their bodies; can delay answers (single-flight tests), make
// the JWT expire sooner than the expires_in it announces (server-side expiry), or refuse.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/azure/shared_key.h"
#include "lance/str_cat.h"
#include "tests/testing/loopback_http_server.h"

namespace lance::testing {

class FakeTokenServer {
 public:
  FakeTokenServer()
      : server_([this](const SeenRequest& request, int) { return Answer(request); }) {}

  /// \brief "http://127.0.0.1:<port>" (the authority host).
  std::string host() const { return server_.endpoint(); }

  // Knobs (set before the requests they affect).
  std::atomic<int> expires_in{3600};    ///< announced lifetime, seconds
  std::atomic<int> jwt_lifetime{3600};  ///< the JWT's own exp - now, seconds
  std::atomic<int> delay_ms{0};         ///< before answering
  std::atomic<int> status{200};         ///< non-200: an AADSTS-style error

  int requests() const { return requests_.load(); }
  std::vector<std::string> bodies() const {
    std::vector<std::string> out;
    for (const auto& request : server_.requests()) out.push_back(request.body);
    return out;
  }
  std::vector<std::string> paths() const {
    std::vector<std::string> out;
    for (const auto& request : server_.requests()) out.push_back(request.target);
    return out;
  }

  /// \brief An unsigned JWT that Azurite's basic OAuth accepts until now + `lifetime`.
  static std::string Jwt(const std::string& tenant, int lifetime, int serial) {
    const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    const std::string header = R"({"alg":"none","typ":"JWT"})";
    const std::string claims =
        StrCat(R"({"aud":"https://storage.azure.com","iss":"https://sts.windows.net/)",
               tenant, R"(/","nbf":)", now - 60, R"(,"iat":)", now - 60, R"(,"exp":)",
               now + lifetime, R"(,"oid":"00000000-0000-0000-0000-00000000000)",
               serial % 10, R"(","tid":")", tenant, R"("})");
    return StrCat(Base64Url(header), ".", Base64Url(claims), ".");
  }

 private:
  static std::string Base64Url(const std::string& text) {
    std::string b64 = io::azure::Base64Encode(text);
    for (char& c : b64) c = c == '+' ? '-' : c == '/' ? '_' : c;
    while (!b64.empty() && b64.back() == '=') b64.pop_back();
    return b64;
  }

  Reply Answer(const SeenRequest& request) {
    const int serial = ++requests_;
    if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    const std::string& path = request.target;
    const std::string tenant = path.substr(1, path.find('/', 1) - 1);
    std::string json;
    if (status == 200) {
      json = StrCat(R"({"token_type":"Bearer","expires_in":)", expires_in.load(),
                    R"(,"access_token":")", Jwt(tenant, jwt_lifetime, serial), R"("})");
    } else {
      json =
          R"({"error":"invalid_client","error_description":"AADSTS7000215: Invalid client secret provided.\r\nTrace ID: x"})";
    }
    return Reply{StrCat("HTTP/1.1 ", status.load(),
                        " X\r\nContent-Type: application/json\r\n",
                        "Content-Length: ", json.size(), "\r\n\r\n", json)};
  }

  std::atomic<int> requests_{0};
  // Last: stopped (its connections joined) before the knobs go.
  LoopbackHttpServer server_;
};

}  // namespace lance::testing

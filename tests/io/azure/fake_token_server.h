// SPDX-License-Identifier: Apache-2.0
// A Microsoft identity platform token endpoint for tests, on a loopback socket: answers
// POST /<tenant>/oauth2/v2.0/token with {"access_token": <JWT>, "expires_in": ...}. The
// tokens are unsigned JWTs (alg none) with the claims Azurite's --oauth basic checks:
// aud https://storage.azure.com, iss https://sts.windows.net/<tenant>/, nbf, iat, exp.
// Counts requests and keeps their bodies; can delay answers (single-flight tests), make
// the JWT expire sooner than the expires_in it announces (server-side expiry), or refuse.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/azure/shared_key.h"
#include "lance/str_cat.h"

namespace lance::testing {

class FakeTokenServer {
 public:
  FakeTokenServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    ::listen(fd_, 32);
    socklen_t len = sizeof(addr);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { AcceptLoop(); });
  }
  ~FakeTokenServer() {
    stopping_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    acceptor_.join();
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& t : workers_) t.join();
  }

  /// \brief "http://127.0.0.1:<port>" (the authority host).
  std::string host() const { return StrCat("http://127.0.0.1:", port_); }

  // Knobs (set before the requests they affect).
  std::atomic<int> expires_in{3600};    ///< announced lifetime, seconds
  std::atomic<int> jwt_lifetime{3600};  ///< the JWT's own exp - now, seconds
  std::atomic<int> delay_ms{0};         ///< before answering
  std::atomic<int> status{200};         ///< non-200: an AADSTS-style error

  int requests() const { return requests_.load(); }
  std::vector<std::string> bodies() const {
    std::lock_guard<std::mutex> lock(mu_);
    return bodies_;
  }
  std::vector<std::string> paths() const {
    std::lock_guard<std::mutex> lock(mu_);
    return paths_;
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

  void AcceptLoop() {
    while (!stopping_) {
      const int fd = ::accept(fd_, nullptr, nullptr);
      if (fd < 0) return;
      std::lock_guard<std::mutex> lock(mu_);
      workers_.emplace_back([this, fd] {
        Serve(fd);
        ::close(fd);
      });
    }
  }

  void Serve(int fd) {
    std::string buffer;
    char chunk[4096];
    while (true) {
      size_t end;
      while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
        const ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
        if (n <= 0) return;
        buffer.append(chunk, static_cast<size_t>(n));
      }
      const std::string head = buffer.substr(0, end);
      size_t length = 0;
      if (size_t cl = head.find("Content-Length: "); cl != std::string::npos) {
        length = std::stoul(head.substr(cl + 16));
      }
      while (buffer.size() < end + 4 + length) {
        const ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
        if (n <= 0) return;
        buffer.append(chunk, static_cast<size_t>(n));
      }
      const std::string body = buffer.substr(end + 4, length);
      buffer.erase(0, end + 4 + length);
      const std::string path = head.substr(
          head.find(' ') + 1, head.find(' ', head.find(' ') + 1) - head.find(' ') - 1);
      const int serial = ++requests_;
      {
        std::lock_guard<std::mutex> lock(mu_);
        bodies_.push_back(body);
        paths_.push_back(path);
      }
      if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      const std::string tenant = path.substr(1, path.find('/', 1) - 1);
      std::string json;
      if (status == 200) {
        json = StrCat(R"({"token_type":"Bearer","expires_in":)", expires_in.load(),
                      R"(,"access_token":")", Jwt(tenant, jwt_lifetime, serial), R"("})");
      } else {
        json =
            R"({"error":"invalid_client","error_description":"AADSTS7000215: Invalid client secret provided.\r\nTrace ID: x"})";
      }
      const std::string answer =
          StrCat("HTTP/1.1 ", status.load(), " X\r\nContent-Type: application/json\r\n",
                 "Content-Length: ", json.size(), "\r\n\r\n", json);
      if (::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL) < 0) return;
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> requests_{0};
  std::thread acceptor_;
  mutable std::mutex mu_;
  std::vector<std::thread> workers_;
  std::vector<std::string> bodies_;
  std::vector<std::string> paths_;
};

}  // namespace lance::testing

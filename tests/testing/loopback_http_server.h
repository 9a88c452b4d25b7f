// SPDX-License-Identifier: Apache-2.0
// A scripted HTTP/1.1 server on a loopback socket, for the transport behaviour a real
// server cannot be made to show on demand (5xx and throttling, stalls, silence, a token
// service's answers): keep-alive connections, each request (with its body) handed to a
// handler that writes the whole answer.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace lance::testing {

/// A request as the server read it.
struct SeenRequest {
  std::string method, target, headers, body;
  std::string head;  ///< the request line and the headers, without the blank line
  std::string Header(std::string_view name) const {
    // headers is "name: value\r\n"...; names compared case-insensitively.
    size_t pos = 0;
    while (pos < headers.size()) {
      size_t eol = headers.find("\r\n", pos);
      if (eol == std::string::npos) eol = headers.size();
      std::string_view line(headers.data() + pos, eol - pos);
      size_t colon = line.find(':');
      if (colon != std::string_view::npos && colon == name.size() &&
          strncasecmp(line.data(), name.data(), name.size()) == 0) {
        std::string_view v = line.substr(colon + 1);
        while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
        return std::string(v);
      }
      pos = eol + 2;
    }
    return "<absent>";
  }
};

/// The handler's answer to a request; no bytes and no close: no answer (the next request
/// is read).
struct Reply {
  std::string raw;     // full HTTP response bytes
  int delay_ms = 0;    // before sending
  bool close = false;  // close the connection after sending (or instead, if raw empty)
};

/// Hands every request to `handler` (with its index, in arrival order) on the
/// connection's own thread; counts connections and keeps the requests.
class LoopbackHttpServer {
 public:
  using Handler = std::function<Reply(const SeenRequest&, int index)>;
  explicit LoopbackHttpServer(Handler handler) : handler_(std::move(handler)) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    int one = 1;
    setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        listen(listen_fd_, 16) != 0) {
      ADD_FAILURE() << "cannot listen on loopback";
      return;
    }
    socklen_t len = sizeof(addr);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { AcceptLoop(); });
  }
  ~LoopbackHttpServer() {
    stop_ = true;
    acceptor_.join();
    close(listen_fd_);
    std::vector<std::thread> conns;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int fd : fds_) shutdown(fd, SHUT_RDWR);
      conns.swap(connections_);
    }
    for (auto& t : conns) t.join();
  }
  /// "http://127.0.0.1:<port>".
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<SeenRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }
  int connections() const { return accepted_.load(); }

 private:
  void AcceptLoop() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      int fd = accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      ++accepted_;
      std::lock_guard<std::mutex> lock(mu_);
      fds_.push_back(fd);
      connections_.emplace_back([this, fd] { Serve(fd); });
    }
  }
  void Serve(int fd) {
    std::string buf;
    char tmp[65536];
    while (!stop_) {
      size_t header_end;
      while ((header_end = buf.find("\r\n\r\n")) == std::string::npos) {
        ssize_t n = recv(fd, tmp, sizeof(tmp), 0);
        if (n <= 0) return Close(fd);
        buf.append(tmp, static_cast<size_t>(n));
      }
      SeenRequest req;
      req.head = buf.substr(0, header_end);
      const std::string head = buf.substr(0, header_end + 2);
      const size_t first_eol = head.find("\r\n");
      const std::string request_line = head.substr(0, first_eol);
      const size_t sp1 = request_line.find(' ');
      const size_t sp2 = request_line.rfind(' ');
      req.method = request_line.substr(0, sp1);
      req.target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
      req.headers = head.substr(first_eol + 2);
      size_t body_len = 0;
      const std::string cl = req.Header("content-length");
      if (cl != "<absent>") body_len = std::stoul(cl);
      buf.erase(0, header_end + 4);
      while (buf.size() < body_len) {
        ssize_t n = recv(fd, tmp, sizeof(tmp), 0);
        if (n <= 0) return Close(fd);
        buf.append(tmp, static_cast<size_t>(n));
      }
      req.body = buf.substr(0, body_len);
      buf.erase(0, body_len);
      int index;
      {
        std::lock_guard<std::mutex> lock(mu_);
        index = static_cast<int>(seen_.size());
        seen_.push_back(req);
      }
      Reply reply = handler_(req, index);
      if (reply.delay_ms > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(reply.delay_ms));
      if (req.method == "HEAD") {
        // No body after the headers of a HEAD answer.
        const size_t end = reply.raw.find("\r\n\r\n");
        if (end != std::string::npos) reply.raw.resize(end + 4);
      }
      size_t sent = 0;
      while (sent < reply.raw.size()) {
        ssize_t n =
            send(fd, reply.raw.data() + sent, reply.raw.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) return Close(fd);
        sent += static_cast<size_t>(n);
      }
      if (reply.close) return Close(fd);
    }
    Close(fd);
  }
  void Close(int fd) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& f : fds_) {
      if (f == fd) {
        close(fd);
        f = -1;
      }
    }
  }

  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::thread acceptor_;
  mutable std::mutex mu_;
  std::vector<int> fds_;
  std::vector<std::thread> connections_;
  std::vector<SeenRequest> seen_;
};

}  // namespace lance::testing

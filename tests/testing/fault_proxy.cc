// SPDX-License-Identifier: Apache-2.0
#include "tests/testing/fault_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

namespace lance::testing {

namespace {

constexpr size_t kMaxHead = 64 << 10;
// A safety net only: no socket operation of a test should block this long.
constexpr int kSocketTimeoutSeconds = 60;

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Sends all of `data`; false when the peer is gone. MSG_NOSIGNAL: a vanished client must
// not kill the test process with SIGPIPE.
bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

void SetTimeouts(int fd) {
  timeval tv{};
  tv.tv_sec = kSocketTimeoutSeconds;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

// The value of header `name` in a head ("Name: value" lines after the first), or empty.
std::string HeaderValue(std::string_view head, std::string_view name) {
  size_t pos = head.find("\r\n");
  while (pos != std::string_view::npos && pos + 2 < head.size()) {
    size_t start = pos + 2;
    size_t end = head.find("\r\n", start);
    std::string_view line = head.substr(
        start, end == std::string_view::npos ? std::string_view::npos : end - start);
    size_t colon = line.find(':');
    if (colon != std::string_view::npos &&
        EqualsIgnoreCase(Trim(line.substr(0, colon)), name)) {
      return std::string(Trim(line.substr(colon + 1)));
    }
    pos = end;
  }
  return "";
}

// Parses a decimal Content-Length; -1 when absent or malformed.
int64_t ParseLength(const std::string& text) {
  if (text.empty() || text.size() > 18) return -1;
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace

const char* FaultActionName(FaultAction action) {
  switch (action) {
    case FaultAction::kForward:
      return "forward";
    case FaultAction::kSlowDown:
      return "503 SlowDown";
    case FaultAction::kInternalError:
      return "500 InternalError";
    case FaultAction::kReset:
      return "reset";
    case FaultAction::kStall:
      return "stall";
    case FaultAction::kTruncateBody:
      return "truncate body";
    case FaultAction::kDropReply:
      return "drop reply";
  }
  return "?";
}

struct FaultProxy::Request {
  std::string method;
  std::string target;
  std::string head;  // request line + headers, CRLFCRLF included
  std::string body;
};

Result<std::unique_ptr<FaultProxy>> FaultProxy::Start(
    const std::string& upstream_endpoint) {
  constexpr std::string_view kScheme = "http://";
  std::string_view rest = upstream_endpoint;
  if (rest.substr(0, kScheme.size()) != kScheme) {
    return Status::Invalid(
        "FaultProxy: upstream endpoint must be http://host:port, got '" +
        upstream_endpoint + "'");
  }
  rest.remove_prefix(kScheme.size());
  while (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.empty() || rest.find('/') != std::string_view::npos) {
    return Status::Invalid(
        "FaultProxy: upstream endpoint must be http://host:port, got '" +
        upstream_endpoint + "'");
  }
  std::unique_ptr<FaultProxy> proxy(new FaultProxy());
  size_t colon = rest.rfind(':');
  proxy->upstream_host_ = std::string(rest.substr(0, colon));
  proxy->upstream_port_ = 80;
  if (colon != std::string_view::npos) {
    int64_t port = ParseLength(std::string(rest.substr(colon + 1)));
    if (port <= 0 || port > 65535) {
      return Status::Invalid("FaultProxy: bad port in upstream endpoint '" +
                             upstream_endpoint + "'");
    }
    proxy->upstream_port_ = static_cast<int>(port);
  }

  if (::pipe2(proxy->wake_pipe_, O_CLOEXEC) != 0) {
    return Status::IOError(std::string("FaultProxy: pipe: ") + std::strerror(errno));
  }
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return Status::IOError(std::string("FaultProxy: socket: ") + std::strerror(errno));
  proxy->listen_fd_ = fd;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(fd, 128) != 0) {
    return Status::IOError(std::string("FaultProxy: bind/listen on 127.0.0.1: ") +
                           std::strerror(errno));
  }
  socklen_t len = sizeof(addr);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return Status::IOError(std::string("FaultProxy: getsockname: ") +
                           std::strerror(errno));
  }
  proxy->port_ = ntohs(addr.sin_port);
  FaultProxy* raw = proxy.get();
  proxy->acceptor_ = std::thread([raw] { raw->AcceptLoop(); });
  return proxy;
}

FaultProxy::~FaultProxy() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    // Wakes handlers blocked in recv/send on either side; each still closes its own fds.
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  stopped_cv_.notify_all();
  if (wake_pipe_[1] >= 0) {
    char c = 1;
    ssize_t ignored = ::write(wake_pipe_[1], &c, 1);
    (void)ignored;
  }
  if (acceptor_.joinable()) acceptor_.join();
  for (Worker& w : workers_) w.thread.join();
  workers_.clear();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  for (int fd : wake_pipe_) {
    if (fd >= 0) ::close(fd);
  }
}

std::string FaultProxy::endpoint() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

void FaultProxy::AddFault(FaultRule rule) {
  std::lock_guard<std::mutex> lock(mu_);
  if (rule.count == 0) return;
  rules_.push_back(std::move(rule));
}

void FaultProxy::AddFault(FaultAction action, int count, std::string method,
                          std::string target_contains) {
  FaultRule rule;
  rule.action = action;
  rule.count = count;
  rule.method = std::move(method);
  rule.target_contains = std::move(target_contains);
  AddFault(std::move(rule));
}

void FaultProxy::ClearFaults() {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.clear();
}

std::vector<ProxiedRequest> FaultProxy::log() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_;
}

int64_t FaultProxy::CountRequests(const std::string& method,
                                  const std::string& target_contains) const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::count_if(log_.begin(), log_.end(), [&](const ProxiedRequest& r) {
    return (method.empty() || r.method == method) &&
           r.target.find(target_contains) != std::string::npos;
  });
}

FaultRule FaultProxy::TakeRule(const std::string& method, const std::string& target) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = rules_.begin(); it != rules_.end(); ++it) {
    if (!it->method.empty() && it->method != method) continue;
    if (target.find(it->target_contains) == std::string::npos) continue;
    FaultRule taken = *it;
    if (it->count != FaultRule::kForever && --it->count == 0) rules_.erase(it);
    return taken;
  }
  FaultRule forward;
  forward.action = FaultAction::kForward;
  return forward;
}

void FaultProxy::SetUpstreamStatus(size_t log_index, int status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (log_index < log_.size()) log_[log_index].upstream_status = status;
}

bool FaultProxy::WaitStopped(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return stopped_cv_.wait_for(lock, timeout, [this] { return stopping_; });
}

void FaultProxy::Track(int fd) {
  std::lock_guard<std::mutex> lock(mu_);
  open_fds_.insert(fd);
  // Registered after the destructor's sweep: shut it down now so nothing blocks on it.
  if (stopping_) ::shutdown(fd, SHUT_RDWR);
}

void FaultProxy::Untrack(int fd) {
  std::lock_guard<std::mutex> lock(mu_);
  open_fds_.erase(fd);
}

void FaultProxy::AcceptLoop() {
  while (true) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
    int n = ::poll(fds, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || (fds[1].revents & POLLIN)) break;
    if (!(fds[0].revents & POLLIN)) continue;
    int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) {
        ::close(client);
        break;
      }
    }
    // Joins handlers that finished, so a long test does not accumulate threads.
    for (auto it = workers_.begin(); it != workers_.end();) {
      if (it->done->load()) {
        it->thread.join();
        it = workers_.erase(it);
      } else {
        ++it;
      }
    }
    Track(client);
    auto done = std::make_shared<std::atomic<bool>>(false);
    workers_.push_back(Worker{std::thread([this, client, done] {
                                Serve(client);
                                done->store(true);
                              }),
                              done});
  }
}

void FaultProxy::Serve(int client_fd) {
  SetTimeouts(client_fd);
  auto finish = [&](bool reset) {
    Untrack(client_fd);
    if (reset) {
      // Linger 0: close sends RST instead of FIN, as a crashed server or middlebox would.
      linger lg{1, 0};
      ::setsockopt(client_fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    } else {
      ::shutdown(client_fd, SHUT_WR);
    }
    ::close(client_fd);
  };

  // The request head.
  Request req;
  std::string buf;
  size_t head_end = std::string::npos;
  char chunk[64 << 10];
  while (head_end == std::string::npos) {
    ssize_t n = ::recv(client_fd, chunk, sizeof(chunk), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || buf.size() > kMaxHead) return finish(false);
    buf.append(chunk, static_cast<size_t>(n));
    head_end = buf.find("\r\n\r\n");
  }
  req.head = buf.substr(0, head_end + 4);
  req.body = buf.substr(head_end + 4);
  {
    std::string_view line(req.head);
    line = line.substr(0, line.find("\r\n"));
    size_t sp1 = line.find(' ');
    size_t sp2 = line.find(' ', sp1 == std::string_view::npos ? 0 : sp1 + 1);
    if (sp1 == std::string_view::npos || sp2 == std::string_view::npos)
      return finish(false);
    req.method = std::string(line.substr(0, sp1));
    req.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
  }
  if (!HeaderValue(req.head, "Transfer-Encoding").empty()) {
    // Not needed by the clients under test; refuse loudly rather than misframe.
    SendAll(
        client_fd,
        "HTTP/1.1 501 Not Implemented\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    return finish(false);
  }
  std::string length_text = HeaderValue(req.head, "Content-Length");
  int64_t length = length_text.empty() ? 0 : ParseLength(length_text);
  if (length < 0) return finish(false);
  if (EqualsIgnoreCase(HeaderValue(req.head, "Expect"), "100-continue") &&
      static_cast<int64_t>(req.body.size()) < length) {
    // The client waits for this before sending the body; the proxy answers it itself
    // and strips Expect when forwarding.
    if (!SendAll(client_fd, "HTTP/1.1 100 Continue\r\n\r\n")) return finish(false);
  }
  while (static_cast<int64_t>(req.body.size()) < length) {
    size_t want =
        std::min<size_t>(sizeof(chunk), static_cast<size_t>(length) - req.body.size());
    ssize_t n = ::recv(client_fd, chunk, want, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return finish(false);
    req.body.append(chunk, static_cast<size_t>(n));
  }

  requests_.fetch_add(1);
  FaultRule rule = TakeRule(req.method, req.target);
  size_t log_index;
  {
    std::lock_guard<std::mutex> lock(mu_);
    log_.push_back(ProxiedRequest{req.method, req.target, rule.action, 0});
    log_index = log_.size() - 1;
  }
  if (rule.action != FaultAction::kForward) faults_.fetch_add(1);
  if (rule.before) rule.before(req.method, req.target);

  switch (rule.action) {
    case FaultAction::kSlowDown:
    case FaultAction::kInternalError: {
      bool slow = rule.action == FaultAction::kSlowDown;
      std::string id = "faultproxy-" + std::to_string(request_ids_.fetch_add(1) + 1);
      std::string body =
          std::string("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>") +
          (slow ? "SlowDown" : "InternalError") + "</Code><Message>" +
          (slow ? "Please reduce your request rate."
                : "We encountered an internal error. Please try again.") +
          "</Message><RequestId>" + id + "</RequestId></Error>";
      // A HEAD answer carries no body (the client would not read one).
      bool head = req.method == "HEAD";
      std::string response =
          std::string("HTTP/1.1 ") +
          (slow ? "503 Slow Down" : "500 Internal Server Error") +
          "\r\nContent-Type: application/xml\r\nx-amz-request-id: " + id +
          "\r\nContent-Length: " + std::to_string(head ? 0 : body.size()) +
          "\r\nConnection: close\r\n\r\n" + (head ? "" : body);
      SendAll(client_fd, response);
      return finish(false);
    }
    case FaultAction::kReset:
      return finish(true);
    case FaultAction::kStall:
      WaitStopped(rule.stall);
      return finish(false);
    case FaultAction::kForward:
    case FaultAction::kTruncateBody:
    case FaultAction::kDropReply:
      Forward(client_fd, req, rule.action, log_index);
      return finish(rule.action == FaultAction::kDropReply && rule.reset_on_drop);
  }
}

void FaultProxy::Forward(int client_fd, const Request& req, FaultAction action,
                         size_t log_index) {
  auto bad_gateway = [&](const std::string& why) {
    std::string body = "fault proxy: " + why;
    SendAll(client_fd,
            "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: " +
                std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
  };

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(upstream_host_.c_str(), std::to_string(upstream_port_).c_str(),
                    &hints, &found) != 0 ||
      found == nullptr) {
    return bad_gateway("cannot resolve " + upstream_host_);
  }
  int up = -1;
  for (addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    up = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (up < 0) continue;
    if (::connect(up, ai->ai_addr, ai->ai_addrlen) == 0) break;
    ::close(up);
    up = -1;
  }
  ::freeaddrinfo(found);
  if (up < 0) {
    return bad_gateway("cannot connect to " + upstream_host_ + ":" +
                       std::to_string(upstream_port_));
  }
  SetTimeouts(up);
  Track(up);

  // The head as received, minus hop-by-hop headers, plus "Connection: close" so the
  // server marks the end of its answer by closing.
  std::string head;
  {
    std::string_view h(req.head);
    size_t line_end = h.find("\r\n");
    head.append(h.substr(0, line_end + 2));
    size_t pos = line_end + 2;
    while (pos < h.size()) {
      size_t end = h.find("\r\n", pos);
      std::string_view line = h.substr(pos, end - pos);
      pos = end + 2;
      if (line.empty()) break;
      std::string_view name = Trim(line.substr(0, line.find(':')));
      if (EqualsIgnoreCase(name, "Connection") || EqualsIgnoreCase(name, "Keep-Alive") ||
          EqualsIgnoreCase(name, "Proxy-Connection") ||
          EqualsIgnoreCase(name, "Expect")) {
        continue;
      }
      head.append(line);
      head.append("\r\n");
    }
    head.append("Connection: close\r\n\r\n");
  }

  bool sent = SendAll(up, head) && SendAll(up, req.body);
  // The status line (forward) or everything (truncate, drop: held back, and for a drop
  // read to the end so the server has finished the request before the client is cut).
  const bool hold =
      action == FaultAction::kTruncateBody || action == FaultAction::kDropReply;
  std::string response;
  bool status_seen = false;
  char chunk[64 << 10];
  while (sent) {
    ssize_t n = ::recv(up, chunk, sizeof(chunk), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    std::string_view data(chunk, static_cast<size_t>(n));
    if (hold) {
      response.append(data);
      continue;
    }
    if (!status_seen) {
      response.append(data.substr(0, std::min<size_t>(data.size(), 64)));
      if (response.find("\r\n") != std::string::npos || response.size() >= 64) {
        status_seen = true;
      }
    }
    if (!SendAll(client_fd, data)) break;
  }
  Untrack(up);
  ::close(up);

  // "HTTP/1.1 200 OK": the status is the second word.
  if (response.size() > 12 && response.compare(0, 5, "HTTP/") == 0) {
    SetUpstreamStatus(log_index, std::atoi(response.c_str() + response.find(' ') + 1));
  }
  if (action == FaultAction::kTruncateBody) {
    size_t head_end = response.find("\r\n\r\n");
    if (head_end == std::string::npos) return;  // nothing useful came back: just close
    size_t body_start = head_end + 4;
    size_t body_size = response.size() - body_start;
    // The head is relayed as is, so Content-Length still promises the whole body.
    SendAll(client_fd, std::string_view(response).substr(0, body_start + body_size / 2));
  }
}

}  // namespace lance::testing

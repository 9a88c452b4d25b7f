// SPDX-License-Identifier: Apache-2.0
// HttpServer (http_server.h): the connection loop, the bounded worker queue and TLS.

#include "server/http_server.h"

#include <netdb.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace lance::server::internal {

namespace {

/// Set on the accepting thread while it runs a connection it refuses (ConnectionQueue).
thread_local bool t_refusing = false;

/// The peer or local address of `sock` as httplib's streams report them.
void SocketAddress(int sock, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  const int rc = peer ? getpeername(sock, reinterpret_cast<sockaddr*>(&addr), &len)
                      : getsockname(sock, reinterpret_cast<sockaddr*>(&addr), &len);
  ip.clear();
  port = 0;
  if (rc != 0) return;
  char host[NI_MAXHOST];
  char serv[NI_MAXSERV];
  if (getnameinfo(reinterpret_cast<sockaddr*>(&addr), len, host, sizeof(host), serv,
                  sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
    ip = host;
    port = std::atoi(serv);
  }
}

bool PollFor(int sock, short events, int timeout_ms) {
  pollfd p{sock, events, 0};
  int rc;
  do {
    rc = ::poll(&p, 1, timeout_ms);
  } while (rc < 0 && errno == EINTR);
  return rc > 0;
}

class PlainStream final : public httplib::Stream {
 public:
  PlainStream(int sock, int read_ms, int write_ms)
      : sock_(sock), read_ms_(read_ms), write_ms_(write_ms) {}
  bool is_readable() const override { return PollFor(sock_, POLLIN, read_ms_); }
  bool is_writable() const override { return PollFor(sock_, POLLOUT, write_ms_); }
  ssize_t read(char* ptr, size_t size) override {
    if (!is_readable()) return -1;
    ssize_t n;
    do {
      n = ::recv(sock_, ptr, size, 0);
    } while (n < 0 && errno == EINTR);
    return n;
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do {
      n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    SocketAddress(sock_, true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    SocketAddress(sock_, false, ip, port);
  }
  socket_t socket() const override { return sock_; }

 private:
  int sock_;
  int read_ms_;
  int write_ms_;
};

class TlsStream final : public httplib::Stream {
 public:
  TlsStream(int sock, SSL* ssl, int read_ms, int write_ms)
      : sock_(sock), ssl_(ssl), read_ms_(read_ms), write_ms_(write_ms) {}
  bool is_readable() const override {
    return SSL_pending(ssl_) > 0 || PollFor(sock_, POLLIN, read_ms_);
  }
  bool is_writable() const override { return PollFor(sock_, POLLOUT, write_ms_); }
  ssize_t read(char* ptr, size_t size) override {
    if (!is_readable()) return -1;
    const int n = SSL_read(ssl_, ptr, static_cast<int>(std::min<size_t>(size, INT_MAX)));
    if (n > 0) return n;
    return SSL_get_error(ssl_, n) == SSL_ERROR_ZERO_RETURN ? 0 : -1;
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    const int n = SSL_write(ssl_, ptr, static_cast<int>(std::min<size_t>(size, INT_MAX)));
    return n > 0 ? n : -1;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    SocketAddress(sock_, true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    SocketAddress(sock_, false, ip, port);
  }
  socket_t socket() const override { return sock_; }
  bool has_buffered() const { return SSL_pending(ssl_) > 0; }

 private:
  int sock_;
  SSL* ssl_;
  int read_ms_;
  int write_ms_;
};

/// A worker pool whose queue is bounded: a connection beyond `max_connections` (open
/// ones plus those waiting) is run on the accepting thread at once with t_refusing set,
/// which makes the server answer it 503 and close it without reading anything.
class ConnectionQueue final : public httplib::TaskQueue {
 public:
  ConnectionQueue(int threads, int max_connections) : max_(max_connections) {
    for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { Work(); });
  }
  void enqueue(std::function<void()> fn) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!shutdown_ && active_ + static_cast<int>(jobs_.size()) < max_) {
        jobs_.push_back(std::move(fn));
        cv_.notify_one();
        return;
      }
    }
    t_refusing = true;
    fn();
    t_refusing = false;
  }
  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      shutdown_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

 private:
  void Work() {
    while (true) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return shutdown_ || !jobs_.empty(); });
        // Connections still queued at shutdown are run too: the server closes them.
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
        ++active_;
      }
      job();
      std::lock_guard<std::mutex> lock(mu_);
      --active_;
    }
  }

  const int max_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  int active_ = 0;
  bool shutdown_ = false;
  std::vector<std::thread> workers_;
};

struct SslCtxDeleter {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};

std::string OpenSslError() {
  unsigned long err = ERR_get_error();  // NOLINT(google-runtime-int): OpenSSL's type
  ERR_clear_error();
  if (err == 0) return "unknown error";
  char buf[256];
  ERR_error_string_n(err, buf, sizeof(buf));
  return buf;
}

Result<std::shared_ptr<SSL_CTX>> MakeTlsContext(const std::string& cert_file,
                                                const std::string& key_file) {
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_server_method()), SslCtxDeleter{});
  if (ctx == nullptr)
    return Status::IOError("cannot create a TLS context: " + OpenSslError());
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                                     SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), cert_file.c_str()) != 1) {
    return Status::Invalid("cannot load the TLS certificate chain from ", cert_file, ": ",
                           OpenSslError());
  }
  // OpenSSL's messages about a key name the file and the reason, never key material.
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return Status::Invalid("cannot load the TLS private key from ", key_file, ": ",
                           OpenSslError());
  }
  if (SSL_CTX_check_private_key(ctx.get()) != 1) {
    return Status::Invalid("the TLS private key in ", key_file,
                           " does not match the certificate in ", cert_file);
  }
  return ctx;
}

}  // namespace

/// httplib's Server with our connection loop (see the file comment of http_server.h).
class ConnectionServer final : public httplib::Server {
 public:
  ConnectionServer(std::shared_ptr<SSL_CTX> tls, std::string overload_body)
      : tls_(std::move(tls)), overload_body_(std::move(overload_body)) {
    stop_event_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  }
  ~ConnectionServer() override {
    if (stop_event_ >= 0) ::close(stop_event_);
  }

  /// \brief Wakes every idle connection for good; later connections close at once.
  void BeginStop() {
    stopping_ = true;
    if (stop_event_ >= 0) {
      const uint64_t one = 1;
      (void)!::write(stop_event_, &one, sizeof(one));
    }
  }
  int64_t refused() const { return refused_.load(); }

 private:
  bool process_and_close_socket(socket_t sock) override {
    if (t_refusing) {
      Refuse(sock);
    } else if (!stopping_) {
      if (tls_) {
        ServeTls(sock);
      } else {
        PlainStream stream(sock, TimeoutMs(read_timeout_sec_, read_timeout_usec_),
                           TimeoutMs(write_timeout_sec_, write_timeout_usec_));
        Loop(stream, sock, [] { return false; });
      }
    }
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return true;
  }

  static int TimeoutMs(time_t sec, time_t usec) {
    return static_cast<int>(sec * 1000 + usec / 1000);
  }

  void Refuse(int sock) {
    refused_.fetch_add(1);
    if (tls_) return;  // a TLS client would not understand a plain answer
    std::string response =
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
        "Retry-After: 1\r\nConnection: close\r\nContent-Length: " +
        std::to_string(overload_body_.size()) + "\r\n\r\n" + overload_body_;
    (void)!::send(sock, response.data(), response.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  }

  void ServeTls(int sock) {
    SSL* ssl = SSL_new(tls_.get());
    if (ssl == nullptr) return;
    SSL_set_fd(ssl, sock);
    // The accepted socket carries SO_RCVTIMEO / SO_SNDTIMEO (httplib sets the read and
    // write timeouts on it), so a client that stalls the handshake is dropped.
    if (SSL_accept(ssl) == 1) {
      TlsStream stream(sock, ssl, TimeoutMs(read_timeout_sec_, read_timeout_usec_),
                       TimeoutMs(write_timeout_sec_, write_timeout_usec_));
      Loop(stream, sock, [&] { return stream.has_buffered(); });
      SSL_shutdown(ssl);
    }
    ERR_clear_error();
    SSL_free(ssl);
  }

  /// Requests of one connection until it closes, errs, idles out or the server stops;
  /// a request in flight always finishes.
  template <typename Buffered>
  void Loop(httplib::Stream& stream, int sock, Buffered&& buffered) {
    const int idle_ms = static_cast<int>(keep_alive_timeout_sec_ * 1000);
    for (size_t count = keep_alive_max_count_; count > 0 && !stopping_; --count) {
      if (!buffered() && !WaitForRequest(sock, idle_ms)) return;
      if (stopping_) return;
      bool closed = false;
      if (!process_request(stream, count == 1, closed, [](httplib::Request&) {}) ||
          closed) {
        return;
      }
    }
  }

  /// Waits until `sock` has data (true), or the idle time passes or the server stops
  /// (false).
  bool WaitForRequest(int sock, int idle_ms) {
    pollfd fds[2] = {{sock, POLLIN, 0}, {stop_event_, POLLIN, 0}};
    int rc;
    do {
      rc = ::poll(fds, stop_event_ >= 0 ? 2 : 1, idle_ms);
    } while (rc < 0 && errno == EINTR);
    return rc > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0 && !stopping_;
  }

  std::shared_ptr<SSL_CTX> tls_;
  std::string overload_body_;
  int stop_event_ = -1;
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> refused_{0};
};

class HttpServer::Impl {
 public:
  Impl(HttpServerOptions options, HttpCallbacks callbacks, std::shared_ptr<SSL_CTX> tls)
      : options_(std::move(options)),
        callbacks_(std::move(callbacks)),
        tls_(tls != nullptr),
        server_(std::move(tls), callbacks_.overload_body) {}

  ~Impl() { Stop(); }

  Status Start() {
    std::lock_guard<std::mutex> lock(lifecycle_mu_);
    if (started_) return Status::Invalid("the server is already started");
    const int threads = std::max(1, options_.threads);
    const int max_connections = std::max(1, options_.max_connections);
    server_.new_task_queue = [threads, max_connections] {
      return new ConnectionQueue(threads, max_connections);
    };
    server_.set_read_timeout(options_.read_timeout_seconds, 0);
    server_.set_write_timeout(options_.write_timeout_seconds, 0);
    server_.set_keep_alive_timeout(options_.keep_alive_timeout_seconds);
    server_.set_keep_alive_max_count(1000);
    // SO_REUSEADDR only (httplib's default adds SO_REUSEPORT, which lets a second
    // server bind a port already served).
    server_.set_socket_options([](int sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
    // One byte over the limit reaches the handler's own check; httplib answers a
    // declared length over it with 413 itself (after skipping the body), and the
    // refused callback dresses that answer.
    const int64_t max = std::max<int64_t>(0, options_.max_body_bytes);
    server_.set_payload_max_length(static_cast<size_t>(max));
    auto handler = [this](const httplib::Request& req, httplib::Response& res) {
      callbacks_.handle(req, res, req.body);
    };
    // Requests that may carry a body read it here: a POST without Content-Length and
    // without chunked encoding has no body (httplib alone would wait for EOF), and a
    // body over the limit (chunked ones included, which httplib does not bound) is
    // refused while it is read.
    auto reading = [this, max](const httplib::Request& req, httplib::Response& res,
                               const httplib::ContentReader& reader) {
      std::string body;
      bool over = false;
      const bool has_length = req.has_header("Content-Length");
      const bool chunked = req.get_header_value("Transfer-Encoding") == "chunked";
      if (has_length || chunked) {
        bool read = reader([&](const char* data, size_t len) {
          if (static_cast<int64_t>(body.size() + len) > max) {
            over = true;
            return false;
          }
          body.append(data, len);
          return true;
        });
        if (!read) {
          over = over || res.status == 413 ||
                 (has_length && req.get_header_value<uint64_t>("Content-Length") >
                                    static_cast<uint64_t>(max));
          res.set_header("Connection", "close");
          callbacks_.unreadable(req, res, over);
          return;
        }
      }
      callbacks_.handle(req, res, body);
    };
    server_.Get(".*", handler);
    server_.Post(".*", reading);
    server_.Put(".*", reading);
    server_.Delete(".*", reading);
    server_.Patch(".*", reading);
    server_.Options(".*", handler);
    server_.set_error_handler(
        [this](const httplib::Request& req, httplib::Response& res) {
          if (!res.body.empty()) return;
          callbacks_.refused(req, res);
        });
    server_.set_exception_handler([this](const httplib::Request& req,
                                         httplib::Response& res,
                                         const std::exception_ptr&) {
      res.status = 500;
      callbacks_.refused(req, res);
    });
    int bound = 0;
    if (options_.port == 0) {
      bound = server_.bind_to_any_port(options_.host);
    } else {
      bound = server_.bind_to_port(options_.host, options_.port) ? options_.port : -1;
    }
    if (bound <= 0) {
      return Status::IOError("cannot listen on " + options_.host + ":" +
                             std::to_string(options_.port));
    }
    port_ = bound;
    started_ = true;
    thread_ = std::thread([this] {
      server_.listen_after_bind();
      listen_returned_ = true;
    });
    // Wait until the accept loop runs: httplib's stop() does nothing before that.
    while (!server_.is_running() && !listen_returned_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (listen_returned_) {
      return Status::IOError("cannot serve on " + options_.host + ":" +
                             std::to_string(port_));
    }
    return Status::OK();
  }

  void Stop() {
    std::lock_guard<std::mutex> lock(lifecycle_mu_);
    if (!started_ || stopped_) return;
    stopped_ = true;
    server_.BeginStop();
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  int port() const { return port_; }
  bool tls() const { return tls_; }
  int64_t refused() const { return server_.refused(); }

 private:
  HttpServerOptions options_;
  HttpCallbacks callbacks_;
  bool tls_;
  ConnectionServer server_;
  std::thread thread_;
  std::mutex lifecycle_mu_;
  bool started_ = false;
  bool stopped_ = false;
  std::atomic<bool> listen_returned_{false};
  std::atomic<int> port_{0};
};

Result<std::unique_ptr<HttpServer>> HttpServer::Make(HttpServerOptions options,
                                                     HttpCallbacks callbacks) {
  std::shared_ptr<SSL_CTX> tls;
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return Status::Invalid("TLS needs both a certificate file and a private key file");
  }
  if (!options.tls_cert_file.empty()) {
    auto ctx = MakeTlsContext(options.tls_cert_file, options.tls_key_file);
    if (!ctx.ok()) return ctx.status();
    tls = std::move(*ctx);
  }
  return std::unique_ptr<HttpServer>(new HttpServer(
      std::make_unique<Impl>(std::move(options), std::move(callbacks), std::move(tls))));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() = default;
Status HttpServer::Start() { return impl_->Start(); }
void HttpServer::Stop() { impl_->Stop(); }
int HttpServer::port() const { return impl_->port(); }
bool HttpServer::tls() const { return impl_->tls(); }
int64_t HttpServer::connections_refused() const { return impl_->refused(); }

}  // namespace lance::server::internal

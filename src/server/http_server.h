// SPDX-License-Identifier: Apache-2.0
// HttpServer: the connections of the REST namespace server, on cpp-httplib's request
// parser (Debian's libcpp-httplib 0.11.4) but with our own connection loop, because
// httplib's own has three gaps a server exposed to a network cannot keep:
//  - Stop() waited for every idle keep-alive connection (httplib only looks at its stop
//    flag between requests): here an idle connection waits on its socket and on a stop
//    event at once, so Stop() returns as soon as requests in flight are answered;
//  - connections queued for a worker without bound: here at most max_connections are
//    open or waiting, and any more are answered 503 (closed, for TLS) on the accepting
//    thread at once;
//  - TLS came with httplib's own defaults (TLS 1.1 allowed): here the context is ours
//    (TLS 1.2 or later, no compression, no renegotiation).
// What happens inside one request (parsing, routing, body size) is httplib's.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "lance/result.h"

namespace lance::server::internal {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  int threads = 8;
  int max_connections = 256;
  int64_t max_body_bytes = int64_t{256} << 20;
  /// \brief One read or write that waits longer fails (and closes the connection).
  int read_timeout_seconds = 10;
  int write_timeout_seconds = 30;
  /// \brief An idle connection is closed after this long without a request.
  int keep_alive_timeout_seconds = 5;
  /// \brief Both set: TLS with this PEM certificate chain and key.
  std::string tls_cert_file;
  std::string tls_key_file;
};

/// \brief What the server calls, on its worker threads.
struct HttpCallbacks {
  /// \brief A request and its body (read whole, within max_body_bytes).
  std::function<void(const httplib::Request&, httplib::Response&, const std::string&)>
      handle;
  /// \brief A request whose body could not be read (`over_limit`: it was too large).
  std::function<void(const httplib::Request&, httplib::Response&, bool over_limit)>
      unreadable;
  /// \brief httplib refused the request itself (res.status is set: 400, 404, 413...).
  std::function<void(const httplib::Request&, httplib::Response&)> refused;
  /// \brief The answer to a connection over max_connections (plain HTTP only).
  std::string overload_body;
};

class HttpServer {
 public:
  /// \return Invalid naming the file when the TLS certificate or key does not load or
  /// only one of them is given.
  static Result<std::unique_ptr<HttpServer>> Make(HttpServerOptions options,
                                                  HttpCallbacks callbacks);
  ~HttpServer();

  /// \brief Binds and serves in background threads. \return IOError naming host:port.
  Status Start();
  /// \brief Stops accepting, lets requests in flight finish, closes idle connections
  /// at once, joins. Idempotent.
  void Stop();
  int port() const;
  bool tls() const;
  int64_t connections_refused() const;

  class Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lance::server::internal

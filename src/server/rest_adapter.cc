// SPDX-License-Identifier: Apache-2.0
// RestAdapter: the Lance REST namespace routes over any LanceNamespace. Three parts, each
// in its own file: http_server (connections, TLS, limits on connections), request_handler
// (authentication, routing, request limits, the access log: socket-free) and routes (one
// entry per spec operation). This file wires them together.

#include "lance/server/rest_adapter.h"

#include <utility>

#include "lance/macros.h"
#include "server/http_server.h"
#include "server/request_handler.h"

namespace lance::server {

namespace {

/// The parts of an httplib request the handler reads.
internal::HttpRequest ToHttpRequest(const httplib::Request& req, std::string body) {
  internal::HttpRequest out;
  out.method = req.method;
  // The raw target (httplib's decoded path loses the difference between '+' and "%2B").
  out.target = req.target.empty() ? req.path : req.target;
  if (req.has_header("x-api-key")) out.api_key = req.get_header_value("x-api-key");
  if (req.has_header("Authorization")) {
    out.authorization = req.get_header_value("Authorization");
  }
  out.body = std::move(body);
  out.remote = req.remote_addr;
  return out;
}

void Answer(const internal::Reply& reply, httplib::Response& res) {
  res.status = reply.status;
  res.set_content(reply.body, reply.content_type);
}

}  // namespace

class RestAdapter::Impl {
 public:
  Impl(std::shared_ptr<ns::LanceNamespace> ns, const RestAdapterOptions& options)
      : handler_(std::move(ns), options) {}

  Status Init(const RestAdapterOptions& options) {
    internal::HttpServerOptions http;
    http.host = options.host;
    http.port = options.port;
    http.threads = options.threads;
    http.max_connections = options.max_connections;
    http.max_body_bytes = options.limits.max_body_bytes;
    http.tls_cert_file = options.tls_cert_file;
    http.tls_key_file = options.tls_key_file;
    internal::HttpCallbacks callbacks;
    callbacks.handle = [this](const httplib::Request& req, httplib::Response& res,
                              const std::string& body) {
      Answer(handler_.Handle(ToHttpRequest(req, body)), res);
    };
    callbacks.unreadable = [this](const httplib::Request& req, httplib::Response& res,
                                  bool over) {
      Answer(handler_.Unreadable(ToHttpRequest(req, ""), over), res);
    };
    callbacks.refused = [this](const httplib::Request& req, httplib::Response& res) {
      Answer(handler_.Refused(ToHttpRequest(req, ""), res.status), res);
    };
    callbacks.overload_body =
        internal::ErrorReply(
            ns::NamespaceError(ns::ErrorCode::kServiceUnavailable,
                               "the server has too many open connections; retry later"),
            "")
            .body;
    LANCE_ASSIGN_OR_RAISE(
        http_, internal::HttpServer::Make(std::move(http), std::move(callbacks)));
    return Status::OK();
  }

  internal::RequestHandler handler_;
  std::unique_ptr<internal::HttpServer> http_;
};

Result<std::unique_ptr<RestAdapter>> RestAdapter::Make(
    std::shared_ptr<ns::LanceNamespace> ns, const RestAdapterOptions& options) {
  if (ns == nullptr) return Status::Invalid("RestAdapter needs a namespace");
  if (options.port < 0 || options.port > 65535) {
    return Status::Invalid("RestAdapter port must be in 0..65535, got ",
                           std::to_string(options.port));
  }
  auto impl = std::make_unique<Impl>(std::move(ns), options);
  LANCE_RETURN_NOT_OK(impl->Init(options));
  return std::unique_ptr<RestAdapter>(new RestAdapter(std::move(impl)));
}

RestAdapter::RestAdapter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RestAdapter::~RestAdapter() { impl_->http_->Stop(); }
Status RestAdapter::Start() { return impl_->http_->Start(); }
void RestAdapter::Stop() { impl_->http_->Stop(); }
int RestAdapter::port() const { return impl_->http_->port(); }
std::string RestAdapter::scheme() const { return impl_->http_->tls() ? "https" : "http"; }
int64_t RestAdapter::connections_refused() const {
  return impl_->http_->connections_refused();
}
std::map<std::string, int64_t> RestAdapter::ops_metrics() const {
  return impl_->handler_.ops_metrics();
}
void RestAdapter::reset_ops_metrics() { impl_->handler_.reset_ops_metrics(); }

}  // namespace lance::server

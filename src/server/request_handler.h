// SPDX-License-Identifier: Apache-2.0
// RequestHandler: one HTTP request of the REST namespace protocol in, one reply out, with
// no socket in sight (http_server.h owns connections): the target is parsed and routed
// (routes.h), the caller authenticated (auth.h) and checked against the route's
// permission, the limits applied, the operation run on the namespace view of the
// caller's permission, and every failure turned into the spec's ErrorResponse. Each
// answer is counted (metrics.h) and logged (request_log.h). The fuzz target drives it
// directly.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lance/server/rest_adapter.h"
#include "server/api_keys.h"
#include "server/metrics.h"
#include "server/request_log.h"
#include "server/routes.h"

namespace lance::server::internal {

/// \brief The parts of an HTTP request the protocol reads.
struct HttpRequest {
  std::string method;
  /// \brief The raw request target: path and query, still percent-encoded.
  std::string target;
  std::optional<std::string> api_key;        ///< `x-api-key`
  std::optional<std::string> authorization;  ///< `Authorization`
  std::string body;
  std::string remote;  ///< peer address, for the access log
};

class RequestHandler {
 public:
  /// \brief REQUIRES: ns non-null. Asks `ns` once for the capped views it serves keys
  /// below admin through.
  RequestHandler(std::shared_ptr<ns::LanceNamespace> ns,
                 const RestAdapterOptions& options);

  /// \brief Answers `request` and writes its access-log line. Thread-safe.
  Reply Handle(const HttpRequest& request);
  /// \brief The answer to a request whose body could not be read (413 when it was over
  /// the size limit, else 400), logged.
  Reply Unreadable(const HttpRequest& request, bool over_limit);
  /// \brief The answer to a request the HTTP layer refused before routing (its
  /// `http_status`: 413, 404, 400, 500...), logged.
  Reply Refused(const HttpRequest& request, int http_status);

  std::map<std::string, int64_t> ops_metrics() const;
  void reset_ops_metrics();

 private:
  // Routes and runs `request`, filling the access-log entry's route, id and principal.
  Reply Dispatch(const HttpRequest& request, AccessEntry* entry);
  /// \brief The route of `method` on the raw path segments ("", "v1", area, id, ...).
  struct RouteMatch {
    const Route* route = nullptr;
    /// \brief Some route has this path, with another method (405, not 404).
    bool method_mismatch = false;
    bool has_id = false;
    std::string raw_id;
  };
  RouteMatch FindRoute(const std::string& method,
                       const std::vector<std::string>& segs) const;
  /// \brief The namespace a principal is served through (see Call::vending_capped).
  ns::LanceNamespace* NamespaceFor(ns::VendPermission permission, bool* capped) const;
  // The access-log entry of `request`, started now, before routing.
  static AccessEntry EntryFor(const HttpRequest& request);
  // Answers `request` with the error `st` (HTTP `http_status`) before routing, logged.
  Reply RefuseEarly(const HttpRequest& request, const Status& st, int http_status);

  std::shared_ptr<ns::LanceNamespace> ns_;
  /// \brief The namespace as served to read and write keys (null: it cannot cap).
  std::shared_ptr<ns::LanceNamespace> read_view_;
  std::shared_ptr<ns::LanceNamespace> write_view_;
  RequestLimits limits_;
  ApiKeyStore keys_;
  AccessLog access_log_;
  std::vector<Route> routes_;
  OpsMetrics metrics_;
};

}  // namespace lance::server::internal

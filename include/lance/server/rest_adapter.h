// SPDX-License-Identifier: Apache-2.0
/// \file rest_adapter.h
/// \brief RestAdapter: serves any LanceNamespace on the Lance REST namespace routes
/// (lance-namespace `docs/src/rest.yaml`), as Lance's `RestAdapter` and pylance's
/// `lance.namespace.RestAdapter`; `lance-cpp serve` runs one.
///
/// - Routes: every operation RestNamespace sends (docs/rest.md has the table); ids are
///   read from the form-decoded path split on the `delimiter` query (default "$"),
///   except that a POST body's `id` array wins (names containing the delimiter).
/// - Errors: every failure is `ErrorResponse{error, code, detail?, instance}` JSON with
///   the spec code of the namespace's Status (NamespaceErrorCode) and the HTTP status
///   the spec gives it (400 InvalidInput, 401, 403, 404 *NotFound, 409 *AlreadyExists /
///   NotEmpty / ConcurrentModification, 501 Unsupported, 503 ServiceUnavailable, 429
///   Throttling, 500 otherwise). Malformed JSON, wrong field types, unknown routes and
///   bodies over max_body_bytes are answered so; never a crash.
/// - Every success body is JSON (`{}` at least), except query_table (Arrow IPC stream).
/// - Authentication (when api_keys or bearer_tokens are set): `x-api-key` or
///   `Authorization: Bearer` must match one; none given -> 401 Unauthenticated (16),
///   wrong -> 403 PermissionDenied (15).
/// - Access log: one JSON line per request (method, route template, table id, status,
///   spec code, duration, bytes): no header values, bodies or storage options.
///
/// Thread-safe; requests are served concurrently by a thread pool.

#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "lance/namespace/namespace.h"
#include "lance/result.h"

namespace lance::server {

struct RestAdapterOptions {
  std::string host = "127.0.0.1";
  /// \brief 0: an ephemeral port (read it with RestAdapter::port()).
  int port = 2333;
  /// \brief Worker threads serving requests.
  int threads = 8;
  /// \brief Larger request bodies are refused with 413 / InvalidInput.
  int64_t max_body_bytes = int64_t{256} << 20;
  /// \brief Accepted API keys (`x-api-key`) and bearer tokens; both empty: no auth.
  std::set<std::string> api_keys;
  std::set<std::string> bearer_tokens;
  /// \brief Receives one JSON access-log line per request (null: no log).
  std::function<void(const std::string&)> access_log;
};

class RestAdapter {
 public:
  /// \brief REQUIRES: ns non-null.
  static Result<std::unique_ptr<RestAdapter>> Make(std::shared_ptr<ns::LanceNamespace> ns,
                                                   RestAdapterOptions options);
  ~RestAdapter();

  /// \brief Binds and starts serving in background threads.
  /// \return IOError naming host:port when the port cannot be bound.
  Status Start();
  /// \brief Stops accepting, lets in-flight requests finish, joins. Idempotent.
  void Stop();
  /// \brief The bound port (after Start).
  int port() const;
  /// \brief Requests routed to each operation since Make or the last reset, by the
  /// spec's operation name ("describe_table", "declare_table", ...): counted once
  /// authenticated and routed, whatever the outcome (unsupported routes included).
  std::map<std::string, int64_t> ops_metrics() const;
  void reset_ops_metrics();

  class Impl;

 private:
  explicit RestAdapter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lance::server

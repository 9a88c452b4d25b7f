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
/// - Authentication (when api_keys is non-empty): `x-api-key: KEY` or `Authorization:
///   Bearer KEY` must match a key (compared in constant time); none given -> 401
///   Unauthenticated (16), no match -> 403 PermissionDenied (15). Each key has a
///   permission (read / write / admin) and optionally a namespace prefix: an operation
///   that needs more, or names an id outside the prefix, answers 403 (15); the namespace
///   is asked through a view that never vends more than the key's permission
///   (LanceNamespace::WithVendPermissionCap), and when it cannot give one, vended
///   credentials are withheld from keys below admin.
/// - Limits (RequestLimits): body size, JSON depth, and for Arrow IPC bodies the
///   decoded size, rows, columns and nesting depth, each checked before the namespace
///   sees the request (413 for sizes, 400 for shapes; spec code 13). At most
///   max_connections connections are open or waiting at once; more are answered 503 and
///   closed. Stop() does not wait for idle keep-alive connections.
/// - TLS when a certificate and key are given (TLS 1.2 or later).
/// - Access log: one JSON line per request (method, route template, table id, status,
///   spec code, duration, bytes, the key's fingerprint): no header values, bodies or
///   storage options.
///
/// Thread-safe; requests are served concurrently by a thread pool.

#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/namespace/namespace.h"
#include "lance/result.h"

namespace lance::server {

/// \brief Caps on what one request may ask of the server.
struct RequestLimits {
  /// \brief Larger request bodies are refused with 413.
  int64_t max_body_bytes = int64_t{256} << 20;
  /// \brief JSON bodies (and JSON query values) nesting arrays / objects deeper: 400.
  int max_json_depth = 64;
  /// \brief Arrow IPC bodies: the decoded size their buffers declare (a compressed
  /// buffer declares its uncompressed length), summed over the stream: 413.
  int64_t max_ipc_decoded_bytes = int64_t{1} << 30;
  /// \brief Arrow IPC bodies: rows summed over the record batches: 413.
  int64_t max_ipc_rows = int64_t{1} << 26;
  /// \brief Arrow IPC bodies: schema fields at every nesting level: 400.
  int64_t max_ipc_columns = 10000;
  /// \brief Arrow IPC bodies: depth of the schema's field tree: 400.
  int max_ipc_nesting_depth = 64;
};

/// \brief A key callers present (`x-api-key` or `Authorization: Bearer`).
struct ApiKey {
  std::string key;
  /// \brief What it may do: read (describe, list, count, query, ...), write (+ declare,
  /// create, insert, update, delete rows, tags, schema), admin (+ create / drop
  /// namespaces, drop / register / deregister / rename tables). Vended credentials
  /// never allow more.
  ns::VendPermission permission = ns::VendPermission::kAdmin;
  /// \brief Only ids inside this namespace (empty: everywhere).
  ns::Identifier namespace_prefix;
};

/// \brief Keys in their text form: entries separated by newlines or commas, each
/// `KEY [read|write|admin [NAMESPACE]]` (whitespace-separated; permission default
/// admin; NAMESPACE is the prefix's levels joined with '$'); blank entries and entries
/// starting with '#' are skipped. `source` names the text in errors ("--api-keys-file
/// keys.txt"); an error names the entry by number, never its key.
/// \return the keys; Invalid for a malformed entry.
Result<std::vector<ApiKey>> ParseApiKeys(std::string_view text, std::string_view source);

struct RestAdapterOptions {
  /// \brief Where to listen; loopback by default. (`lance-cpp serve` refuses a
  /// non-loopback host without keys and TLS unless told --insecure.)
  std::string host = "127.0.0.1";
  /// \brief 0: an ephemeral port (read it with RestAdapter::port()).
  int port = 2333;
  /// \brief Worker threads serving requests.
  int threads = 8;
  /// \brief Connections open or waiting for a worker at once; more are answered 503
  /// (plain HTTP) or closed (TLS) right away.
  int max_connections = 256;
  RequestLimits limits;
  /// \brief Accepted keys; empty: no authentication (every caller is admin).
  std::vector<ApiKey> api_keys;
  /// \brief TLS: PEM certificate chain and private key files (both or neither).
  std::string tls_cert_file;
  std::string tls_key_file;
  /// \brief Receives one JSON access-log line per request (null: no log).
  std::function<void(const std::string&)> access_log;
};

class RestAdapter {
 public:
  /// \brief REQUIRES: ns non-null.
  static Result<std::unique_ptr<RestAdapter>> Make(std::shared_ptr<ns::LanceNamespace> ns,
                                                   const RestAdapterOptions& options);
  ~RestAdapter();

  /// \brief Binds and starts serving in background threads.
  /// \return IOError naming host:port when the port cannot be bound; Invalid naming
  /// the file when the TLS certificate or key cannot be loaded.
  Status Start();
  /// \brief Stops accepting, lets in-flight requests finish, joins. Idempotent.
  void Stop();
  /// \brief The bound port (after Start).
  int port() const;
  /// \brief "http" or "https".
  std::string scheme() const;
  /// \brief Connections answered 503 / closed because max_connections were open.
  int64_t connections_refused() const;
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

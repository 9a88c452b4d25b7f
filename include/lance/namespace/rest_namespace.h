// SPDX-License-Identifier: Apache-2.0
/// \file rest_namespace.h
/// \brief RestNamespace: a LanceNamespace that is a client of a Lance REST namespace
/// server (lance-namespace `docs/src/rest.yaml`), as Lance's `RestNamespace`
/// (rust/lance-namespace-impls/src/rest.rs) and pylance's
/// `lance.namespace.RestNamespace`.
///
/// Wire format (docs/rest.md; observed from real Lance in the reference trace):
/// - the path id is the id's parts joined with `delimiter`, then form-encoded
///   (A-Z a-z 0-9 * - . _ kept, space -> '+', every other byte %XX); the root namespace
///   is the encoded delimiter itself; every request carries `?delimiter=<encoded>`;
/// - POST bodies are compact JSON of the request model (model_fields.h names), with the
///   full `id` array; list operations are GETs with `page_token` / `limit` queries;
/// - create_table / insert_into_table / merge_insert_into_table send the Arrow IPC
///   stream as the body (`application/vnd.apache.arrow.stream`) with the request's
///   fields as query parameters; query_table answers Arrow IPC (a server answering the
///   IPC file format, as pylance 14's RestAdapter does, is converted to a stream);
/// - create_empty_table is sent to `/declare` (spec 0.13.0 has no create-empty route);
/// - a non-2xx answer carries `ErrorResponse{error, code, detail, instance}`; `code`
///   (not the HTTP status) decides the error kind (NamespaceErrorDetail); a body that is
///   not such JSON is Internal (5xx: ServiceUnavailable) with the status and a bounded,
///   secret-free excerpt.
///
/// Operations the spec has and the core does not (indices, branches, materialized
/// views, batch commits) are not sent: they answer Unsupported locally.
///
/// Thread-safe: requests may run concurrently (one curl handle per request).

#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "lance/namespace/namespace.h"
#include "lance/result.h"

namespace lance::ns {

/// \brief Per-request context (Lance's DynamicContextProvider): called before every
/// request with {"operation": "<op name>", "object_id": "<joined id>"}; every returned
/// key `headers.<Name>` becomes the HTTP header <Name>; other keys are sent as
/// `x-lance-ctx-<key>` headers. Implementations must be thread-safe.
class DynamicContextProvider {
 public:
  virtual ~DynamicContextProvider() = default;
  virtual Result<Properties> ProvideContext(const Properties& info) = 0;
};

struct RestNamespaceOptions {
  /// \brief Required: the server's base URI (http:// or https://); a path is kept as a
  /// prefix of every route.
  std::string uri;
  /// \brief Joins id parts in paths (default "$").
  std::string delimiter = "$";
  /// \brief Sent on every request (from `header.<Name>` properties).
  std::map<std::string, std::string> headers;
  /// \brief TLS: CA bundle to trust, client certificate and key (mTLS), and whether the
  /// server's host name is checked (`tls.assert_hostname`, default true; false requires
  /// tls_ca_cert, as in pylance 14).
  std::optional<std::string> tls_ca_cert;
  std::optional<std::string> tls_cert_file;
  std::optional<std::string> tls_key_file;
  bool tls_assert_hostname = true;
  /// \brief `connect_timeout_ms` / `read_timeout_ms` properties.
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds request_timeout{60'000};
  /// \brief Retries of idempotent calls (GETs, describe/exists/list/count/query) on
  /// ServiceUnavailable / Throttling / connection failures, with exponential backoff
  /// from `retry_backoff` (properties `max_retries`, `retry_backoff_ms`).
  int max_retries = 3;
  std::chrono::milliseconds retry_backoff{100};
  /// \brief Optional per-request context (headers).
  std::shared_ptr<DynamicContextProvider> context_provider;
};

class RestNamespace : public LanceNamespace {
 public:
  /// \brief Lance's RestNamespaceBuilder::from_properties: `uri` (required),
  /// `delimiter`, `header.<Name>`, `tls.ssl_ca_cert`, `tls.cert_file`, `tls.key_file`,
  /// `tls.assert_hostname`, `connect_timeout_ms`, `read_timeout_ms`, `max_retries`,
  /// `retry_backoff_ms`. Unknown keys are ignored, as Lance does.
  /// \return the namespace; InvalidInput for a missing/invalid uri or a malformed number.
  static Result<std::shared_ptr<RestNamespace>> FromProperties(
      const Properties& properties,
      std::shared_ptr<DynamicContextProvider> context_provider = nullptr);
  static Result<std::shared_ptr<RestNamespace>> Make(RestNamespaceOptions options);

  /// \brief `RestNamespace { endpoint: "<uri>", delimiter: "$" }` (Lance's form; no
  /// header values, which may be secrets).
  std::string namespace_id() const override;
  const RestNamespaceOptions& options() const { return options_; }

  // Every operation of operations.def, each one HTTP call (see the file comment).
#define LANCE_NS_OPERATION(Method, wire, Body, Reply, ...) \
  LANCE_NS_RESULT(Method, Reply) Method(LANCE_NS_PARAMS(Method, Body)) override;
#include "lance/namespace/operations.def"
#undef LANCE_NS_OPERATION

  class Impl;
  RestNamespace(std::unique_ptr<Impl> impl, RestNamespaceOptions options);
  ~RestNamespace() override;

 private:
  std::unique_ptr<Impl> impl_;
  RestNamespaceOptions options_;
};

/// \brief The form encoding of one path segment (see the file comment).
std::string FormEncode(std::string_view text);
/// \brief Its inverse ('+' -> space, %XX); InvalidInput for a bad escape.
Result<std::string> FormDecode(std::string_view text);

}  // namespace lance::ns

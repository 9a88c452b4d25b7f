// SPDX-License-Identifier: Apache-2.0
// The Azure client's request loop (private): one operation's request becomes signed
// io::http requests, attempt after attempt, until an answer, a final error or the end of
// the retry budget (see azure_client.h for the policy).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/azure/errors.h"
#include "io/azure/responses.h"
#include "io/http/retry_loop.h"
#include "lance/io/azure_options.h"
#include "lance/io/credentials.h"
#include "lance/io/http/http_client.h"
#include "lance/result.h"

namespace lance::io::azure {

namespace internal {

using Query = std::vector<std::pair<std::string, std::string>>;

/// \brief What a request addresses: a blob, its container, or the account.
enum class Level { kBlob, kContainer, kService };

struct Request {
  const char* op = "";
  std::string method = "GET";
  Level level = Level::kBlob;
  std::string blob;
  /// \brief Raw parameters, encoded when sent.
  Query query;
  /// \brief Sent and (Shared Key) signed.
  http::Headers headers;
  std::string_view body;
  ErrorContext context = ErrorContext::kDefault;
  /// \brief Copy Blob: the source blob, sent as x-ms-copy-source (with the SAS of the
  /// attempt when the request is authorized by one).
  std::string copy_source;

  /// \brief A successful body goes into `out` (at most `out_capacity` bytes) when set,
  /// else into Response::body. A 200 answer to a range drops the bytes before
  /// `range_offset`.
  uint8_t* out = nullptr;
  int64_t out_capacity = 0;
  bool ranged = false;
  int64_t range_offset = 0;
};

struct Response {
  /// \brief The HTTP status (0 when no answer arrived).
  int status = 0;
  http::Headers headers;
  /// \brief The success body (no `out` buffer) or the error body.
  std::string body;
  int64_t written = 0;
  /// \brief Why no answer arrived, when none did.
  http::TransportError transport_error = http::TransportError::kNone;
  int transport_code = 0;
  std::string transport_message;

  bool answered() const { return transport_error == http::TransportError::kNone; }
  std::string_view Header(std::string_view name) const;
};

using AttemptTrace = http::AttemptTrace;

/// \brief An error answer the caller takes as a result (e.g. 404 of a delete).
using AcceptFn = std::function<bool(const AzureError&)>;

class Dispatcher {
 public:
  /// \return the dispatcher; Invalid for a malformed endpoint.
  static Result<std::unique_ptr<Dispatcher>> Make(
      std::string container, const AzureOptions& options,
      std::shared_ptr<CredentialsSource> credentials, http::ClientStats* stats);
  ~Dispatcher();

  /// \brief Runs `req` with retries. \return the 2xx (or accepted) answer; the mapped
  /// error otherwise.
  Result<Response> Execute(const Request& req, const AcceptFn& accept = {},
                           AttemptTrace* trace = nullptr);

  /// \brief "az://<container>/<blob>" ("az://<container>" for an empty blob).
  std::string BlobUri(std::string_view blob) const;

 private:
  struct Impl;
  explicit Dispatcher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace internal
}  // namespace lance::io::azure

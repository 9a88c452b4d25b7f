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
#include "io/http/slice_sink.h"
#include "lance/io/azure_options.h"
#include "lance/io/credentials.h"
#include "lance/io/http/http_client.h"
#include "lance/result.h"

namespace lance::io::azure {

namespace internal {

using Query = std::vector<std::pair<std::string, std::string>>;

/// \brief What a request addresses: a blob, its container, or the account.
enum class Level { kBlob, kContainer, kService };

struct Request : http::BodyTarget {
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
  // The successful body goes where BodyTarget says (the caller's buffer, or
  // Response::body).
};

/// \brief body: the success body (no `out` buffer) or the error body.
using Response = http::SliceAnswer;

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

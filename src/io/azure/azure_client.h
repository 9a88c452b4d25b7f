// SPDX-License-Identifier: Apache-2.0
// AzureClient: the Blob service REST operations the Azure object store needs, over the
// io::http layer (private to the io layer; tests and the namespace's vendor include it).
//
// One client per (container, options, credentials source). Every request (every attempt):
//  1. asks the CredentialsSource for the current credentials (never cached here) and
//     authorizes with their Azure part: Shared Key when there is an account key, else
//     the SAS appended to the query, else "Authorization: Bearer <token>", else none;
//  2. sends x-ms-date and x-ms-version (kAzureApiVersion) and the operation's headers;
//  3. retries transient failures (connection failures, 429, 500, 502, 503, 504,
//     ServerBusy, OperationTimedOut, InternalError) up to AzureOptions::max_retries times
//     within retry_timeout, exponential backoff with full jitter;
//  4. on rejected credentials (errors.h: 401, 403 AuthenticationFailed /
//     AuthorizationFailure) asks CredentialsSource::OnRejected once and retries once with
//     what it returns; a source that cannot refresh leaves the original error.
// Errors: see errors.h. Messages read "Azure <Operation> of az://<container>/<blob>:
// HTTP <status> <code> (request id <id>): <message>" and never hold a key, a SAS or a
// token (URLs are logged through io::http::RedactUrl, which hides `sig`).
//
// Thread-safe: every method may be called concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/azure/responses.h"
#include "io/azure/sas.h"
#include "io/http/retry_loop.h"
#include "lance/core/buffer.h"
#include "lance/io/azure_options.h"
#include "lance/io/credentials.h"
#include "lance/result.h"

namespace lance::io::azure {

/// \brief The Blob service version of every request (x-ms-version).
inline constexpr std::string_view kAzureApiVersion = "2021-08-06";

/// \brief Get Blob Properties' answer.
struct BlobProperties {
  int64_t size = 0;
  /// \brief As sent, quotes included.
  std::string etag;
  int64_t last_modified_ms = 0;
  /// \brief x-ms-copy-status of the last copy into this blob ("" when none).
  std::string copy_status;
  /// \brief The x-ms-meta-lancewriteid a conditional create tagged the blob with.
  std::string write_id;
};

struct ListBlobsRequest {
  std::string prefix;
  /// \brief "/" rolls keys up into prefixes; empty: flat.
  std::string delimiter;
  std::string marker;
  /// \brief 1..5000.
  int max_results = 5000;
};

/// \brief Counters for tests (monotonic, relaxed).
using AzureClientStats = http::ClientStats;

/// \brief Checks a container name against the Blob service's rules (3-63 characters,
/// lower-case letters, digits and single '-' between them), so that a typo or a hostile
/// name fails before any request. \return Invalid naming the container.
Status ValidateContainerName(const std::string& name);

class AzureClient {
 public:
  /// \brief A client for `container` (empty: service-level operations only, e.g.
  /// GetUserDelegationKey). \return Invalid for a null source or a malformed endpoint.
  static Result<std::shared_ptr<AzureClient>> Make(
      std::string container, AzureOptions options,
      std::shared_ptr<CredentialsSource> credentials);
  ~AzureClient();
  AzureClient(const AzureClient&) = delete;
  AzureClient& operator=(const AzureClient&) = delete;

  /// \brief Get Blob Properties (HEAD). \return NotFound.
  Result<BlobProperties> GetBlobProperties(const std::string& blob);

  /// \brief Get Blob of [offset, offset + length) into `out` (x-ms-range), pinned to
  /// `if_match` when not empty (IOError "object changed" when it was replaced).
  /// \return the bytes written (fewer at the end of the blob); NotFound.
  Result<int64_t> GetBlobInto(const std::string& blob, int64_t offset, int64_t length,
                              uint8_t* out, const std::string& if_match = "");
  /// \brief The whole blob. \return the bytes; NotFound.
  Result<BufferPtr> GetBlob(const std::string& blob);

  /// \brief Put Blob (a block blob of `body`). With `if_none_match`: "If-None-Match: *",
  /// AlreadyExists when a blob exists; when an attempt's answer may have been lost, a
  /// failed create is checked against the blob's write id (our own create succeeds).
  /// \return the new ETag.
  Result<std::string> PutBlob(const std::string& blob, std::string_view body,
                              bool if_none_match = false);
  /// \brief Put Block: an uncommitted block `block_id` (base64, one length per blob).
  Status PutBlock(const std::string& blob, const std::string& block_id,
                  std::string_view body);
  /// \brief Put Block List: commits the blocks in order as the blob's content.
  Status PutBlockList(const std::string& blob, const std::vector<std::string>& block_ids);

  /// \brief One page of List Blobs.
  Result<ListBlobsPage> ListBlobs(const ListBlobsRequest& request);

  /// \brief Delete Blob; a missing blob is OK, and so is a replaced one when `if_match`
  /// is given (412: someone else's blob now, left alone).
  Status DeleteBlob(const std::string& blob, const std::string& if_match = "");

  /// \brief Copy Blob from `src` (same container) to `dst`, waiting for a pending copy to
  /// finish. `if_none_match`: only if `dst` does not exist (AlreadyExists);
  /// `source_if_match`: only if `src` still has this ETag (IOError otherwise).
  /// \return NotFound if `src` is missing.
  Status CopyBlob(const std::string& src, const std::string& dst,
                  bool if_none_match = false, const std::string& source_if_match = "");

  /// \brief Create Container. \return AlreadyExists if it exists.
  Status CreateContainer();
  /// \brief Delete Container. \return NotFound.
  Status DeleteContainer();

  /// \brief Get User Delegation Key (needs bearer-token credentials): a key valid from
  /// `start` to `expiry` (at most 7 days) for MakeUserDelegationSas.
  Result<UserDelegationKey> GetUserDelegationKey(
      std::chrono::system_clock::time_point start,
      std::chrono::system_clock::time_point expiry);

  /// \brief Get Account Information: whether the account has a hierarchical namespace
  /// (x-ms-is-hns-enabled; an answer without the header is a flat account).
  Result<bool> IsHierarchicalNamespace();

  const std::string& container() const;
  const AzureOptions& options() const;
  const std::shared_ptr<CredentialsSource>& credentials() const;
  AzureClientStats& stats();
  /// \brief "az://<container>/<blob>", for messages.
  std::string BlobUri(std::string_view blob) const;

 private:
  struct Impl;
  explicit AzureClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lance::io::azure

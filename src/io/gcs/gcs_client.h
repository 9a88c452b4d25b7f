// SPDX-License-Identifier: Apache-2.0
/// \file gcs_client.h
/// \brief GcsClient: the JSON API operations the GCS store needs, over the io::http
/// layer.
///
/// One client per (bucket, options, credentials source). Every request:
///  1. asks the CredentialsSource for the current credentials (never cached here) and
///     sends their bearer token as "Authorization: Bearer <token>" (none when empty or
///     with skip_signature),
///  2. goes out on the HTTP layer's pooled handles (keep-alive reused),
///  3. is retried when transient, asking the source again for each attempt.
///
/// Retry policy: connection failures (refused, reset, timed out, stalled, TLS handshake;
/// a name that does not resolve once), HTTP 408, 429, 500, 502, 503, 504 are retried up
/// to GcsOptions::max_retries times within retry_timeout, with exponential backoff and
/// full jitter. A 401 asks CredentialsSource::OnRejected once and retries once with what
/// it returns (no backoff); when the source cannot refresh, the 401 stands. Other 4xx are
/// final.
///
/// Error mapping (gcs_util.h MapErrorCode): 404 NotFound; 412 AlreadyExists on a
/// conditional create; 404 IOError "object changed" on a pinned read; 401 Unauthorized;
/// 403 Forbidden; exhausted retries Unavailable (retryable). Messages read "GCS
/// <Operation> of gs://<bucket>/<key>: HTTP <status> <reason> (request id <id>): <server
/// message>
/// [, after <n> attempts in <t> s]" and never contain a token, a key or a header value.
///
/// Thread-safe: all methods may be called concurrently.

#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "io/gcs/gcs_util.h"
#include "io/http/retry_loop.h"
#include "lance/core/buffer.h"
#include "lance/io/credentials.h"
#include "lance/io/gcs_object_store.h"
#include "lance/result.h"

namespace lance::io::gcs {

/// \brief Counters for tests (monotonic, relaxed).
struct GcsClientStats : http::ClientStats {
  std::atomic<int64_t> media_reads{0};       ///< alt=media GETs that succeeded
  std::atomic<int64_t> resumable_chunks{0};  ///< resumable chunks sent
};

using internal::ListPage;
using internal::ObjectResource;

/// \brief A listing request of objects.list.
struct ListRequest {
  std::string prefix;
  std::string delimiter;     ///< "/" or empty
  std::string start_offset;  ///< inclusive lower bound, empty for none
  int64_t max_results = 1000;
  std::string page_token;
};

class GcsClient {
 public:
  /// \return the client; Invalid for an empty or malformed bucket, a bad base URL, or a
  /// null source.
  static Result<std::shared_ptr<GcsClient>> Make(
      std::string bucket, GcsOptions options,
      std::shared_ptr<CredentialsSource> credentials);
  ~GcsClient();
  GcsClient(const GcsClient&) = delete;
  GcsClient& operator=(const GcsClient&) = delete;

  /// \brief objects.get (metadata). \return the resource; NotFound.
  Result<ObjectResource> GetMetadata(const std::string& key);

  /// \brief objects.get alt=media of [offset, offset + length) into `out` (capacity
  /// `length`). `generation` > 0 pins the read to that generation (a replaced or deleted
  /// object is IOError "object changed"). A range past the end returns the bytes up to
  /// it. \return the bytes written; NotFound.
  Result<int64_t> ReadInto(const std::string& key, int64_t offset, int64_t length,
                           uint8_t* out, int64_t generation = 0);

  /// \brief The whole object (alt=media, no range). \return the bytes; NotFound.
  Result<BufferPtr> ReadAll(const std::string& key);

  /// \brief A media upload (one request). With `if_not_exists`, ifGenerationMatch=0:
  /// AlreadyExists when an object is there -- unless an attempt's answer may have been
  /// lost, the object's MD5 is the body's, and so it is our own create (then OK).
  /// \return the new object's resource.
  Result<ObjectResource> Insert(const std::string& key, std::string_view body,
                                bool if_not_exists = false);

  /// \brief Starts a resumable upload. \return the session URI (a credential for this
  /// upload: never logged).
  Result<std::string> StartResumable(const std::string& key, bool if_not_exists = false);
  /// \brief Sends `chunk` at `offset` of the session; with `final` the object is
  /// `offset + chunk.size()` bytes long and is completed. Non-final chunks must be
  /// multiples of 256 KiB. A transient failure sends the same chunk again.
  /// \return the bytes the server holds after it (the object's size when final).
  Result<int64_t> UploadChunk(const std::string& key, const std::string& session,
                              int64_t offset, std::string_view chunk, bool final);
  /// \brief Cancels a resumable upload (a session already gone is OK).
  Status CancelResumable(const std::string& key, const std::string& session);

  /// \brief One page of objects.list. \return the page; NotFound for a missing bucket.
  Result<ListPage> ListObjects(const ListRequest& request);

  /// \brief objects.delete; a missing object is OK.
  Status Delete(const std::string& key);

  /// \brief objects.rewrite of `src` to `dst` (repeated until done); with
  /// `if_not_exists`, ifGenerationMatch=0 on the destination. \return NotFound for a
  /// missing source; AlreadyExists.
  Status Rewrite(const std::string& src, const std::string& dst, bool if_not_exists);

  /// \brief buckets.insert (tests). \return OK; AlreadyExists (409).
  Status CreateBucket();

  const std::string& bucket() const;
  const GcsOptions& options() const;
  const std::shared_ptr<CredentialsSource>& credentials() const;
  GcsClientStats& stats();
  /// \brief "gs://<bucket>/<key>", for messages.
  std::string ObjectUri(std::string_view key) const;

 private:
  struct Impl;
  explicit GcsClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lance::io::gcs

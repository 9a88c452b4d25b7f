// SPDX-License-Identifier: Apache-2.0
/// \file s3_client.h
/// \brief S3Client: the S3 REST operations the object store needs, over libcurl.
///
/// One client per (bucket, options, credentials source). Every request:
///  1. asks the CredentialsSource for the current credentials (never cached here),
///  2. signs with SigV4 (payload hash = SHA-256 of the body, or UNSIGNED-PAYLOAD when
///     S3Options::unsigned_payload; the session token goes in x-amz-security-token),
///  3. sends it on a pooled libcurl handle (keep-alive connections are reused),
///  4. retries transient failures (see the retry policy below), re-signing each attempt.
///
/// Retry policy: connection failures (refused, reset, timed out, stalled transfer),
/// HTTP 500/502/503/504, 429, and S3 error codes SlowDown, RequestTimeout,
/// InternalError, ServiceUnavailable, ConditionalRequestConflict (409) are retried up to
/// S3Options::max_retries times, while less than S3Options::retry_timeout has passed,
/// with exponential backoff and full jitter (delay = uniform(0, min(max_backoff,
/// initial_backoff * 2^attempt))). A 400/403 whose code is ExpiredToken, InvalidToken,
/// TokenRefreshRequired or InvalidAccessKeyId asks CredentialsSource::OnRejected once
/// and retries once with what it returns. So does a 403 AccessDenied (or a bodiless 403
/// of a HEAD): RGW with STS enabled answers every credential failure that way; when the
/// source cannot refresh, that error is returned unchanged. Other 4xx are final.
///
/// Error mapping (one place, so upper layers decide on codes, not HTTP): 404 ->
/// NotFound; 412 on a conditional create -> AlreadyExists; 412 on a pinned read ->
/// IOError "object changed"; 401, InvalidAccessKeyId, SignatureDoesNotMatch ->
/// Unauthorized; ExpiredToken -> TokenExpired; other 403 -> Forbidden; exhausted
/// retries -> Unavailable (retryable flag set); malformed responses -> IOError.
/// Messages read "S3 <Operation> of s3://<bucket>/<key>: HTTP <status> <S3 code>
/// (request id <id>)[: <server message>][, after <n> attempts in <t> s]" and never
/// contain a credential or a header value.
///
/// Thread-safe: all methods may be called concurrently.

#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/http/retry_loop.h"
#include "lance/core/buffer.h"
#include "lance/io/credentials.h"
#include "lance/io/s3/s3_options.h"
#include "lance/result.h"
#include "lance/status.h"

namespace lance::io::s3 {

/// \brief HeadObject's answer.
struct S3ObjectInfo {
  int64_t size = 0;
  /// \brief As sent by the server, including quotes ("\"abc...\"").
  std::string etag;
  /// \brief Last-Modified in milliseconds since the epoch (0 if absent).
  int64_t last_modified_ms = 0;
};

/// \brief One entry of a listing.
struct S3ListEntry {
  std::string key;
  int64_t size = 0;
  int64_t last_modified_ms = 0;
  std::string etag;
};

struct ListObjectsV2Request {
  std::string prefix;
  /// \brief "/" for directory-style listings; empty for a flat one.
  std::string delimiter;
  std::string start_after;
  std::string continuation_token;
  /// \brief 1..1000.
  int max_keys = 1000;
};

struct ListObjectsV2Response {
  std::vector<S3ListEntry> objects;
  std::vector<std::string> common_prefixes;
  /// \brief Empty when the listing is complete.
  std::string next_continuation_token;
};

/// \brief Counters for tests and benchmarks (monotonic, relaxed).
using S3ClientStats = http::ClientStats;

class S3Client {
 public:
  /// \brief A client for `bucket`. Builds the endpoint URL from the options (path style
  /// "<endpoint>/<bucket>/<key>", or virtual-hosted: with a custom endpoint the
  /// endpoint is used as is and must name the bucket, as in Lance/object_store;
  /// without one "https://<bucket>.s3.<region>.amazonaws.com").
  /// \return the client; Invalid for an empty bucket or a malformed endpoint;
  /// Invalid if `credentials` is null.
  static Result<std::shared_ptr<S3Client>> Make(
      std::string bucket, S3Options options,
      std::shared_ptr<CredentialsSource> credentials);
  ~S3Client();
  S3Client(const S3Client&) = delete;
  S3Client& operator=(const S3Client&) = delete;

  /// \brief HEAD. \return info; NotFound.
  Result<S3ObjectInfo> HeadObject(const std::string& key);

  /// \brief GET of [offset, offset + length) into `out` (length -1: to the end, then
  /// `out` must be large enough for the rest of the object -- use GetObject instead).
  /// With a non-empty `if_match` ETag, fails with IOError ("object changed") if the
  /// object was replaced. A range past the end returns the bytes up to the end.
  /// \return bytes written to `out`; NotFound; errors as above.
  Result<int64_t> GetObjectInto(const std::string& key, int64_t offset, int64_t length,
                                uint8_t* out, const std::string& if_match = "");

  /// \brief GET of a range (length -1: to the end; offset 0 + length -1: whole object)
  /// into a new buffer. \return the bytes; NotFound.
  Result<BufferPtr> GetObject(const std::string& key, int64_t offset = 0,
                              int64_t length = -1, const std::string& if_match = "");

  /// \brief Single PUT. With `if_none_match`, sends "If-None-Match: *": the create-only
  /// commit primitive (412 -> AlreadyExists). When an attempt's answer may have been lost
  /// (an attempt went unanswered, or there was more than one), a failed conditional PUT
  /// is checked with a HEAD: an object whose ETag is the body's MD5 is our own create,
  /// and the PUT succeeds. Otherwise the error stands (AlreadyExists after a retry may
  /// then still be our own create: the commit protocol reads the manifest back).
  /// \return the new ETag (may be empty); AlreadyExists.
  Result<std::string> PutObject(const std::string& key, std::string_view body,
                                bool if_none_match = false);

  /// \brief Starts a multipart upload. \return the upload id.
  Result<std::string> CreateMultipartUpload(const std::string& key);
  /// \brief Uploads part `part_number` (1-based). \return the part's ETag.
  Result<std::string> UploadPart(const std::string& key, const std::string& upload_id,
                                 int part_number, std::string_view body);
  /// \brief Completes with the parts' ETags in order (part i+1 = part_etags[i]).
  /// Tolerates RGW's empty ETag in the response; detects the 200-with-<Error> answer.
  /// When it fails after an answer may have been lost (a retry's NoSuchUpload, an
  /// unanswered attempt), a HEAD decides: an object whose ETag is the one these parts
  /// make (MD5 of the parts' MD5s, "-N") is the completed upload, and this succeeds;
  /// when the HEAD cannot tell, the error says the upload may have completed.
  Status CompleteMultipartUpload(const std::string& key, const std::string& upload_id,
                                 const std::vector<std::string>& part_etags);
  /// \brief Aborts; an unknown upload (already aborted/completed) is OK.
  Status AbortMultipartUpload(const std::string& key, const std::string& upload_id);

  /// \brief One page of ListObjectsV2 (encoding-type=url, decoded here).
  Result<ListObjectsV2Response> ListObjectsV2(const ListObjectsV2Request& request);

  /// \brief DELETE of one key; a missing key is OK.
  Status DeleteObject(const std::string& key);
  /// \brief DeleteObjects in batches of 1000 (Quiet, with Content-MD5); missing keys
  /// are OK. \return the first per-key error, naming how many keys failed.
  Status DeleteObjects(const std::vector<std::string>& keys);

  /// \brief Server-side CopyObject (objects up to 5 GiB). \return NotFound if `src`
  /// is missing; detects the 200-with-<Error> answer.
  Status CopyObject(const std::string& src_key, const std::string& dst_key);

  /// \brief Creates the bucket (tests and benchmarks). \return OK; AlreadyExists if
  /// it exists (BucketAlreadyOwnedByYou / BucketAlreadyExists).
  Status CreateBucket();
  /// \brief Deletes the (empty) bucket. \return OK; NotFound; Conflict if not empty.
  Status DeleteBucket();

  const std::string& bucket() const;
  const S3Options& options() const;
  const std::shared_ptr<CredentialsSource>& credentials() const;
  S3ClientStats& stats();
  /// \brief "s3://<bucket>/<key>", for messages.
  std::string ObjectUri(std::string_view key) const;

 private:
  struct Impl;
  explicit S3Client(std::unique_ptr<Impl> impl);
  // CompleteMultipartUpload failed with `failed` after an answer may have been lost:
  // OK if the object is the completed upload, else `failed` (naming the uncertainty
  // when the object cannot be checked).
  Status CheckCompleted(const std::string& key,
                        const std::vector<std::string>& part_etags, const Status& failed);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lance::io::s3

// SPDX-License-Identifier: Apache-2.0
/// \file s3_options.h
/// \brief S3Options: the S3 store's configuration, parsed from Lance's storage options.

#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "lance/io/credentials.h"
#include "lance/io/remote_tuning.h"
#include "lance/result.h"

namespace lance::io::s3 {

/// \brief Everything the S3 client and store need, except the bucket.
///
/// Built by ParseS3Options from a storage-options map; never log it directly
/// (`credentials` holds secrets) -- use ToString(). Retries, timeouts, read chunks and
/// connections: RemoteTuning.
struct S3Options : RemoteTuning {
  /// \brief Region for signing ("aws_region" | "region" | "aws_default_region").
  /// Default "us-east-1" when an endpoint is set, else "us-west-2" as in Lance.
  std::string region;
  /// \brief Scheme + host [+ port] [+ base path], no trailing '/', e.g.
  /// "http://127.0.0.1:7480" ("aws_endpoint" | "aws_endpoint_url" | "endpoint" |
  /// "endpoint_url"). Empty: "https://s3.<region>.amazonaws.com".
  std::string endpoint;
  /// \brief Virtual-hosted-style addressing ("aws_virtual_hosted_style_request").
  /// Default false: path style ("http://host/bucket/key").
  bool virtual_hosted_style = false;
  /// \brief Permit http:// endpoints ("allow_http", any key containing "allow_http",
  /// AWS_ALLOW_HTTP). Default false: an http endpoint is then an Invalid option.
  bool allow_http = false;
  /// \brief Skip TLS certificate checks ("allow_invalid_certificates").
  bool allow_invalid_certificates = false;
  /// \brief Send UNSIGNED-PAYLOAD instead of the body's SHA-256 ("aws_unsigned_payload").
  /// Default false.
  bool unsigned_payload = false;
  /// \brief Send requests unsigned ("aws_skip_signature"). Default false.
  bool skip_signature = false;
  /// \brief Static credentials ("aws_access_key_id" | "access_key_id",
  /// "aws_secret_access_key" | "secret_access_key", "aws_session_token" | "aws_token" |
  /// "aws_security_token" | "session_token" | "token"). Empty key id: none given.
  AwsCredentials credentials;

  /// \brief Objects of at least this size are written with multipart upload; also the
  /// part size ("lance_cpp_multipart_part_size", bytes, >= 5 MiB). Default 16 MiB.
  int64_t multipart_part_size = 16 << 20;
  /// \brief Parts uploaded concurrently per stream; memory per writer is bounded by
  /// (this + 1) * part size ("lance_cpp_multipart_concurrency"). Default 4.
  int multipart_concurrency = 4;
  /// \brief Sequential read-ahead per reader ("lance_cpp_read_ahead", bytes; 0: off).
  /// A reader whose reads move forward through the object keeps this many bytes past
  /// its position in flight, fetched in blocks of min(read_chunk_size, 4 MiB) on the
  /// I/O executor within its memory budget. Default 32 MiB.
  int64_t read_ahead = 32 << 20;

  /// \brief "S3Options(region=..., endpoint=..., path-style, credentials=AKIA…)";
  /// never contains a secret.
  std::string ToString() const;
};

/// \brief Looks up an environment variable; returns nullopt when unset. Injectable so
/// tests do not depend on (or mutate) the process environment. (io::EnvLookup, which
/// the credentials reader shares.)
using EnvLookup = ::lance::io::EnvLookup;

/// \brief The process environment (std::getenv).
EnvLookup ProcessEnv();

/// \brief Parses Lance storage options for S3.
///
/// Keys are matched case-insensitively, aliases as in Lance (see S3Options fields).
/// Values missing from `options` are taken from the environment: AWS_ACCESS_KEY_ID,
/// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION / AWS_DEFAULT_REGION,
/// AWS_ENDPOINT / AWS_ENDPOINT_URL, AWS_ALLOW_HTTP, AWS_VIRTUAL_HOSTED_STYLE_REQUEST,
/// OBJECT_STORE_CLIENT_MAX_RETRIES, OBJECT_STORE_CLIENT_RETRY_TIMEOUT (options win;
/// credentials are taken from the environment only as a whole: a key id from the
/// options never pairs with a secret from the environment).
/// Booleans: true/false/1/0/yes/no/on/off (any case). Durations: a number of seconds
/// ("30", "0.5") or with unit ("500ms", "30s", "2m", "1h"). Integers: decimal.
/// Unknown keys are ignored, as in Lance (namespaces pass many unrelated keys).
///
/// \return the options; Invalid naming the key (never the value of a secret key) for
/// a malformed value, an http endpoint without allow_http, a secret without key id or
/// vice versa, a part size below 5 MiB.
Result<S3Options> ParseS3Options(const std::map<std::string, std::string>& options,
                                 const EnvLookup& env = ProcessEnv());

/// \brief Parses a duration as in ParseS3Options. \return Invalid naming `key`.
Result<std::chrono::milliseconds> ParseDurationOption(std::string_view key,
                                                      std::string_view value);
/// \brief Parses a boolean as in ParseS3Options. \return Invalid naming `key`.
Result<bool> ParseBoolOption(std::string_view key, std::string_view value);

}  // namespace lance::io::s3

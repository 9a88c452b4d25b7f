// SPDX-License-Identifier: Apache-2.0
// Where an S3 request goes: the endpoint URL and the addressing style (private).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lance/io/s3/s3_options.h"
#include "lance/result.h"

namespace lance::io::s3::internal {

/// \brief The parts of an endpoint URL.
struct ParsedEndpoint {
  std::string scheme;     ///< "http" or "https" (lower case)
  std::string authority;  ///< host[:port] as written (IPv6 in brackets)
  /// \brief Value of the Host header: the authority without a default port.
  std::string host_header;
  std::string base_path;  ///< "" or "/base" (no trailing '/')
};

/// \brief Parses "scheme://host[:port][/base/path]". \return Invalid (without
/// quoting the endpoint's userinfo, if any) when malformed.
Result<ParsedEndpoint> ParseEndpoint(std::string_view endpoint);

/// \brief Where one request goes.
struct RequestTarget {
  std::string url;  ///< what curl is given: scheme://authority + wire path [+ ?query]
  std::string host_header;  ///< the signed and sent Host
  std::string raw_path;     ///< the unencoded path, for the signer
};

/// \brief Builds the target of a request on `key` (or on the bucket itself when
/// `bucket_level`): path style "<endpoint>/<bucket>/<key>", virtual-hosted with custom
/// endpoint "<endpoint>/<key>", AWS defaults without one.
RequestTarget BuildRequestTarget(
    const ParsedEndpoint& endpoint, bool virtual_hosted, const std::string& bucket,
    std::string_view key, bool bucket_level,
    const std::vector<std::pair<std::string, std::string>>& query);

/// \brief The endpoint to use for `options` and `bucket` (the AWS default when
/// options.endpoint is empty: https://s3.<region>.amazonaws.com, or
/// https://<bucket>.s3.<region>.amazonaws.com when virtual-hosted).
Result<ParsedEndpoint> ResolveEndpoint(const S3Options& options,
                                       const std::string& bucket);

}  // namespace lance::io::s3::internal

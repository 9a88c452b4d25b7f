// SPDX-License-Identifier: Apache-2.0
// Where an S3 request goes: endpoint parsing, AWS defaults, path-style and
// virtual-hosted addressing.

#include "io/s3/endpoint.h"

#include <cctype>

#include "io/s3/responses.h"
#include "io/s3/sigv4.h"
#include "lance/core/ascii.h"

namespace lance::io::s3::internal {

Result<ParsedEndpoint> ParseEndpoint(std::string_view endpoint) {
  ParsedEndpoint out;
  const size_t sep = endpoint.find("://");
  if (sep == std::string_view::npos) {
    return Status::Invalid("S3 endpoint must start with http:// or https://");
  }
  out.scheme = AsciiToLower(endpoint.substr(0, sep));
  if (out.scheme != "http" && out.scheme != "https") {
    return Status::Invalid("S3 endpoint scheme must be http or https, not '" +
                           out.scheme + "'");
  }
  std::string_view rest = endpoint.substr(sep + 3);
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  if (authority.empty()) return Status::Invalid("S3 endpoint has no host");
  if (authority.find('@') != std::string_view::npos) {
    // Never echo it: userinfo may hold a password.
    return Status::Invalid("S3 endpoint must not contain user information");
  }
  if (authority.find_first_of("?# \t\r\n") != std::string_view::npos ||
      path.find_first_of("?# \t\r\n") != std::string_view::npos) {
    return Status::Invalid(
        "S3 endpoint must not contain a query, fragment or whitespace");
  }
  // Split an optional port (IPv6 literals are bracketed).
  std::string_view host = authority;
  std::string_view port;
  if (authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos)
      return Status::Invalid("S3 endpoint: bad IPv6 host");
    host = authority.substr(0, close + 1);
    std::string_view tail = authority.substr(close + 1);
    if (!tail.empty()) {
      if (tail.front() != ':') return Status::Invalid("S3 endpoint: bad host");
      port = tail.substr(1);
    }
  } else {
    const size_t colon = authority.rfind(':');
    if (colon != std::string_view::npos) {
      host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
    }
  }
  if (host.empty() || host == "[]") return Status::Invalid("S3 endpoint has no host");
  if (authority.find(':') != std::string_view::npos && authority.front() != '[' &&
      port.empty()) {
    return Status::Invalid("S3 endpoint has an empty port");
  }
  int64_t port_number = 0;
  if (!port.empty() &&
      (!ParseInt64(port, &port_number) || port_number <= 0 || port_number > 65535)) {
    return Status::Invalid("S3 endpoint has an invalid port");
  }
  out.authority = std::string(authority);
  const bool default_port = port.empty() || (out.scheme == "http" && port_number == 80) ||
                            (out.scheme == "https" && port_number == 443);
  out.host_header = default_port ? std::string(host) : std::string(authority);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  out.base_path = std::string(path);
  return out;
}

Result<ParsedEndpoint> ResolveEndpoint(const S3Options& options,
                                       const std::string& bucket) {
  if (!options.endpoint.empty()) return ParseEndpoint(options.endpoint);
  const std::string region = options.region.empty() ? "us-east-1" : options.region;
  if (options.virtual_hosted_style) {
    return ParseEndpoint("https://" + bucket + ".s3." + region + ".amazonaws.com");
  }
  return ParseEndpoint("https://s3." + region + ".amazonaws.com");
}

RequestTarget BuildRequestTarget(
    const ParsedEndpoint& endpoint, bool virtual_hosted, const std::string& bucket,
    std::string_view key, bool bucket_level,
    const std::vector<std::pair<std::string, std::string>>& query) {
  RequestTarget t;
  t.raw_path = endpoint.base_path;
  if (!virtual_hosted) {
    t.raw_path += "/";
    t.raw_path += bucket;
  }
  if (!bucket_level) {
    t.raw_path += "/";
    t.raw_path += key;
  } else if (t.raw_path.empty()) {
    t.raw_path = "/";
  }
  t.host_header = endpoint.host_header;
  t.url = endpoint.scheme + "://" + endpoint.authority + S3CanonicalUri(t.raw_path);
  const std::string q = S3CanonicalQuery(query);
  if (!q.empty()) {
    t.url += "?";
    t.url += q;
  }
  return t;
}

}  // namespace lance::io::s3::internal

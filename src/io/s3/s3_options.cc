// SPDX-License-Identifier: Apache-2.0
#include "lance/io/s3/s3_options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "io/option_reader.h"
#include "lance/core/ascii.h"
#include "lance/core/text.h"
#include "lance/io/storage_options.h"
#include "lance/macros.h"

namespace lance::io::s3 {
namespace {

std::string_view Trim(std::string_view s) { return TrimAscii(s); }

// The keys of S3Options beyond RemoteTuning's, Lance's aliases included. The credentials
// are not among them: CredentialsFromStorageOptions reads those (credentials.h, over the
// one list of credential keys).
constexpr io::internal::OptionAlias kS3Keys[] = {
    {"aws_region", "region"},
    {"region", "region"},
    // Below "region" in precedence, so kept apart.
    {"aws_default_region", "default_region"},
    {"aws_endpoint", "endpoint"},
    {"aws_endpoint_url", "endpoint"},
    {"endpoint", "endpoint"},
    {"endpoint_url", "endpoint"},
    {"aws_virtual_hosted_style_request", "virtual_hosted_style"},
    {"allow_invalid_certificates", "allow_invalid_certificates"},
    {"aws_unsigned_payload", "unsigned_payload"},
    {"aws_skip_signature", "skip_signature"},
    {"lance_cpp_multipart_part_size", "multipart_part_size"},
    {"lance_cpp_multipart_concurrency", "multipart_concurrency"},
    {"lance_cpp_read_ahead", "read_ahead"},
};

// Validates and normalises an endpoint: lower-case scheme, no trailing '/', a host.
Result<std::string> NormalizeEndpoint(std::string_view source, std::string_view raw,
                                      bool allow_http) {
  std::string endpoint(Trim(raw));
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  const std::string lower = AsciiToLower(endpoint);
  const std::string where = "storage option '" + std::string(source) + "'";
  std::string scheme;
  if (lower.rfind("https://", 0) == 0) {
    scheme = "https";
  } else if (lower.rfind("http://", 0) == 0) {
    scheme = "http";
  } else {
    return Status::Invalid(where + ": endpoint '" + endpoint +
                           "' must start with http:// or https://");
  }
  std::string rest = endpoint.substr(scheme.size() + 3);
  const size_t slash = rest.find('/');
  const std::string authority = rest.substr(0, slash);
  // User info could carry a password; it is not how S3 endpoints take credentials, so
  // refuse it without echoing the value.
  if (authority.find('@') != std::string::npos) {
    return Status::Invalid(where +
                           ": the endpoint must not contain user info ('user@host'); "
                           "pass credentials as aws_access_key_id/aws_secret_access_key");
  }
  if (authority.empty() || authority.front() == ':') {
    return Status::Invalid(where + ": endpoint '" + endpoint + "' has no host");
  }
  if (endpoint.find_first_of("?#") != std::string::npos) {
    return Status::Invalid(where + ": endpoint '" + endpoint +
                           "' must not contain a query or fragment");
  }
  if (const size_t colon = authority.rfind(':');
      colon != std::string::npos && authority.find(']') == std::string::npos) {
    std::string_view port = std::string_view(authority).substr(colon + 1);
    int64_t ignored = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), ignored);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() ||
        ignored <= 0 || ignored > 65535) {
      return Status::Invalid(where + ": endpoint '" + endpoint + "' has a bad port");
    }
  }
  if (scheme == "http" && !allow_http) {
    return Status::Invalid(where + ": endpoint '" + endpoint +
                           "' uses http:// but allow_http is not set; set the storage "
                           "option allow_http=true (or AWS_ALLOW_HTTP) to permit it");
  }
  return scheme + "://" + rest;
}

}  // namespace

EnvLookup ProcessEnv() {
  return [](std::string_view name) -> std::optional<std::string> {
    const std::string n(name);
    const char* v = std::getenv(n.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Result<std::chrono::milliseconds> ParseDurationOption(std::string_view key,
                                                      std::string_view value) {
  auto invalid = [&]() {
    return Status::Invalid("storage option '" + std::string(key) + "': '" +
                           std::string(value) +
                           "' is not a duration (seconds, or a number with unit ms, s, m "
                           "or h, e.g. \"30\", \"0.5\", \"500ms\", \"2m\")");
  };
  std::string_view v = Trim(value);
  size_t num_end = 0;
  while (num_end < v.size() &&
         (std::isdigit(static_cast<unsigned char>(v[num_end])) || v[num_end] == '.')) {
    ++num_end;
  }
  const std::string number(v.substr(0, num_end));
  const std::string unit = AsciiToLower(Trim(v.substr(num_end)));
  if (number.empty() || number == "." ||
      std::count(number.begin(), number.end(), '.') > 1) {
    return invalid();
  }
  // strtod accepts exactly the digits-and-one-dot form checked above.
  char* end = nullptr;
  const double amount = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(amount)) return invalid();
  double ms_per_unit = 0;
  if (unit.empty() || unit == "s") {
    ms_per_unit = 1000;
  } else if (unit == "ms") {
    ms_per_unit = 1;
  } else if (unit == "m") {
    ms_per_unit = 60'000;
  } else if (unit == "h") {
    ms_per_unit = 3'600'000;
  } else {
    return invalid();
  }
  const double ms = std::round(amount * ms_per_unit);
  // Anything beyond ~30 years is a typo, and keeps the arithmetic far from overflow.
  if (ms > 1e12) {
    return Status::Invalid("storage option '" + std::string(key) + "': '" +
                           std::string(value) + "' is too long a duration");
  }
  return std::chrono::milliseconds(static_cast<int64_t>(ms));
}

Result<bool> ParseBoolOption(std::string_view key, std::string_view value) {
  const std::string v = AsciiToLower(Trim(value));
  if (v == "true" || v == "1" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return false;
  return Status::Invalid("storage option '" + std::string(key) + "': '" +
                         std::string(value) +
                         "' is not a boolean (true/false, 1/0, yes/no, on/off)");
}

std::string S3Options::ToString() const {
  std::string out = "S3Options(region=" + region + ", endpoint=";
  out += endpoint.empty() ? "<aws>" : endpoint;
  out += virtual_hosted_style ? ", virtual-hosted-style" : ", path-style";
  if (allow_http) out += ", allow_http";
  if (allow_invalid_certificates) out += ", allow_invalid_certificates";
  if (unsigned_payload) out += ", unsigned_payload";
  if (skip_signature) out += ", skip_signature";
  out += ", credentials=";
  if (credentials.access_key_id.empty()) {
    out += "<none>";
  } else {
    // The key id as the secrets rule shows it; never the secret or the token.
    out += RedactOptionValue("aws_access_key_id", credentials.access_key_id);
    if (!credentials.session_token.empty()) out += "+session-token";
  }
  out += ", " + RetryToString();
  out += ", part_size=" + std::to_string(multipart_part_size);
  out += ", part_concurrency=" + std::to_string(multipart_concurrency);
  out += ", read_chunk_size=" + std::to_string(read_chunk_size);
  out += ", read_ahead=" + std::to_string(read_ahead);
  out += ", max_connections=" + std::to_string(max_connections);
  out += ")";
  return out;
}

namespace {

using io::internal::OptionReader;

// Transport switches, retries, timeouts and transfer sizes.
Status ReadTuning(const OptionReader& read, S3Options* out) {
  LANCE_RETURN_NOT_OK(read.Bool("allow_http", {"AWS_ALLOW_HTTP"}, &out->allow_http));
  LANCE_RETURN_NOT_OK(read.Bool("virtual_hosted_style",
                                {"AWS_VIRTUAL_HOSTED_STYLE_REQUEST"},
                                &out->virtual_hosted_style));
  LANCE_RETURN_NOT_OK(
      read.Bool("allow_invalid_certificates", {}, &out->allow_invalid_certificates));
  LANCE_RETURN_NOT_OK(read.Bool("unsigned_payload", {}, &out->unsigned_payload));
  LANCE_RETURN_NOT_OK(read.Bool("skip_signature", {}, &out->skip_signature));
  LANCE_RETURN_NOT_OK(io::internal::ReadRemoteTuning(read, {}, out));
  // S3 parts are 5 MiB to 5 GiB (except the last one).
  LANCE_RETURN_NOT_OK(read.Integer("multipart_part_size", {}, int64_t{5} << 20,
                                   int64_t{5} << 30, &out->multipart_part_size));
  LANCE_RETURN_NOT_OK(
      read.Integer("multipart_concurrency", {}, 1, 1024, &out->multipart_concurrency));
  LANCE_RETURN_NOT_OK(
      read.Integer("read_ahead", {}, 0, int64_t{1} << 40, &out->read_ahead));
  return Status::OK();
}

Status ReadEndpointAndRegion(const OptionReader& read, S3Options* out) {
  if (auto s = read.Lookup("endpoint", {"AWS_ENDPOINT", "AWS_ENDPOINT_URL"})) {
    LANCE_ASSIGN_OR_RAISE(out->endpoint,
                          NormalizeEndpoint(s->source, s->value, out->allow_http));
  }
  // Options beat the environment for the region as a whole: an explicit
  // aws_default_region wins over AWS_REGION from the environment.
  if (auto s = read.Lookup("region")) {
    out->region = std::string(Trim(s->value));
  } else if (auto d =
                 read.Lookup("default_region", {"AWS_REGION", "AWS_DEFAULT_REGION"})) {
    out->region = std::string(Trim(d->value));
  } else {
    // Lance: "us-west-2" unless a custom endpoint is set; S3-compatible servers
    // (RGW, MinIO) generally sign with us-east-1.
    out->region = out->endpoint.empty() ? "us-west-2" : "us-east-1";
  }
  return Status::OK();
}

}  // namespace

Result<S3Options> ParseS3Options(const std::map<std::string, std::string>& options,
                                 const EnvLookup& env) {
  LANCE_ASSIGN_OR_RAISE(const OptionReader read,
                        OptionReader::Make(options, {kS3Keys}, "S3 setting",
                                           {io::internal::kAllowHttpSetting}, env));
  S3Options out;
  LANCE_RETURN_NOT_OK(ReadTuning(read, &out));
  LANCE_RETURN_NOT_OK(ReadEndpointAndRegion(read, &out));
  LANCE_ASSIGN_OR_RAISE(Credentials credentials,
                        CredentialsFromStorageOptions(options, env));
  out.credentials = std::move(credentials.aws);
  return out;
}

}  // namespace lance::io::s3

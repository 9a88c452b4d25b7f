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

#include "lance/core/ascii.h"
#include "lance/core/text.h"
#include "lance/io/storage_options.h"
#include "lance/macros.h"

namespace lance::io::s3 {
namespace {

std::string_view Trim(std::string_view s) { return TrimAscii(s); }

// The settings S3Options knows. Each storage-option key maps to at most one of them.
// The credentials are not among them: CredentialsFromStorageOptions reads those
// (credentials.h, over the one list of credential keys).
enum class Field {
  kRegion,
  kDefaultRegion,  // below kRegion in precedence, so kept apart
  kEndpoint,
  kVirtualHostedStyle,
  kAllowHttp,
  kAllowInvalidCertificates,
  kUnsignedPayload,
  kSkipSignature,
  kMaxRetries,
  kRetryTimeout,
  kInitialBackoff,
  kMaxBackoff,
  kConnectTimeout,
  kRequestTimeout,
  kStallTimeout,
  kMultipartPartSize,
  kMultipartConcurrency,
  kReadChunkSize,
  kReadAhead,
  kMaxConnections,
};

// Lower-case key -> field; Lance's aliases included. Keys not listed (and not matching
// the allow_http rule) are ignored, as object_store drops keys it does not parse.
std::optional<Field> FieldOfKey(const std::string& key) {
  static const std::map<std::string, Field, std::less<>> kKeys = {
      {"aws_region", Field::kRegion},
      {"region", Field::kRegion},
      {"aws_default_region", Field::kDefaultRegion},
      {"aws_endpoint", Field::kEndpoint},
      {"aws_endpoint_url", Field::kEndpoint},
      {"endpoint", Field::kEndpoint},
      {"endpoint_url", Field::kEndpoint},
      {"aws_virtual_hosted_style_request", Field::kVirtualHostedStyle},
      {"allow_invalid_certificates", Field::kAllowInvalidCertificates},
      {"aws_unsigned_payload", Field::kUnsignedPayload},
      {"aws_skip_signature", Field::kSkipSignature},
      {"client_max_retries", Field::kMaxRetries},
      {"client_retry_timeout", Field::kRetryTimeout},
      {"connect_timeout", Field::kConnectTimeout},
      {"timeout", Field::kRequestTimeout},
      {"lance_cpp_initial_backoff_ms", Field::kInitialBackoff},
      {"lance_cpp_max_backoff_ms", Field::kMaxBackoff},
      {"lance_cpp_stall_timeout", Field::kStallTimeout},
      {"lance_cpp_multipart_part_size", Field::kMultipartPartSize},
      {"lance_cpp_multipart_concurrency", Field::kMultipartConcurrency},
      {"lance_cpp_read_chunk_size", Field::kReadChunkSize},
      {"lance_cpp_read_ahead", Field::kReadAhead},
      {"lance_cpp_max_connections", Field::kMaxConnections},
  };
  auto it = kKeys.find(key);
  if (it != kKeys.end()) return it->second;
  // Lance treats every key containing "allow_http" as the allow_http switch.
  if (key.find("allow_http") != std::string::npos) return Field::kAllowHttp;
  return std::nullopt;
}

// One value for a field, and where it came from (the option key as the caller spelled
// it, or the environment variable's name) for error messages.
using Setting = OptionSetting;

Result<int64_t> ParseInt(std::string_view key, std::string_view value, int64_t min,
                         int64_t max) {
  std::string_view v = Trim(value);
  int64_t out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size()) {
    return Status::Invalid("storage option '" + std::string(key) + "': '" +
                           std::string(value) + "' is not a decimal integer");
  }
  if (out < min || out > max) {
    return Status::Invalid("storage option '" + std::string(key) +
                           "': " + std::to_string(out) + " is out of range [" +
                           std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return out;
}

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

std::string FormatDuration(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + "s";
  return std::to_string(d.count()) + "ms";
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
  out += ", max_retries=" + std::to_string(max_retries);
  out += ", retry_timeout=" + FormatDuration(retry_timeout);
  out += ", connect_timeout=" + FormatDuration(connect_timeout);
  out += ", timeout=" + (request_timeout.count() == 0 ? std::string("none")
                                                      : FormatDuration(request_timeout));
  out += ", stall_timeout=" + FormatDuration(stall_timeout);
  out += ", part_size=" + std::to_string(multipart_part_size);
  out += ", part_concurrency=" + std::to_string(multipart_concurrency);
  out += ", read_chunk_size=" + std::to_string(read_chunk_size);
  out += ", read_ahead=" + std::to_string(read_ahead);
  out += ", max_connections=" + std::to_string(max_connections);
  out += ")";
  return out;
}

namespace {

using Given = std::map<Field, std::vector<Setting>>;

// Groups the options by field. Empty values count as absent: namespaces and config files
// often carry "aws_region": "" meaning "not set". Two spellings of one setting with
// different values (e.g. "aws_region" and "region", or "AWS_REGION" and "aws_region")
// are ambiguous; picking one silently would depend on map order. Booleans are compared
// parsed ("1" equals "true").
Result<Given> GroupOptions(const std::map<std::string, std::string>& options) {
  Given given;
  for (const auto& [key, value] : options) {
    if (Trim(value).empty()) continue;
    if (auto field = FieldOfKey(AsciiToLower(Trim(key)))) {
      given[*field].push_back(Setting{key, value});
    }
  }
  for (const auto& [field, settings] : given) {
    for (size_t i = 1; i < settings.size(); ++i) {
      bool same = Trim(settings[i].value) == Trim(settings[0].value);
      if (!same && field == Field::kAllowHttp) {
        auto a = ParseBoolOption(settings[0].source, settings[0].value);
        auto b = ParseBoolOption(settings[i].source, settings[i].value);
        same = a.ok() && b.ok() && *a == *b;
      }
      if (same) continue;
      return ConflictingSettingsError(settings[0], settings[i], "S3 setting");
    }
  }
  return given;
}

// The single value of a field from the options, else from the first set environment
// variable of `env_names`; and typed setters on top of it.
struct OptionReader {
  const Given& given;
  const EnvLookup& env;

  std::optional<Setting> Lookup(Field field,
                                std::initializer_list<std::string_view> env_names) const {
    if (auto it = given.find(field); it != given.end()) return it->second.front();
    for (std::string_view name : env_names) {
      if (!env) break;
      if (auto v = env(name); v.has_value() && !Trim(*v).empty()) {
        return Setting{std::string(name), *v};
      }
    }
    return std::nullopt;
  }
  Status Bool(Field field, std::initializer_list<std::string_view> env_names,
              bool* target) const {
    if (auto s = Lookup(field, env_names)) {
      LANCE_ASSIGN_OR_RAISE(*target, ParseBoolOption(s->source, s->value));
    }
    return Status::OK();
  }
  Status Duration(Field field, std::initializer_list<std::string_view> env_names,
                  std::chrono::milliseconds* target) const {
    if (auto s = Lookup(field, env_names)) {
      LANCE_ASSIGN_OR_RAISE(*target, ParseDurationOption(s->source, s->value));
    }
    return Status::OK();
  }
  Status Millis(Field field, std::chrono::milliseconds* target) const {
    if (auto s = Lookup(field, {})) {
      LANCE_ASSIGN_OR_RAISE(int64_t ms, ParseInt(s->source, s->value, 0, 3'600'000));
      *target = std::chrono::milliseconds(ms);
    }
    return Status::OK();
  }
  template <typename Int>
  Status Integer(Field field, std::initializer_list<std::string_view> env_names,
                 int64_t min, int64_t max, Int* target) const {
    if (auto s = Lookup(field, env_names)) {
      LANCE_ASSIGN_OR_RAISE(int64_t v, ParseInt(s->source, s->value, min, max));
      *target = static_cast<Int>(v);
    }
    return Status::OK();
  }
};

// Transport switches, retries, timeouts and transfer sizes.
Status ReadTuning(const OptionReader& read, S3Options* out) {
  LANCE_RETURN_NOT_OK(read.Bool(Field::kAllowHttp, {"AWS_ALLOW_HTTP"}, &out->allow_http));
  LANCE_RETURN_NOT_OK(read.Bool(Field::kVirtualHostedStyle,
                                {"AWS_VIRTUAL_HOSTED_STYLE_REQUEST"},
                                &out->virtual_hosted_style));
  LANCE_RETURN_NOT_OK(
      read.Bool(Field::kAllowInvalidCertificates, {}, &out->allow_invalid_certificates));
  LANCE_RETURN_NOT_OK(read.Bool(Field::kUnsignedPayload, {}, &out->unsigned_payload));
  LANCE_RETURN_NOT_OK(read.Bool(Field::kSkipSignature, {}, &out->skip_signature));

  LANCE_RETURN_NOT_OK(read.Integer(Field::kMaxRetries,
                                   {"OBJECT_STORE_CLIENT_MAX_RETRIES"}, 0, 1000,
                                   &out->max_retries));
  LANCE_RETURN_NOT_OK(read.Duration(
      Field::kRetryTimeout, {"OBJECT_STORE_CLIENT_RETRY_TIMEOUT"}, &out->retry_timeout));
  LANCE_RETURN_NOT_OK(read.Millis(Field::kInitialBackoff, &out->initial_backoff));
  LANCE_RETURN_NOT_OK(read.Millis(Field::kMaxBackoff, &out->max_backoff));
  LANCE_RETURN_NOT_OK(read.Duration(Field::kConnectTimeout, {}, &out->connect_timeout));
  LANCE_RETURN_NOT_OK(read.Duration(Field::kRequestTimeout, {}, &out->request_timeout));
  LANCE_RETURN_NOT_OK(read.Duration(Field::kStallTimeout, {}, &out->stall_timeout));
  // S3 parts are 5 MiB to 5 GiB (except the last one).
  LANCE_RETURN_NOT_OK(read.Integer(Field::kMultipartPartSize, {}, int64_t{5} << 20,
                                   int64_t{5} << 30, &out->multipart_part_size));
  LANCE_RETURN_NOT_OK(read.Integer(Field::kMultipartConcurrency, {}, 1, 1024,
                                   &out->multipart_concurrency));
  LANCE_RETURN_NOT_OK(read.Integer(Field::kReadChunkSize, {}, 1,
                                   std::numeric_limits<int64_t>::max(),
                                   &out->read_chunk_size));
  LANCE_RETURN_NOT_OK(
      read.Integer(Field::kReadAhead, {}, 0, int64_t{1} << 40, &out->read_ahead));
  LANCE_RETURN_NOT_OK(
      read.Integer(Field::kMaxConnections, {}, 1, 1024, &out->max_connections));
  // A smaller cap than first delay would make the first delay meaningless.
  if (out->max_backoff < out->initial_backoff) out->max_backoff = out->initial_backoff;
  return Status::OK();
}

Status ReadEndpointAndRegion(const OptionReader& read, S3Options* out) {
  if (auto s = read.Lookup(Field::kEndpoint, {"AWS_ENDPOINT", "AWS_ENDPOINT_URL"})) {
    LANCE_ASSIGN_OR_RAISE(out->endpoint,
                          NormalizeEndpoint(s->source, s->value, out->allow_http));
  }
  // Options beat the environment for the region as a whole: an explicit
  // aws_default_region wins over AWS_REGION from the environment.
  if (auto s = read.Lookup(Field::kRegion, {})) {
    out->region = std::string(Trim(s->value));
  } else if (auto d = read.Lookup(Field::kDefaultRegion,
                                  {"AWS_REGION", "AWS_DEFAULT_REGION"})) {
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
  LANCE_ASSIGN_OR_RAISE(Given given, GroupOptions(options));
  const OptionReader read{given, env};
  S3Options out;
  LANCE_RETURN_NOT_OK(ReadTuning(read, &out));
  LANCE_RETURN_NOT_OK(ReadEndpointAndRegion(read, &out));
  LANCE_ASSIGN_OR_RAISE(Credentials credentials,
                        CredentialsFromStorageOptions(options, env));
  out.credentials = std::move(credentials.aws);
  return out;
}

}  // namespace lance::io::s3

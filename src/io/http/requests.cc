// SPDX-License-Identifier: Apache-2.0
// The small request helpers of the clients (see http_client.h): percent-encoding as the
// cloud APIs sign and send it, client options, token requests.

#include <ctime>
#include <string>
#include <string_view>
#include <utility>

#include "io/http/canonical.h"
#include "lance/io/http/http_client.h"

namespace lance::io::http {

namespace {

constexpr char kHexUpper[] = "0123456789ABCDEF";

// RFC 3986 unreserved characters (ASCII only, whatever the locale).
bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '.' || c == '_' || c == '~';
}

}  // namespace

std::string PercentEncode(std::string_view data, bool encode_slash) {
  std::string out;
  out.reserve(data.size());
  for (char ch : data) {
    const auto c = static_cast<unsigned char>(ch);
    if (IsUnreserved(c) || (c == '/' && !encode_slash)) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHexUpper[c >> 4]);
      out.push_back(kHexUpper[c & 0xF]);
    }
  }
  return out;
}

std::string CollapseBlanks(std::string_view value, std::string_view blanks) {
  std::string out;
  out.reserve(value.size());
  bool pending_space = false;
  for (char c : value) {
    if (blanks.find(c) != std::string_view::npos) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(c);
  }
  return out;
}

int64_t UtcSeconds(int year, int month, int day, int hour, int minute, int second) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<int64_t>(timegm(&tm));
}

ClientOptions MakeClientOptions(std::string component,
                                std::chrono::milliseconds connect_timeout,
                                std::chrono::milliseconds request_timeout,
                                bool allow_invalid_certificates) {
  ClientOptions options;
  options.log_component = std::move(component);
  options.connect_timeout = connect_timeout;
  options.request_timeout = request_timeout;
  options.tls.verify_peer = !allow_invalid_certificates;
  options.tls.verify_host = !allow_invalid_certificates;
  return options;
}

HttpRequest FormPost(std::string url, std::string_view body) {
  HttpRequest req;
  req.method = "POST";
  req.url = std::move(url);
  req.body = body;
  req.headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                 {"Accept", "application/json"}};
  // A token answer is a few hundred bytes.
  req.max_buffered_body = 1 << 20;
  return req;
}

}  // namespace lance::io::http

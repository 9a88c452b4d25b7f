// SPDX-License-Identifier: Apache-2.0
// Shared Key signing of Blob service requests, and the encodings it needs (see
// shared_key.h).

#include "io/azure/shared_key.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <map>

#include "io/http/canonical.h"
#include "lance/core/ascii.h"
#include "lance/core/text.h"
#include "lance/io/http/http_client.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io::azure {

namespace {

constexpr std::array<const char*, 7> kDays = {"Sun", "Mon", "Tue", "Wed",
                                              "Thu", "Fri", "Sat"};
constexpr std::array<const char*, 12> kMonths = {
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::tm UtcTm(std::chrono::system_clock::time_point time) {
  const std::time_t t = std::chrono::system_clock::to_time_t(time);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return tm;
}

// Trims blanks and collapses inner runs of them to one space.
std::string CanonicalHeaderValue(std::string_view v) {
  return http::CollapseBlanks(v, " \t\r\n");
}

// The value of a standard header for the string to sign ("" when absent).
std::string_view StandardHeader(const http::Headers& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoreAsciiCase(key, name)) return value;
  }
  return {};
}

}  // namespace

std::string Base64Encode(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(data.data()),
                                static_cast<int>(data.size()));
  out.resize(static_cast<size_t>(std::max(n, 0)));
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  auto invalid = [] { return Status::Invalid("the value is not valid base64"); };
  if (text.size() % 4 != 0) return invalid();
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                       (c >= '0' && c <= '9') || c == '+' || c == '/';
    // '=' only as the last one or two characters.
    if (!alnum && !(c == '=' && i + 2 >= text.size())) return invalid();
  }
  std::string out(3 * (text.size() / 4), '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return invalid();
  size_t size = static_cast<size_t>(n);
  // EVP_DecodeBlock counts the padding as zero bytes.
  if (!text.empty() && text.back() == '=') --size;
  if (text.size() >= 2 && text[text.size() - 2] == '=') --size;
  out.resize(size);
  return out;
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  std::string out(EVP_MAX_MD_SIZE, '\0');
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(),
       reinterpret_cast<unsigned char*>(out.data()), &len);
  out.resize(len);
  return out;
}

std::string Md5(std::string_view data) {
  std::string out(EVP_MAX_MD_SIZE, '\0');
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), reinterpret_cast<unsigned char*>(out.data()), &len,
             EVP_md5(), nullptr);
  out.resize(len);
  return out;
}

std::string UrlEncode(std::string_view data, bool encode_slash) {
  return http::PercentEncode(data, encode_slash);
}

std::string UrlDecode(std::string_view data, bool plus_is_space) {
  std::string out;
  out.reserve(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '%' && i + 2 < data.size()) {
      const int hi = HexValue(data[i + 1]);
      const int lo = HexValue(data[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(plus_is_space && data[i] == '+' ? ' ' : data[i]);
  }
  return out;
}

std::string FormatRfc1123(std::chrono::system_clock::time_point time) {
  const std::tm tm = UtcTm(time);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s, %02d %s %04d %02d:%02d:%02d GMT",
                kDays[tm.tm_wday], tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900,
                tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

int64_t ParseRfc1123Millis(std::string_view text) {
  // "Sun, 06 Nov 1994 08:49:37 GMT"
  char day[4] = {}, month[4] = {};
  int mday = 0, year = 0, hour = 0, min = 0, sec = 0;
  const std::string s(text);
  if (std::sscanf(s.c_str(), "%3s, %d %3s %d %d:%d:%d", day, &mday, month, &year, &hour,
                  &min, &sec) != 7) {
    return 0;
  }
  int mon = -1;
  for (size_t i = 0; i < kMonths.size(); ++i) {
    if (std::string_view(month) == kMonths[i]) mon = static_cast<int>(i);
  }
  if (mon < 0) return 0;
  return http::UtcSeconds(year, mon + 1, mday, hour, min, sec) * 1000;
}

std::string FormatIso8601(std::chrono::system_clock::time_point time) {
  const std::tm tm = UtcTm(time);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

Result<std::chrono::system_clock::time_point> ParseIso8601(std::string_view text) {
  int year = 0, mon = 0, mday = 0, hour = 0, min = 0, sec = 0, consumed = 0;
  const std::string s(text);
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &year, &mon, &mday, &hour, &min,
                  &sec, &consumed) != 6) {
    return Status::Invalid(StrCat("'", text, "' is not an ISO 8601 UTC time"));
  }
  std::string_view rest = std::string_view(s).substr(static_cast<size_t>(consumed));
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    while (!rest.empty() && rest.front() >= '0' && rest.front() <= '9') {
      rest.remove_prefix(1);
    }
  }
  if (rest != "Z") return Status::Invalid(StrCat("'", text, "' is not a UTC time"));
  return std::chrono::system_clock::from_time_t(
      static_cast<std::time_t>(http::UtcSeconds(year, mon, mday, hour, min, sec)));
}

std::string SharedKeyStringToSign(const SharedKeyRequest& request) {
  std::string out = request.method;
  out.push_back('\n');
  for (std::string_view name :
       {"Content-Encoding", "Content-Language", "Content-Length", "Content-MD5",
        "Content-Type", "Date", "If-Modified-Since", "If-Match", "If-None-Match",
        "If-Unmodified-Since", "Range"}) {
    if (name == "Content-Length") {
      // Empty when 0 (version 2015-02-21 and later).
      if (request.content_length > 0) out += std::to_string(request.content_length);
    } else {
      out += StandardHeader(request.headers, name);
    }
    out.push_back('\n');
  }
  std::map<std::string, std::string> ms_headers;
  for (const auto& [name, value] : request.headers) {
    std::string lower = AsciiToLower(TrimAscii(name));
    if (lower.rfind("x-ms-", 0) != 0) continue;
    std::string& slot = ms_headers[lower];
    if (!slot.empty()) slot.push_back(',');
    slot += CanonicalHeaderValue(value);
  }
  for (const auto& [name, value] : ms_headers) StrAppend(&out, name, ":", value, "\n");
  StrAppend(&out, "/", request.account, request.path.empty() ? "/" : request.path);
  std::map<std::string, std::vector<std::string>> params;
  for (const auto& [name, value] : request.query) {
    params[AsciiToLower(name)].push_back(value);
  }
  for (auto& [name, values] : params) {
    std::sort(values.begin(), values.end());
    StrAppend(&out, "\n", name, ":");
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out.push_back(',');
      out += values[i];
    }
  }
  return out;
}

Result<std::string> SharedKeyAuthorization(const SharedKeyRequest& request,
                                           std::string_view account_key) {
  Result<std::string> key = Base64Decode(account_key);
  if (!key.ok()) {
    return Status::Invalid(
        StrCat("the Azure account key of '", request.account, "' is not valid base64"));
  }
  const std::string signature =
      Base64Encode(HmacSha256(*key, SharedKeyStringToSign(request)));
  OPENSSL_cleanse(key->data(), key->size());
  return StrCat("SharedKey ", request.account, ":", signature);
}

}  // namespace lance::io::azure

// SPDX-License-Identifier: Apache-2.0
// S3 request and response bodies and headers: XML documents (errors, listings, delete
// results), dates, ranges, encodings. Pure functions, tested offline.

#include "io/s3/responses.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "io/s3/xml.h"
#include "lance/core/ascii.h"
#include "lance/core/temporal.h"
#include "lance/core/text.h"
#include "lance/macros.h"

namespace lance::io::s3::internal {

std::string_view Trim(std::string_view s) { return TrimAscii(s); }

bool ParseInt64(std::string_view s, int64_t* out) {
  // Digits only (ParseDecimalInteger alone would take a sign); 18 of them always fit.
  if (s.empty() || s.size() > 18 || s[0] == '-') return false;
  const std::optional<int64_t> v = ParseDecimalInteger<int64_t>(s);
  if (!v) return false;
  *out = *v;
  return true;
}

std::optional<S3Error> ParseErrorBody(std::string_view body, int http_status) {
  // Skip leading whitespace: some servers send a newline before the declaration.
  auto parsed = ParseXml(body);
  if (!parsed.ok() || parsed->name != "Error") return std::nullopt;
  S3Error e;
  e.http_status = http_status;
  e.code = parsed->ChildText("Code");
  e.message = parsed->ChildText("Message");
  e.request_id = parsed->ChildText("RequestId");
  return e;
}

Result<std::string> UrlDecode(std::string_view encoded, bool plus_is_space) {
  std::string out;
  out.reserve(encoded.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < encoded.size(); ++i) {
    const char c = encoded[i];
    if (c == '%') {
      if (i + 2 >= encoded.size()) {
        return Status::Invalid("malformed percent-encoding in S3 listing");
      }
      const int hi = hex(encoded[i + 1]);
      const int lo = hex(encoded[i + 2]);
      if (hi < 0 || lo < 0)
        return Status::Invalid("malformed percent-encoding in S3 listing");
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Result<ListObjectsV2Response> ParseListObjectsV2(std::string_view body) {
  LANCE_ASSIGN_OR_RAISE(XmlElement root, ParseXml(body));
  if (root.name != "ListBucketResult") {
    return Status::IOError("S3 ListObjectsV2 answer is not a ListBucketResult");
  }
  const bool url = root.ChildText("EncodingType") == "url";
  auto decode = [&](const std::string& s) -> Result<std::string> {
    if (!url) return s;
    return UrlDecode(s, /*plus_is_space=*/true);
  };
  ListObjectsV2Response out;
  for (const XmlElement* c : root.Children("Contents")) {
    S3ListEntry e;
    const XmlElement* key = c->Child("Key");
    if (key == nullptr) return Status::IOError("S3 ListObjectsV2 entry without a Key");
    LANCE_ASSIGN_OR_RAISE(e.key, decode(key->text));
    const std::string size = std::string(Trim(c->ChildText("Size")));
    if (!ParseInt64(size, &e.size)) {
      return Status::IOError("S3 ListObjectsV2 entry with a malformed Size");
    }
    e.etag = c->ChildText("ETag");
    e.last_modified_ms = ParseIso8601Ms(Trim(c->ChildText("LastModified"))).value_or(0);
    out.objects.push_back(std::move(e));
  }
  for (const XmlElement* c : root.Children("CommonPrefixes")) {
    const XmlElement* p = c->Child("Prefix");
    if (p == nullptr)
      return Status::IOError("S3 ListObjectsV2 CommonPrefixes without a Prefix");
    LANCE_ASSIGN_OR_RAISE(std::string prefix, decode(p->text));
    out.common_prefixes.push_back(std::move(prefix));
  }
  const std::string truncated = std::string(Trim(root.ChildText("IsTruncated")));
  if (truncated == "true") {
    out.next_continuation_token = root.ChildText("NextContinuationToken");
    if (out.next_continuation_token.empty()) {
      return Status::IOError(
          "S3 ListObjectsV2 answer is truncated but has no continuation token");
    }
  } else if (!truncated.empty() && truncated != "false") {
    return Status::IOError("S3 ListObjectsV2 answer has a malformed IsTruncated");
  }
  return out;
}

Result<std::vector<DeleteFailure>> ParseDeleteResult(std::string_view body) {
  LANCE_ASSIGN_OR_RAISE(XmlElement root, ParseXml(body));
  if (root.name != "DeleteResult") {
    return Status::IOError("S3 DeleteObjects answer is not a DeleteResult");
  }
  std::vector<DeleteFailure> out;
  for (const XmlElement* e : root.Children("Error")) {
    DeleteFailure f{e->ChildText("Key"), e->ChildText("Code"), e->ChildText("Message")};
    if (f.code == "NoSuchKey") continue;
    out.push_back(std::move(f));
  }
  return out;
}

std::string BuildDeleteBody(const std::vector<std::string>& keys, size_t begin,
                            size_t end) {
  std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete><Quiet>true</Quiet>";
  for (size_t i = begin; i < end; ++i) {
    body += "<Object><Key>";
    body += XmlEscape(keys[i]);
    body += "</Key></Object>";
  }
  body += "</Delete>";
  return body;
}

std::string BuildCompleteBody(const std::vector<std::string>& part_etags) {
  std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><CompleteMultipartUpload>";
  for (size_t i = 0; i < part_etags.size(); ++i) {
    body += "<Part><PartNumber>";
    body += std::to_string(i + 1);
    body += "</PartNumber><ETag>";
    body += XmlEscape(part_etags[i]);
    body += "</ETag></Part>";
  }
  body += "</CompleteMultipartUpload>";
  return body;
}

std::string Md5Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_md5(), nullptr);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0xF]);
  }
  return out;
}

std::string ContentMd5(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_md5(), nullptr);
  unsigned char b64[64];
  const int n = EVP_EncodeBlock(b64, digest, static_cast<int>(len));
  return std::string(reinterpret_cast<char*>(b64), static_cast<size_t>(n));
}

std::optional<int64_t> ParseIso8601Ms(std::string_view t) {
  // S3's LastModified: YYYY-MM-DDTHH:MM:SS[.fff...]Z, milliseconds kept, finer digits
  // dropped.
  // Only S3's own spelling: 'T' between date and time, 'Z' at the end.
  if (t.size() < 20 || t[10] != 'T' || t.back() != 'Z') return std::nullopt;
  auto parsed = ParseIsoDateTime(t);
  if (!parsed.ok() || !parsed->has_time || parsed->offset_seconds != 0) {
    return std::nullopt;
  }
  const std::string_view millis = parsed->fraction.substr(0, 3);
  const int64_t ms = millis.empty() ? 0 : FractionTicks(millis, 3).value_or(0);
  return (parsed->days * 86'400 + parsed->second_of_day) * 1000 + ms;
}

std::optional<int64_t> ParseHttpDateMs(std::string_view text) {
  // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT" (what S3 and RGW send).
  static constexpr std::string_view kMonths[] = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::string_view t = Trim(text);
  const size_t comma = t.find(", ");
  if (comma == std::string_view::npos) return std::nullopt;
  t = t.substr(comma + 2);
  if (t.size() != 24 || t[2] != ' ' || t[6] != ' ' || t[11] != ' ' || t[14] != ':' ||
      t[17] != ':' || t.substr(20) != " GMT") {
    return std::nullopt;
  }
  int64_t d, y, h, mi, s;
  if (!ParseInt64(t.substr(0, 2), &d) || !ParseInt64(t.substr(7, 4), &y) ||
      !ParseInt64(t.substr(12, 2), &h) || !ParseInt64(t.substr(15, 2), &mi) ||
      !ParseInt64(t.substr(18, 2), &s)) {
    return std::nullopt;
  }
  int64_t mo = 0;
  for (int i = 0; i < 12; ++i) {
    if (t.substr(3, 3) == kMonths[i]) mo = i + 1;
  }
  if (mo == 0 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  return ((DaysFromCivil(y, static_cast<int>(mo), static_cast<int>(d)) * 24 + h) * 60 +
          mi) *
             60'000 +
         s * 1000;
}

std::optional<ContentRange> ParseContentRange(std::string_view value) {
  std::string_view v = Trim(value);
  if (v.substr(0, 6) != "bytes ") return std::nullopt;
  v = v.substr(6);
  const size_t dash = v.find('-');
  const size_t slash = v.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos || dash > slash) {
    return std::nullopt;
  }
  ContentRange r;
  if (!ParseInt64(v.substr(0, dash), &r.first) ||
      !ParseInt64(v.substr(dash + 1, slash - dash - 1), &r.last) || r.last < r.first) {
    return std::nullopt;
  }
  const std::string_view total = v.substr(slash + 1);
  if (total == "*") {
    r.total = -1;
  } else if (!ParseInt64(total, &r.total) || r.total <= r.last) {
    return std::nullopt;
  }
  return r;
}

std::string RangeHeader(int64_t offset, int64_t length) {
  if (length < 0) {
    if (offset == 0) return "";
    return "bytes=" + std::to_string(offset) + "-";
  }
  return "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + length - 1);
}

}  // namespace lance::io::s3::internal

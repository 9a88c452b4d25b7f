// SPDX-License-Identifier: Apache-2.0
#include "lib/cli_options.h"

#include "lance/core/text.h"
#include "lance/io/storage_options.h"
#include "lib/json.h"
#include "lib/scalar_codec.h"

namespace lance::cli {

namespace {

// Column lists are trimmed of spaces only (a tab in a name is kept, as before).
std::string_view TrimSpaces(std::string_view s) { return TrimAscii(s, " "); }

}  // namespace

bool IsSecretKey(std::string_view key) { return io::IsSecretOptionKey(key); }

std::string RedactValue(std::string_view key, std::string_view value) {
  return io::RedactOptionValue(key, value);
}

std::string RedactUri(std::string_view uri) {
  std::string out;
  // userinfo: scheme://user:password@host/...
  const size_t scheme_end = uri.find("://");
  size_t rest_start = 0;
  if (scheme_end != std::string_view::npos) {
    const size_t authority_start = scheme_end + 3;
    size_t authority_end = uri.find_first_of("/?#", authority_start);
    if (authority_end == std::string_view::npos) authority_end = uri.size();
    std::string_view authority =
        uri.substr(authority_start, authority_end - authority_start);
    const size_t at = authority.rfind('@');
    out.append(uri.substr(0, authority_start));
    if (at != std::string_view::npos) {
      std::string_view userinfo = authority.substr(0, at);
      const size_t colon = userinfo.find(':');
      if (colon != std::string_view::npos) {
        out.append(userinfo.substr(0, colon + 1));
        out.append(io::kRedactedValue);
      } else {
        out.append(userinfo);
      }
      out.append(authority.substr(at));
    } else {
      out.append(authority);
    }
    rest_start = authority_end;
  }
  const size_t query = uri.find('?', rest_start);
  if (query == std::string_view::npos) {
    out.append(uri.substr(rest_start));
    return out;
  }
  out.append(uri.substr(rest_start, query + 1 - rest_start));
  size_t fragment = uri.find('#', query);
  if (fragment == std::string_view::npos) fragment = uri.size();
  std::string_view params = uri.substr(query + 1, fragment - query - 1);
  bool first = true;
  while (true) {
    const size_t amp = params.find('&');
    std::string_view param = params.substr(0, amp);
    if (!first) out.push_back('&');
    first = false;
    const size_t eq = param.find('=');
    if (eq != std::string_view::npos && IsSecretKey(param.substr(0, eq))) {
      out.append(param.substr(0, eq + 1));
      out.append(io::kRedactedValue);
    } else {
      out.append(param);
    }
    if (amp == std::string_view::npos) break;
    params.remove_prefix(amp + 1);
  }
  out.append(uri.substr(fragment));
  return out;
}

Result<std::map<std::string, std::string>> ParseStorageOptions(
    const std::vector<std::string>& pairs) {
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const std::string& pair = pairs[i];
    const size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) {
      // The text may be a mistyped secret: name the position only.
      return Status::Invalid("--storage-option #" + std::to_string(i + 1) +
                             " must look like KEY=VALUE");
    }
    std::string key = pair.substr(0, eq);
    if (out.count(key) > 0) {
      return Status::Invalid("--storage-option " + JsonQuote(key) +
                             " given more than once");
    }
    out.emplace(std::move(key), pair.substr(eq + 1));
  }
  return out;
}

Result<int64_t> ParseCount(std::string_view text, std::string_view name) {
  if (text.empty() || text[0] == '-' || text[0] == '+') {
    return Status::Invalid("--" + std::string(name) +
                           " expects a non-negative integer, got " +
                           QuoteForMessage(text));
  }
  auto value = ParseInteger<int64_t>(text);
  if (!value.ok()) {
    return Status::Invalid("--" + std::string(name) +
                           " expects a non-negative integer, got " +
                           QuoteForMessage(text));
  }
  return *value;
}

Result<std::vector<std::string>> ParseColumnList(const std::vector<std::string>& lists) {
  std::vector<std::string> out;
  for (const auto& list : lists) {
    size_t start = 0;
    while (true) {
      const size_t comma = list.find(',', start);
      std::string_view name = TrimSpaces(std::string_view(list).substr(
          start, comma == std::string::npos ? std::string::npos : comma - start));
      if (name.empty()) {
        return Status::Invalid("--columns: empty column name in " + JsonQuote(list));
      }
      out.emplace_back(name);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

}  // namespace lance::cli

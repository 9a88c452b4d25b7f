// SPDX-License-Identifier: Apache-2.0
#include "lib/json.h"

#include <cstdio>

namespace lance::cli {

namespace {

// Length of the well-formed UTF-8 sequence starting at s[i], or 0 if there is none.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return 1;
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    if (b0 == 0xE0) lo = 0xA0;  // no overlongs
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    if (b0 == 0xF0) lo = 0x90;  // no overlongs
    if (b0 == 0xF4) hi = 0x8F;  // <= U+10FFFF
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return len;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

constexpr int kMaxDepth = 256;

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  Result<JsonValue> ParseDocument() {
    JsonValue v;
    SkipSpace();
    Status st = ParseValue(&v, 0);
    if (!st.ok()) return st;
    SkipSpace();
    if (pos_ != s_.size()) return Error("unexpected text after the JSON value");
    return v;
  }

 private:
  Status Error(const std::string& what) const {
    return Status::Invalid("invalid JSON at column " + std::to_string(pos_ + 1) + ": " +
                           what);
  }

  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' ||
                                s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Consume(std::string_view word) {
    if (s_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return true;
    }
    return false;
  }

  Status ParseValue(JsonValue* v, int depth) {
    if (depth > kMaxDepth) return Error("nesting is deeper than 256 levels");
    if (pos_ >= s_.size()) return Error("unexpected end of input");
    const char c = s_[pos_];
    if (c == '{') return ParseObject(v, depth);
    if (c == '[') return ParseArray(v, depth);
    if (c == '"') {
      v->kind = JsonValue::Kind::kString;
      return ParseString(&v->text);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(v);
    if (Consume("true")) {
      v->kind = JsonValue::Kind::kBool;
      v->boolean = true;
      return Status::OK();
    }
    if (Consume("false")) {
      v->kind = JsonValue::Kind::kBool;
      v->boolean = false;
      return Status::OK();
    }
    if (Consume("null")) {
      v->kind = JsonValue::Kind::kNull;
      return Status::OK();
    }
    return Error("unexpected character '" + std::string(1, c) + "'");
  }

  Status ParseObject(JsonValue* v, int depth) {
    v->kind = JsonValue::Kind::kObject;
    ++pos_;  // '{'
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return Status::OK();
    }
    while (true) {
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '"') return Error("expected a member name");
      std::string key;
      Status st = ParseString(&key);
      if (!st.ok()) return st;
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ':') return Error("expected ':'");
      ++pos_;
      SkipSpace();
      JsonValue member;
      st = ParseValue(&member, depth + 1);
      if (!st.ok()) return st;
      v->members.emplace_back(std::move(key), std::move(member));
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        return Status::OK();
      }
      return Error("expected ',' or '}'");
    }
  }

  Status ParseArray(JsonValue* v, int depth) {
    v->kind = JsonValue::Kind::kArray;
    ++pos_;  // '['
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      return Status::OK();
    }
    while (true) {
      SkipSpace();
      JsonValue item;
      Status st = ParseValue(&item, depth + 1);
      if (!st.ok()) return st;
      v->items.push_back(std::move(item));
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        return Status::OK();
      }
      return Error("expected ',' or ']'");
    }
  }

  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

  Status ParseNumber(JsonValue* v) {
    const size_t start = pos_;
    if (s_[pos_] == '-') ++pos_;
    if (pos_ >= s_.size() || !IsDigit(s_[pos_])) return Error("invalid number");
    if (s_[pos_] == '0') {
      ++pos_;
    } else {
      while (pos_ < s_.size() && IsDigit(s_[pos_])) ++pos_;
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (pos_ >= s_.size() || !IsDigit(s_[pos_])) return Error("invalid number");
      while (pos_ < s_.size() && IsDigit(s_[pos_])) ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (pos_ >= s_.size() || !IsDigit(s_[pos_])) return Error("invalid number");
      while (pos_ < s_.size() && IsDigit(s_[pos_])) ++pos_;
    }
    v->kind = JsonValue::Kind::kNumber;
    v->text.assign(s_.substr(start, pos_ - start));
    return Status::OK();
  }

  Status ParseHex4(uint32_t* out) {
    if (pos_ + 4 > s_.size()) return Error("truncated \\u escape");
    uint32_t value = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[pos_ + k];
      value <<= 4;
      if (c >= '0' && c <= '9') {
        value |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        value |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        value |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return Error("invalid \\u escape");
      }
    }
    pos_ += 4;
    *out = value;
    return Status::OK();
  }

  Status ParseString(std::string* out) {
    ++pos_;  // opening quote
    out->clear();
    while (true) {
      if (pos_ >= s_.size()) return Error("unterminated string");
      const unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return Status::OK();
      }
      if (c < 0x20) return Error("control character in a string (escape it)");
      if (c == '\\') {
        if (pos_ + 1 >= s_.size()) return Error("unterminated string");
        const char e = s_[pos_ + 1];
        pos_ += 2;
        switch (e) {
          case '"':
            out->push_back('"');
            break;
          case '\\':
            out->push_back('\\');
            break;
          case '/':
            out->push_back('/');
            break;
          case 'b':
            out->push_back('\b');
            break;
          case 'f':
            out->push_back('\f');
            break;
          case 'n':
            out->push_back('\n');
            break;
          case 'r':
            out->push_back('\r');
            break;
          case 't':
            out->push_back('\t');
            break;
          case 'u': {
            uint32_t cp;
            Status st = ParseHex4(&cp);
            if (!st.ok()) return st;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
              // A high surrogate must be followed by an escaped low surrogate.
              uint32_t low = 0;
              if (s_.substr(pos_, 2) == "\\u") {
                const size_t save = pos_;
                pos_ += 2;
                st = ParseHex4(&low);
                if (!st.ok()) return st;
                if (low >= 0xDC00 && low <= 0xDFFF) {
                  cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                } else {
                  pos_ = save;
                  cp = 0xFFFD;
                }
              } else {
                cp = 0xFFFD;
              }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
              cp = 0xFFFD;
            }
            AppendUtf8(cp, out);
            break;
          }
          default:
            --pos_;
            return Error("invalid escape '\\" + std::string(1, e) + "'");
        }
        continue;
      }
      const size_t len = Utf8SequenceLength(s_, pos_);
      if (len == 0) return Error("invalid UTF-8 in a string");
      out->append(s_.substr(pos_, len));
      pos_ += len;
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

bool JsonValue::is_integer_literal() const {
  return kind == Kind::kNumber && text.find_first_of(".eE") == std::string::npos;
}

const JsonValue* JsonValue::Find(std::string_view key) const {
  for (const auto& [k, v] : members) {
    if (k == key) return &v;
  }
  return nullptr;
}

const char* JsonKindName(JsonValue::Kind kind) {
  switch (kind) {
    case JsonValue::Kind::kNull:
      return "null";
    case JsonValue::Kind::kBool:
      return "bool";
    case JsonValue::Kind::kNumber:
      return "number";
    case JsonValue::Kind::kString:
      return "string";
    case JsonValue::Kind::kArray:
      return "array";
    case JsonValue::Kind::kObject:
      return "object";
  }
  return "?";
}

Result<JsonValue> ParseJson(std::string_view text) {
  return Parser(text).ParseDocument();
}

void AppendJsonString(std::string_view s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t len = Utf8SequenceLength(s, i);
      if (len == 0) {
        out->append("\\ufffd");
        ++i;
      } else {
        out->append(s.substr(i, len));
        i += len;
      }
      continue;
    }
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20) {
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 0xF]);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out->push_back('"');
}

std::string JsonQuote(std::string_view s) {
  std::string out;
  AppendJsonString(s, &out);
  return out;
}

size_t FindInvalidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const size_t len = Utf8SequenceLength(s, i);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

bool IsValidUtf8(std::string_view s) {
  return FindInvalidUtf8(s) == std::string_view::npos;
}

namespace {
void AppendJsonText(const JsonValue& v, std::string* out) {
  switch (v.kind) {
    case JsonValue::Kind::kNull:
      out->append("null");
      break;
    case JsonValue::Kind::kBool:
      out->append(v.boolean ? "true" : "false");
      break;
    case JsonValue::Kind::kNumber:
      out->append(v.text);
      break;
    case JsonValue::Kind::kString:
      AppendJsonString(v.text, out);
      break;
    case JsonValue::Kind::kArray:
      out->push_back('[');
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJsonText(v.items[i], out);
      }
      out->push_back(']');
      break;
    case JsonValue::Kind::kObject:
      out->push_back('{');
      for (size_t i = 0; i < v.members.size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJsonString(v.members[i].first, out);
        out->push_back(':');
        AppendJsonText(v.members[i].second, out);
      }
      out->push_back('}');
      break;
  }
}
}  // namespace

std::string ToJsonText(const JsonValue& v) {
  std::string out;
  AppendJsonText(v, &out);
  return out;
}

}  // namespace lance::cli

// SPDX-License-Identifier: Apache-2.0
#include "lib/json.h"

#include <iterator>
#include <nlohmann/json.hpp>
#include <utility>

namespace lance::cli {

JsonValue::JsonValue() = default;
JsonValue::~JsonValue() = default;
JsonValue::JsonValue(const JsonValue&) = default;
JsonValue::JsonValue(JsonValue&&) noexcept = default;
JsonValue& JsonValue::operator=(const JsonValue&) = default;
JsonValue& JsonValue::operator=(JsonValue&&) noexcept = default;

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

constexpr int kMaxDepth = 256;

// Builds a JsonValue tree from nlohmann's SAX events. The DOM (nlohmann::json) would do,
// but it sorts object members and turns numbers into doubles; the importer needs members
// in source order (duplicates included, to report them) and each number's exact text so
// that int64, uint64 and float32 values convert without a detour through double.
class TreeBuilder final : public nlohmann::json_sax<nlohmann::json> {
 public:
  using Json = nlohmann::json;

  explicit TreeBuilder(JsonValue* root) : root_(root) {}

  bool null() override { return Put(JsonValue{}); }
  bool boolean(bool value) override {
    JsonValue v;
    v.kind = JsonValue::Kind::kBool;
    v.boolean = value;
    return Put(std::move(v));
  }
  // nlohmann reports non-negative integers as unsigned and negative ones as signed, so a
  // signed zero can only be "-0" (kept: it is a negative zero for a float column).
  bool number_integer(Json::number_integer_t value) override {
    return PutNumber(value == 0 ? std::string("-0") : std::to_string(value));
  }
  bool number_unsigned(Json::number_unsigned_t value) override {
    return PutNumber(std::to_string(value));
  }
  // `text` is the number as written (the C locale's '.' is kept: the CLI never calls
  // setlocale); integers too large for 64 bits arrive here too, still as written.
  bool number_float(Json::number_float_t, const Json::string_t& text) override {
    return PutNumber(text);
  }
  bool string(Json::string_t& value) override {
    JsonValue v;
    v.kind = JsonValue::Kind::kString;
    v.text = std::move(value);
    return Put(std::move(v));
  }
  bool binary(Json::binary_t&) override { return false; }  // not produced by JSON text
  bool start_object(std::size_t) override { return Open(JsonValue::Kind::kObject); }
  bool key(Json::string_t& name) override {
    key_ = std::move(name);
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(JsonValue::Kind::kArray); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& error) override {
    error_ = Status::Invalid("invalid JSON at column ", position, ": ",
                             Describe(error.what()));
    return false;
  }

  Status status() const { return error_; }

 private:
  // nlohmann's message without its "[json.exception.parse_error.101] parse error at line
  // 1, column 9: " prefix (the column is in our own prefix).
  static std::string Describe(std::string_view what) {
    const size_t colon = what.find(": ");
    if (what.rfind("[json.exception.", 0) == 0 && colon != std::string_view::npos) {
      what.remove_prefix(colon + 2);
    }
    return std::string(what);
  }

  bool PutNumber(std::string text) {
    JsonValue v;
    v.kind = JsonValue::Kind::kNumber;
    v.text = std::move(text);
    return Put(std::move(v));
  }

  // Places a finished value: into the open container, or as the document itself.
  bool Put(JsonValue v) {
    if (open_.empty()) {
      *root_ = std::move(v);
      return true;
    }
    JsonValue* parent = open_.back();
    if (parent->is_object()) {
      parent->members.emplace_back(std::move(key_), std::move(v));
    } else {
      parent->items.push_back(std::move(v));
    }
    return true;
  }

  // Containers are placed first and filled in place, so the pointers in `open_` point
  // into their parents' vectors; only the innermost open container grows, so none moves
  // while it is open.
  bool Open(JsonValue::Kind kind) {
    if (static_cast<int>(open_.size()) >= kMaxDepth) {
      error_ =
          Status::Invalid("invalid JSON: nesting is deeper than ", kMaxDepth, " levels");
      return false;
    }
    JsonValue v;
    v.kind = kind;
    JsonValue* placed;
    if (open_.empty()) {
      *root_ = std::move(v);
      placed = root_;
    } else if (JsonValue* parent = open_.back(); parent->is_object()) {
      placed = &parent->members.emplace_back(std::move(key_), std::move(v)).second;
    } else {
      placed = &parent->items.emplace_back(std::move(v));
    }
    open_.push_back(placed);
    return true;
  }

  bool Close() {
    open_.pop_back();
    return true;
  }

  JsonValue* root_;
  std::vector<JsonValue*> open_;
  std::string key_;
  Status error_;
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
  // Indexed by Kind, in its declaration order.
  static constexpr const char* kNames[] = {"null",   "bool",  "number",
                                           "string", "array", "object"};
  static_assert(std::size(kNames) == static_cast<size_t>(JsonValue::Kind::kObject) + 1);
  const auto i = static_cast<size_t>(kind);
  return i < std::size(kNames) ? kNames[i] : "?";
}

Result<JsonValue> ParseJson(std::string_view text) {
  JsonValue root;
  TreeBuilder builder(&root);
  // Strict: no comments; a parse stops at the first error the builder reports.
  const bool ok = nlohmann::json::sax_parse(text.begin(), text.end(), &builder,
                                            nlohmann::json::input_format_t::json,
                                            /*strict=*/true, /*ignore_comments=*/false);
  if (!ok) {
    Status st = builder.status();
    return st.ok() ? Status::Invalid("invalid JSON") : st;
  }
  return root;
}

void AppendJsonString(std::string_view s, std::string* out) {
  // nlohmann escapes each run of well-formed UTF-8; the bytes between runs become the
  // escape \ufffd one by one (nlohmann's own replacement writes raw U+FFFD bytes, or
  // escapes every non-ASCII character, neither of which is the documented output).
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    size_t end = i;
    while (end < s.size()) {
      const size_t len = Utf8SequenceLength(s, end);
      if (len == 0) break;
      end += len;
    }
    if (end > i) {
      const std::string quoted = nlohmann::json(std::string(s.substr(i, end - i))).dump();
      out->append(quoted, 1, quoted.size() - 2);
    }
    if (end < s.size()) {
      out->append("\\ufffd");
      ++end;
    }
    i = end;
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

std::string DumpJson(const JsonDoc& doc) {
  std::string out;
  // Recursion depth is the document's, which the CLI builds itself (a few levels).
  auto append = [&out](const JsonDoc& v, const auto& self) -> void {
    if (v.is_object()) {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, member] : v.items()) {
        if (!first) out.push_back(',');
        first = false;
        AppendJsonString(key, &out);
        out.push_back(':');
        self(member, self);
      }
      out.push_back('}');
    } else if (v.is_array()) {
      out.push_back('[');
      for (size_t i = 0; i < v.size(); ++i) {
        if (i > 0) out.push_back(',');
        self(v[i], self);
      }
      out.push_back(']');
    } else if (v.is_string()) {
      AppendJsonString(v.get_ref<const std::string&>(), &out);
    } else {
      out.append(v.dump());
    }
  };
  append(doc, append);
  return out;
}

std::string ToJsonText(const JsonValue& v) {
  std::string out;
  AppendJsonText(v, &out);
  return out;
}

}  // namespace lance::cli

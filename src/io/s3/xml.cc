// SPDX-License-Identifier: Apache-2.0
// A small recursive-descent XML parser for S3 bodies (see xml.h). It trusts nothing:
// every read is bounds-checked, nesting is limited, and errors report a byte offset
// only, never document content (bodies may echo keys the caller considers private).

#include "io/s3/xml.h"

#include <cstdint>
#include <string>

#include "lance/core/ascii.h"

namespace lance::io::s3 {

const XmlElement* XmlElement::Child(std::string_view child_name) const {
  for (const auto& c : children) {
    if (c.name == child_name) return &c;
  }
  return nullptr;
}

std::vector<const XmlElement*> XmlElement::Children(std::string_view child_name) const {
  std::vector<const XmlElement*> out;
  for (const auto& c : children) {
    if (c.name == child_name) out.push_back(&c);
  }
  return out;
}

std::string XmlElement::ChildText(std::string_view child_name) const {
  const XmlElement* c = Child(child_name);
  return c == nullptr ? std::string() : c->text;
}

namespace {

constexpr int kMaxDepth = 64;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Characters that end a name. XML names are more restricted than this, but S3 only
// sends ASCII tag names; anything odd is still rejected by the structure checks.
bool IsNameChar(char c) {
  return !IsSpace(c) && c != '<' && c != '>' && c != '/' && c != '=' && c != '&' &&
         c != '"' && c != '\'' && c != '?' && c != '!';
}

class Parser {
 public:
  explicit Parser(std::string_view doc) : doc_(doc) {}

  Result<XmlElement> ParseDocument() {
    // A UTF-8 byte order mark is legal before the declaration.
    if (doc_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    if (!SkipMisc(/*allow_declaration=*/true)) return error_;
    if (AtEnd()) return Fail("no root element");
    if (doc_[pos_] != '<') return Fail("text outside the root element");
    XmlElement root;
    if (!ParseElement(&root, 1)) return error_;
    if (!SkipMisc(/*allow_declaration=*/false)) return error_;
    if (!AtEnd()) return Fail("content after the root element");
    return root;
  }

 private:
  bool AtEnd() const { return pos_ >= doc_.size(); }
  bool StartsWith(std::string_view s) const { return doc_.substr(pos_, s.size()) == s; }

  Status Fail(std::string_view what) {
    error_ = Status::Invalid("malformed XML: " + std::string(what) + " at byte " +
                             std::to_string(pos_));
    return error_;
  }
  bool FailB(std::string_view what) {
    (void)Fail(what);
    return false;
  }

  void SkipSpace() {
    while (!AtEnd() && IsSpace(doc_[pos_])) ++pos_;
  }

  // Skips whitespace, comments and processing instructions (the XML declaration among
  // them, only where allowed). DOCTYPE is refused: S3 never sends one and DTDs are
  // where XML parsers get into trouble (entity expansion).
  bool SkipMisc(bool allow_declaration) {
    while (true) {
      SkipSpace();
      if (AtEnd()) return true;
      if (StartsWith("<!--")) {
        if (!SkipComment()) return false;
      } else if (StartsWith("<?")) {
        const bool is_decl = StartsWith("<?xml") && pos_ + 5 < doc_.size() &&
                             (IsSpace(doc_[pos_ + 5]) || doc_[pos_ + 5] == '?');
        if (is_decl && !allow_declaration) return FailB("misplaced XML declaration");
        if (!SkipPi()) return false;
      } else if (StartsWith("<!")) {
        return FailB("DOCTYPE or markup declaration not supported");
      } else {
        return true;
      }
      allow_declaration = false;
    }
  }

  bool SkipComment() {
    const size_t end = doc_.find("-->", pos_ + 4);
    if (end == std::string_view::npos) return FailB("unterminated comment");
    pos_ = end + 3;
    return true;
  }

  bool SkipPi() {
    const size_t end = doc_.find("?>", pos_ + 2);
    if (end == std::string_view::npos)
      return FailB("unterminated processing instruction");
    pos_ = end + 2;
    return true;
  }

  bool ParseName(std::string* name) {
    const size_t start = pos_;
    while (!AtEnd() && IsNameChar(doc_[pos_])) ++pos_;
    if (pos_ == start) return FailB("expected a name");
    name->assign(doc_.substr(start, pos_ - start));
    return true;
  }

  // Decodes the reference starting at '&' and appends it to `out`.
  bool ParseReference(std::string* out) {
    const size_t semi = doc_.find(';', pos_);
    if (semi == std::string_view::npos || semi - pos_ > 12) {
      return FailB("unterminated entity reference");
    }
    const std::string_view ref = doc_.substr(pos_ + 1, semi - pos_ - 1);
    if (ref == "lt") {
      out->push_back('<');
    } else if (ref == "gt") {
      out->push_back('>');
    } else if (ref == "amp") {
      out->push_back('&');
    } else if (ref == "quot") {
      out->push_back('"');
    } else if (ref == "apos") {
      out->push_back('\'');
    } else if (ref.size() >= 2 && ref[0] == '#') {
      const bool hex = ref[1] == 'x';
      const std::string_view digits = ref.substr(hex ? 2 : 1);
      if (digits.empty()) return FailB("empty character reference");
      uint32_t cp = 0;
      for (char c : digits) {
        int v;
        if (c >= '0' && c <= '9') {
          v = c - '0';
        } else if (hex && c >= 'a' && c <= 'f') {
          v = c - 'a' + 10;
        } else if (hex && c >= 'A' && c <= 'F') {
          v = c - 'A' + 10;
        } else {
          return FailB("bad character reference");
        }
        cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(v);
        if (cp > 0x10FFFF) return FailB("character reference out of range");
      }
      if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return FailB("character reference to an invalid code point");
      }
      AppendUtf8(cp, out);
    } else {
      return FailB("unknown entity");
    }
    pos_ = semi + 1;
    return true;
  }

  bool ParseAttributes(XmlElement* element, bool* self_closing) {
    while (true) {
      const size_t before = pos_;
      SkipSpace();
      if (AtEnd()) return FailB("unterminated start tag");
      if (doc_[pos_] == '>') {
        ++pos_;
        *self_closing = false;
        return true;
      }
      if (StartsWith("/>")) {
        pos_ += 2;
        *self_closing = true;
        return true;
      }
      if (pos_ == before) return FailB("expected whitespace before an attribute");
      std::string name;
      if (!ParseName(&name)) return false;
      SkipSpace();
      if (AtEnd() || doc_[pos_] != '=') return FailB("expected '=' after attribute name");
      ++pos_;
      SkipSpace();
      if (AtEnd() || (doc_[pos_] != '"' && doc_[pos_] != '\'')) {
        return FailB("expected a quoted attribute value");
      }
      const char quote = doc_[pos_++];
      std::string value;
      while (true) {
        if (AtEnd()) return FailB("unterminated attribute value");
        const char c = doc_[pos_];
        if (c == quote) {
          ++pos_;
          break;
        }
        if (c == '<') return FailB("'<' in attribute value");
        if (c == '&') {
          if (!ParseReference(&value)) return false;
        } else {
          value.push_back(c);
          ++pos_;
        }
      }
      element->attributes.emplace_back(std::move(name), std::move(value));
    }
  }

  // Parses an element starting at '<'.
  bool ParseElement(XmlElement* element, int depth) {
    if (depth > kMaxDepth) return FailB("elements nested too deeply");
    ++pos_;  // '<'
    if (!ParseName(&element->name)) return false;
    bool self_closing = false;
    if (!ParseAttributes(element, &self_closing)) return false;
    if (self_closing) return true;
    while (true) {
      if (AtEnd()) return FailB("unterminated element");
      const char c = doc_[pos_];
      if (c == '<') {
        if (StartsWith("</")) {
          pos_ += 2;
          std::string end_name;
          if (!ParseName(&end_name)) return false;
          if (end_name != element->name) return FailB("mismatched end tag");
          SkipSpace();
          if (AtEnd() || doc_[pos_] != '>') return FailB("unterminated end tag");
          ++pos_;
          return true;
        }
        if (StartsWith("<!--")) {
          if (!SkipComment()) return false;
        } else if (StartsWith("<![CDATA[")) {
          const size_t end = doc_.find("]]>", pos_ + 9);
          if (end == std::string_view::npos) return FailB("unterminated CDATA section");
          element->text.append(doc_.substr(pos_ + 9, end - pos_ - 9));
          pos_ = end + 3;
        } else if (StartsWith("<?")) {
          if (!SkipPi()) return false;
        } else if (StartsWith("<!")) {
          return FailB("markup declaration inside an element");
        } else {
          element->children.emplace_back();
          if (!ParseElement(&element->children.back(), depth + 1)) return false;
        }
      } else if (c == '&') {
        if (!ParseReference(&element->text)) return false;
      } else {
        // Plain text up to the next markup character, in one append.
        size_t end = pos_;
        while (end < doc_.size() && doc_[end] != '<' && doc_[end] != '&') ++end;
        element->text.append(doc_.substr(pos_, end - pos_));
        pos_ = end;
      }
    }
  }

  std::string_view doc_;
  size_t pos_ = 0;
  Status error_;
};

}  // namespace

Result<XmlElement> ParseXml(std::string_view document) {
  Parser parser(document);
  return parser.ParseDocument();
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // Control characters other than tab/CR/LF are not representable in XML 1.0
        // text even as references; S3 keys may contain them, so encode as a numeric
        // reference (S3 accepts XML 1.0 references for them in practice, e.g. &#x1;)
        // rather than emit raw bytes that a strict parser would refuse.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          static const char kHex[] = "0123456789ABCDEF";
          out += "&#x";
          out.push_back(kHex[(static_cast<unsigned char>(c) >> 4) & 0xF]);
          out.push_back(kHex[static_cast<unsigned char>(c) & 0xF]);
          out.push_back(';');
        } else if (c == '\r' || c == '\n' || c == '\t') {
          // Preserve them exactly: raw CR/LF would be normalised by the receiver.
          out += c == '\r' ? "&#xD;" : (c == '\n' ? "&#xA;" : "&#x9;");
        } else {
          out.push_back(c);
        }
    }
  }
  return out;
}

}  // namespace lance::io::s3

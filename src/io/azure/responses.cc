// SPDX-License-Identifier: Apache-2.0
// Blob service bodies (see responses.h). Pure functions, tested offline.

#include "io/azure/responses.h"

#include <optional>

#include "io/azure/shared_key.h"
#include "io/s3/xml.h"
#include "lance/core/text.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io::azure {

namespace {

using s3::XmlElement;

std::string FirstLine(std::string_view text) {
  text = TrimAscii(text);
  const size_t nl = text.find_first_of("\r\n");
  return std::string(TrimAscii(text.substr(0, nl)));
}

bool ParseSize(std::string_view text, int64_t* out) {
  text = TrimAscii(text);
  if (text.empty() || text.size() > 18) return false;
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

// The text of <Name>, decoded when the service marked it Encoded="true" (names with
// characters XML 1.0 cannot carry).
std::string NameOf(const XmlElement& parent) {
  const XmlElement* name = parent.Child("Name");
  if (name == nullptr) return "";
  for (const auto& [attr, value] : name->attributes) {
    if (attr == "Encoded" && value == "true") return UrlDecode(name->text);
  }
  return name->text;
}

// Drops quoted values longer than a word ('<the request's signature>'): they are long
// and of no use in a message.
std::string DropLongQuotes(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t close =
        text[i] == '\'' ? text.find('\'', i + 1) : std::string_view::npos;
    if (close != std::string_view::npos && close - i > 24) {
      out += "'...'";
      i = close + 1;
      continue;
    }
    out.push_back(text[i++]);
  }
  return out;
}

}  // namespace

Result<ListBlobsPage> ParseListBlobs(std::string_view body) {
  Result<XmlElement> parsed = s3::ParseXml(body);
  if (!parsed.ok()) {
    return Status::IOError(
        StrCat("the List Blobs answer is not XML: ", parsed.status().message()));
  }
  if (parsed->name != "EnumerationResults") {
    return Status::IOError("the List Blobs answer is not an EnumerationResults");
  }
  ListBlobsPage page;
  page.next_marker = parsed->ChildText("NextMarker");
  const XmlElement* blobs = parsed->Child("Blobs");
  if (blobs == nullptr) return page;
  for (const XmlElement& child : blobs->children) {
    if (child.name == "BlobPrefix") {
      page.prefixes.push_back(NameOf(child));
      continue;
    }
    if (child.name != "Blob") continue;
    BlobEntry entry;
    entry.name = NameOf(child);
    if (const XmlElement* props = child.Child("Properties")) {
      if (!ParseSize(props->ChildText("Content-Length"), &entry.size)) {
        return Status::IOError(
            StrCat("the List Blobs answer has no valid size for '", entry.name, "'"));
      }
      entry.last_modified_ms = ParseRfc1123Millis(props->ChildText("Last-Modified"));
      entry.etag = props->ChildText("Etag");
    }
    page.blobs.push_back(std::move(entry));
  }
  return page;
}

std::optional<AzureError> ParseErrorBody(std::string_view body, int http_status) {
  // Azure prefixes the document with a byte-order mark.
  if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);
  Result<XmlElement> parsed = s3::ParseXml(body);
  if (!parsed.ok() || parsed->name != "Error") return std::nullopt;
  AzureError e;
  e.http_status = http_status;
  e.code = parsed->ChildText("Code");
  e.message = FirstLine(parsed->ChildText("Message"));
  std::string detail = FirstLine(parsed->ChildText("AuthenticationErrorDetail"));
  // Signature mismatches quote the string the server signed: no use in a message.
  if (const size_t cut = detail.find("tring to sign"); cut != std::string::npos) {
    detail = std::string(TrimAscii(detail.substr(0, detail.rfind('.', cut) + 1)));
  }
  detail = DropLongQuotes(detail);
  if (detail.size() > 300) detail = detail.substr(0, 300) + "...";
  if (!detail.empty()) StrAppend(&e.message, e.message.empty() ? "" : " ", detail);
  e.message = RedactSas(e.message);
  return e;
}

Result<UserDelegationKey> ParseUserDelegationKey(std::string_view body) {
  if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);
  Result<XmlElement> parsed = s3::ParseXml(body);
  if (!parsed.ok() || parsed->name != "UserDelegationKey") {
    return Status::IOError(
        "the Get User Delegation Key answer is not a UserDelegationKey");
  }
  UserDelegationKey key;
  key.signed_oid = parsed->ChildText("SignedOid");
  key.signed_tid = parsed->ChildText("SignedTid");
  key.signed_start = parsed->ChildText("SignedStart");
  key.signed_expiry = parsed->ChildText("SignedExpiry");
  key.signed_service = parsed->ChildText("SignedService");
  key.signed_version = parsed->ChildText("SignedVersion");
  key.value = parsed->ChildText("Value");
  if (key.value.empty() || key.signed_expiry.empty()) {
    return Status::IOError("the Get User Delegation Key answer has no key or expiry");
  }
  return key;
}

std::string KeyInfoXml(std::string_view start, std::string_view expiry) {
  return StrCat("<?xml version=\"1.0\" encoding=\"utf-8\"?><KeyInfo><Start>",
                s3::XmlEscape(start), "</Start><Expiry>", s3::XmlEscape(expiry),
                "</Expiry></KeyInfo>");
}

std::string BlockListXml(const std::vector<std::string>& block_ids) {
  std::string out = "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>";
  for (const std::string& id : block_ids) {
    StrAppend(&out, "<Latest>", s3::XmlEscape(id), "</Latest>");
  }
  out += "</BlockList>";
  return out;
}

}  // namespace lance::io::azure

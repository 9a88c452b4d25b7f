// SPDX-License-Identifier: Apache-2.0
// S3 and STS answers, as the clients parse them. Byte 0 (mod 8) picks: ListObjectsV2,
// an error body (with the HTTP status of byte 1), DeleteObjects results, the multipart
// answers (Initiate / Complete / CopyObject, read as s3_client.cc does), an STS
// AssumeRole answer (200 or error), the Content-Range / date header parsers, URL
// decoding, or the XML parser alone; the rest is the body.
#include <string>

#include "fuzz/fuzz_entries.h"
#include "io/s3/responses.h"
#include "io/s3/xml.h"
#include "lance/io/s3/sts_client.h"

namespace lance::fuzz {

namespace s3 = lance::io::s3;
namespace s3i = lance::io::s3::internal;

Status FuzzS3Xml(std::string_view data) {
  if (data.size() < 2) return Status::Invalid("input too short");
  const uint8_t mode = static_cast<uint8_t>(data[0]);
  const int http_status = 200 + (static_cast<uint8_t>(data[1]) % 4) * 100;
  const std::string_view body = data.substr(2);
  switch (mode % 8) {
    case 0: {
      auto list = s3i::ParseListObjectsV2(body);
      return list.status();
    }
    case 1: {
      auto err = s3i::ParseErrorBody(body, http_status);
      return err ? Status::IOError("S3 error " + err->code) : Status::OK();
    }
    case 2:
      return s3i::ParseDeleteResult(body).status();
    case 3: {
      auto doc = s3::ParseXml(body);
      if (!doc.ok()) return doc.status();
      // CreateMultipartUpload, CompleteMultipartUpload (error in a 200), CopyObject.
      (void)doc->ChildText("UploadId");
      (void)doc->Children("Part");
      (void)s3i::ParseErrorBody(body, 200);
      return doc->name == "InitiateMultipartUploadResult"
                 ? Status::OK()
                 : Status::IOError("not initiate");
    }
    case 4: {
      auto creds =
          s3::ParseAssumeRoleResponse(http_status, body, "req-1", "fuzz AssumeRole");
      return creds.status();
    }
    case 5: {
      (void)s3i::ParseContentRange(body);
      (void)s3i::ParseHttpDateMs(body);
      (void)s3i::ParseIso8601Ms(body);
      int64_t v = 0;
      (void)s3i::ParseInt64(body, &v);
      return s3::ParseIso8601Millis(body).status();
    }
    case 6:
      return s3i::UrlDecode(body, (mode & 8) != 0).status();
    default: {
      auto doc = s3::ParseXml(body);
      if (!doc.ok()) return doc.status();
      // Escaping any text the parser produced and parsing it again gives the same text
      // (for the characters XML 1.0 allows: XmlEscape does not encode control bytes).
      for (char c : doc->text) {
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          return Status::OK();
        }
      }
      std::string wrapped = "<a>" + s3::XmlEscape(doc->text) + "</a>";
      auto again = s3::ParseXml(wrapped);
      FUZZ_CHECK(again.ok() && again->text == doc->text, "XmlEscape does not round-trip");
      return Status::OK();
    }
  }
}

}  // namespace lance::fuzz

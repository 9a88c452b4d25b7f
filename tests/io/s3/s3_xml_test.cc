// SPDX-License-Identifier: Apache-2.0
// The S3 XML reader on real response documents (as AWS and RGW send them) and on
// malformed input: truncation at every offset, mutations, deep nesting.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "io/s3/endpoint.h"
#include "io/s3/errors.h"
#include "io/s3/responses.h"
#include "io/s3/xml.h"
#include "tests/testing/matchers.h"

namespace lance::io::s3 {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)

// As RGW sends it (EncodingType url, keys percent-encoded, '+' for space).
constexpr std::string_view kListDoc =
    R"(<?xml version="1.0" encoding="UTF-8"?>)"
    R"(<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">)"
    "<EncodingType>url</EncodingType><Name>lance-test</Name><Prefix>p%2F</Prefix>"
    "<MaxKeys>2</MaxKeys><Delimiter>%2F</Delimiter><IsTruncated>true</IsTruncated>"
    "<Contents><Key>p%2Fa+b%2Bc%25d%C3%A9</Key><LastModified>2026-11-30T10:16:22.123Z"
    "</LastModified><ETag>&quot;0cc175b9c0f1b6a831c399e269772661&quot;</ETag>"
    "<Size>42</Size><StorageClass>STANDARD</StorageClass></Contents>"
    "<CommonPrefixes><Prefix>p%2Fdir%2F</Prefix></CommonPrefixes>"
    "<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</"
    "NextContinuationToken>"
    "<KeyCount>2</KeyCount></ListBucketResult>";

constexpr std::string_view kErrorDoc =
    R"(<?xml version="1.0" encoding="UTF-8"?>)"
    "<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message>"
    "<Key>a&amp;b</Key><RequestId>tx000001-abc</RequestId><HostId>h</HostId></Error>";

TEST(S3XmlTest, ParsesListBucketResult) {
  ASSERT_OK_AND_ASSIGN(XmlElement root, ParseXml(kListDoc));
  EXPECT_EQ(root.name, "ListBucketResult");
  ASSERT_EQ(root.attributes.size(), 1u);
  EXPECT_EQ(root.attributes[0].first, "xmlns");
  EXPECT_EQ(root.ChildText("IsTruncated"), "true");
  EXPECT_EQ(root.Children("Contents").size(), 1u);
  EXPECT_EQ(root.Child("Contents")->ChildText("ETag"),
            "\"0cc175b9c0f1b6a831c399e269772661\"");
  EXPECT_EQ(root.ChildText("Missing"), "");
  EXPECT_EQ(root.Child("Missing"), nullptr);

  ASSERT_OK_AND_ASSIGN(auto list, internal::ParseListObjectsV2(kListDoc));
  ASSERT_EQ(list.objects.size(), 1u);
  EXPECT_EQ(list.objects[0].key, "p/a b+c%d\xC3\xA9");
  EXPECT_EQ(list.objects[0].size, 42);
  EXPECT_EQ(list.objects[0].last_modified_ms, 1796033782123);
  EXPECT_EQ(list.objects[0].etag, "\"0cc175b9c0f1b6a831c399e269772661\"");
  EXPECT_EQ(list.common_prefixes, std::vector<std::string>{"p/dir/"});
  // The token is opaque: never decoded.
  EXPECT_EQ(list.next_continuation_token,
            "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
}

TEST(S3XmlTest, ListWithoutEncodingTypeIsNotDecoded) {
  const std::string doc =
      "<ListBucketResult><IsTruncated>false</IsTruncated>"
      "<Contents><Key>a+b%20c</Key><Size>1</Size></Contents></ListBucketResult>";
  ASSERT_OK_AND_ASSIGN(auto list, internal::ParseListObjectsV2(doc));
  ASSERT_EQ(list.objects.size(), 1u);
  EXPECT_EQ(list.objects[0].key, "a+b%20c");
  EXPECT_TRUE(list.next_continuation_token.empty());
}

TEST(S3XmlTest, ListRejectsInconsistentDocuments) {
  EXPECT_THAT(
      internal::ParseListObjectsV2("<ListBucketResult><IsTruncated>true</IsTruncated>"
                                   "</ListBucketResult>"),
      IsErrorWith(StatusCode::kIOError, "continuation token"));
  EXPECT_THAT(
      internal::ParseListObjectsV2("<ListBucketResult><Contents><Key>a</Key>"
                                   "<Size>x1</Size></Contents></ListBucketResult>"),
      IsErrorWith(StatusCode::kIOError, "Size"));
  EXPECT_THAT(internal::ParseListObjectsV2("<ListBucketResult><Contents><Size>1</Size>"
                                           "</Contents></ListBucketResult>"),
              IsError(StatusCode::kIOError));
  EXPECT_THAT(internal::ParseListObjectsV2("<Error><Code>x</Code></Error>"),
              IsError(StatusCode::kIOError));
  EXPECT_THAT(
      internal::ParseListObjectsV2(
          "<ListBucketResult><EncodingType>url</EncodingType><Contents><Key>a%G1</Key>"
          "<Size>1</Size></Contents></ListBucketResult>"),
      IsError(StatusCode::kInvalid));
}

TEST(S3XmlTest, ParsesError) {
  auto err = internal::ParseErrorBody(kErrorDoc, 404);
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->http_status, 404);
  EXPECT_EQ(err->code, "NoSuchKey");
  EXPECT_EQ(err->message, "The specified key does not exist.");
  EXPECT_EQ(err->request_id, "tx000001-abc");
  // RGW: empty Message.
  err = internal::ParseErrorBody(
      "<?xml version=\"1.0\" "
      "encoding=\"UTF-8\"?><Error><Code>AccessDenied</Code><Message>"
      "</Message><RequestId>tx1</RequestId><HostId>1010-default-default</HostId></Error>",
      403);
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->code, "AccessDenied");
  EXPECT_EQ(err->message, "");
  EXPECT_FALSE(internal::ParseErrorBody("", 500).has_value());
  EXPECT_FALSE(internal::ParseErrorBody("<html>Bad Gateway</html>", 502).has_value());
  EXPECT_FALSE(internal::ParseErrorBody("<Error><Code>x</Code>", 500).has_value());
}

TEST(S3XmlTest, ParsesDeleteResult) {
  const std::string doc =
      R"(<?xml version="1.0" encoding="UTF-8"?>)"
      R"(<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">)"
      "<Deleted><Key>ok</Key></Deleted>"
      "<Error><Key>a&lt;b</Key><Code>AccessDenied</Code><Message>Access "
      "Denied</Message></Error>"
      "<Error><Key>gone</Key><Code>NoSuchKey</Code><Message></Message></Error>"
      "<Error><Key>c</Key><Code>InternalError</Code></Error></DeleteResult>";
  ASSERT_OK_AND_ASSIGN(auto failures, internal::ParseDeleteResult(doc));
  ASSERT_EQ(failures.size(), 2u);  // NoSuchKey counts as deleted
  EXPECT_EQ(failures[0].key, "a<b");
  EXPECT_EQ(failures[0].code, "AccessDenied");
  EXPECT_EQ(failures[0].message, "Access Denied");
  EXPECT_EQ(failures[1].code, "InternalError");
  ASSERT_OK_AND_ASSIGN(failures, internal::ParseDeleteResult("<DeleteResult/>"));
  EXPECT_TRUE(failures.empty());
  EXPECT_THAT(internal::ParseDeleteResult("<Error/>"), IsError(StatusCode::kIOError));
}

TEST(S3XmlTest, ParsesMultipartAndCopyResults) {
  ASSERT_OK_AND_ASSIGN(
      auto init,
      ParseXml(
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<InitiateMultipartUploadResult "
          "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Bucket>b</Bucket><Key>k</"
          "Key>"
          "<UploadId>2~abc-DEF_123</UploadId></InitiateMultipartUploadResult>"));
  EXPECT_EQ(init.ChildText("UploadId"), "2~abc-DEF_123");
  // RGW's CompleteMultipartUploadResult has an empty ETag.
  ASSERT_OK_AND_ASSIGN(auto complete,
                       ParseXml("<CompleteMultipartUploadResult><Location>l</Location>"
                                "<Bucket>b</Bucket><Key>k</Key><ETag></ETag>"
                                "</CompleteMultipartUploadResult>"));
  EXPECT_EQ(complete.ChildText("ETag"), "");
  ASSERT_NE(complete.Child("ETag"), nullptr);
  // RGW's CopyObjectResult ETag is unquoted.
  ASSERT_OK_AND_ASSIGN(auto copy,
                       ParseXml("<CopyObjectResult><LastModified>2026-01-01T00:00:00.000Z"
                                "</LastModified><ETag>abc</ETag></CopyObjectResult>"));
  EXPECT_EQ(copy.ChildText("ETag"), "abc");
  // A 200 answer that is an error.
  auto err = internal::ParseErrorBody(
      "\n\n<Error><Code>InternalError</Code><Message>We encountered an internal error."
      "</Message><RequestId>r</RequestId></Error>",
      200);
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->code, "InternalError");
}

TEST(S3XmlTest, EntitiesCdataCommentsAndCharacterReferences) {
  ASSERT_OK_AND_ASSIGN(
      auto root, ParseXml("<!-- lead --><?pi x?><r a='1&amp;2' b=\"&quot;q&quot;\">"
                          "x&lt;&gt;&amp;&quot;&apos;<!-- inner --><![CDATA[<raw>&amp;]]>"
                          "&#65;&#x42;&#xe9;&#x20AC;&#x1F40D;<c/><c>2</c><?inner "
                          "pi?></r><!-- trail -->"));
  EXPECT_EQ(root.text, "x<>&\"'<raw>&amp;AB\xC3\xA9\xE2\x82\xAC\xF0\x9F\x90\x8D");
  ASSERT_EQ(root.attributes.size(), 2u);
  EXPECT_EQ(root.attributes[0].second, "1&2");
  EXPECT_EQ(root.attributes[1].second, "\"q\"");
  EXPECT_EQ(root.Children("c").size(), 2u);
  EXPECT_EQ(root.Children("c")[1]->text, "2");
  // Whitespace is kept, not trimmed.
  ASSERT_OK_AND_ASSIGN(root, ParseXml("<a> x </a>"));
  EXPECT_EQ(root.text, " x ");
  // A byte order mark is fine.
  ASSERT_OK_AND_ASSIGN(root, ParseXml("\xEF\xBB\xBF<a/>"));
  EXPECT_EQ(root.name, "a");
}

TEST(S3XmlTest, RejectsMalformedDocuments) {
  for (const char* doc : {"",
                          "   ",
                          "text",
                          "<a>",
                          "<a></b>",
                          "<a><b></a></b>",
                          "<a/><b/>",
                          "<a/>junk",
                          "<a>&bogus;</a>",
                          "<a>&#0;</a>",
                          "<a>&#xD800;</a>",
                          "<a>&#x110000;</a>",
                          "<a>&#xZZ;</a>",
                          "<a>&#;</a>",
                          "<a>&amp</a>",
                          "<a b=1/>",
                          "<a b='1/>",
                          "<a b='<'/>",
                          "<a b/>",
                          "<a b='1'c='2'/>",
                          "<!DOCTYPE a [<!ENTITY x 'y'>]><a>&x;</a>",
                          "<a><!DOCTYPE x></a>",
                          "<a><!-- x</a>",
                          "<a><![CDATA[x</a>",
                          "<?xml version='1.0'",
                          "<a/><?xml version='1.0'?>",
                          "<a><? x</a>",
                          "< a/>",
                          "<a></ a>",
                          "</a>",
                          "<a><</a>",
                          "<>"}) {
    SCOPED_TRACE(doc);
    auto r = ParseXml(doc);
    EXPECT_THAT(r, IsErrorWith(StatusCode::kInvalid, "malformed XML"));
  }
}

TEST(S3XmlTest, ErrorMessagesDoNotQuoteTheDocument) {
  auto r = ParseXml("<Error><Code>SECRETVALUE</Code></Wrong>");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().find("SECRETVALUE"), std::string::npos);
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("at byte "));
}

TEST(S3XmlTest, DepthIsLimited) {
  std::string ok_doc, deep_doc;
  for (int i = 0; i < 64; ++i) ok_doc += "<a>";
  for (int i = 0; i < 64; ++i) ok_doc += "</a>";
  EXPECT_TRUE(ParseXml(ok_doc).ok());
  for (int i = 0; i < 100000; ++i) deep_doc += "<a>";
  EXPECT_THAT(ParseXml(deep_doc), IsErrorWith(StatusCode::kInvalid, "nested too deeply"));
}

TEST(S3XmlTest, TruncationAtEveryOffsetIsAnError) {
  for (std::string_view doc : {kListDoc, kErrorDoc}) {
    for (size_t n = 0; n < doc.size(); ++n) {
      auto r = ParseXml(doc.substr(0, n));
      ASSERT_FALSE(r.ok()) << "prefix of " << n << " bytes parsed";
      ASSERT_TRUE(r.status().IsInvalid());
      // The typed parsers fail cleanly too.
      ASSERT_FALSE(internal::ParseListObjectsV2(doc.substr(0, n)).ok());
      ASSERT_FALSE(internal::ParseDeleteResult(doc.substr(0, n)).ok());
    }
    EXPECT_TRUE(ParseXml(doc).ok());
  }
}

TEST(S3XmlTest, RandomMutationsNeverCrash) {
  std::mt19937 rng(42);
  const std::string alphabet = "<>/&;#x!?[]-='\" aZ0\x01\xff";
  int parsed = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string doc(kListDoc);
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t pos = rng() % doc.size();
      switch (rng() % 3) {
        case 0:
          doc[pos] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          doc.erase(pos, 1 + rng() % 8);
          break;
        default:
          doc.insert(pos, 1, alphabet[rng() % alphabet.size()]);
      }
      if (doc.empty()) doc = "<";
    }
    auto r = ParseXml(doc);
    if (r.ok()) {
      ++parsed;
      (void)internal::ParseListObjectsV2(doc);
    } else {
      ASSERT_TRUE(r.status().IsInvalid());
    }
  }
  // Some mutations (inside text) keep the document valid; most do not.
  EXPECT_GT(parsed, 0);
  EXPECT_LT(parsed, 20000);
}

TEST(S3XmlTest, EscapeRoundTrips) {
  const std::string raw = "a<b>&\"c'\td\r\ne\x01";
  const std::string escaped = XmlEscape(raw);
  EXPECT_EQ(escaped.find('<'), std::string::npos);
  EXPECT_EQ(escaped.find('\r'), std::string::npos);
  ASSERT_OK_AND_ASSIGN(auto root, ParseXml("<k>" + escaped + "</k>"));
  EXPECT_EQ(root.text, raw);
  ASSERT_OK_AND_ASSIGN(root, ParseXml("<k v=\"" + escaped + "\"/>"));
  EXPECT_EQ(root.attributes[0].second, raw);
  EXPECT_EQ(XmlEscape("plain/key \xC3\xA9"), "plain/key \xC3\xA9");
}

TEST(S3XmlTest, DeleteAndCompleteBodiesAreWellFormed) {
  std::vector<std::string> keys = {"a&b", "<c>", "d"};
  const std::string body = internal::BuildDeleteBody(keys, 0, 2);
  ASSERT_OK_AND_ASSIGN(auto root, ParseXml(body));
  EXPECT_EQ(root.name, "Delete");
  EXPECT_EQ(root.ChildText("Quiet"), "true");
  auto objects = root.Children("Object");
  ASSERT_EQ(objects.size(), 2u);
  EXPECT_EQ(objects[0]->ChildText("Key"), "a&b");
  EXPECT_EQ(objects[1]->ChildText("Key"), "<c>");
  const std::string complete = internal::BuildCompleteBody({"\"e1\"", "\"e2\""});
  ASSERT_OK_AND_ASSIGN(root, ParseXml(complete));
  auto parts = root.Children("Part");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1]->ChildText("PartNumber"), "2");
  EXPECT_EQ(parts[1]->ChildText("ETag"), "\"e2\"");
}

}  // namespace
}  // namespace lance::io::s3

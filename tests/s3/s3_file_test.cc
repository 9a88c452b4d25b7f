// SPDX-License-Identifier: Apache-2.0
// LanceFileWriter / LanceFileReader on S3 (the real RGW of the tests): round trips of
// several column types, a file large enough to be uploaded in parts, opens with a known
// size that skip the HEAD, and the failure cases (missing file, wrong size, abort).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "io/s3/s3_client.h"
#include "lance/core/builder.h"
#include "lance/format/file_reader.h"
#include "lance/format/file_writer.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/s3_object_store.h"
#include "tests/s3/s3_fixture.h"
#include "tests/testing/counting_store.h"
#include "tests/testing/matchers.h"

// format_test_util.h names the format tests' data directories; nothing here reads them.
#ifndef LANCE_TEST_DATA_DIR
#define LANCE_TEST_DATA_DIR ""
#endif
#ifndef LANCE_FORMAT_TEST_DIR
#define LANCE_FORMAT_TEST_DIR ""
#endif
#ifndef LANCE_DEFAULT_PYTHON
#define LANCE_DEFAULT_PYTHON "python3"
#endif
#include "tests/format/format_test_util.h"

namespace lance::format {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using ::lance::format::testing::RandomBatch;

using CountingStore = ::lance::testing::OpenCountingStore;

class S3FileTest : public ::lance::testing::S3EnvTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(S3EnvTest::SetUp());
    ASSERT_NO_FATAL_FAILURE(Resolve(env_.Options()));
  }

  void TearDown() override {
    if (store_ != nullptr) {
      Status st = store_->DeletePrefix(prefix_ + "/");
      EXPECT_TRUE(st.ok()) << "cleaning up " << root_uri_ << ": " << st;
    }
  }

  // A unique location, and the (registry-shared) store holding it, for `options`.
  void Resolve(const io::StorageOptions& options) {
    if (store_ != nullptr) ASSERT_OK(store_->DeletePrefix(prefix_ + "/"));
    root_uri_ = env_.UniqueUri("files");
    ASSERT_OK_AND_ASSIGN(auto loc, io::ResolveObjectStore(root_uri_, options));
    store_ = loc.store;
    prefix_ = loc.path;
    s3_ = dynamic_cast<io::S3ObjectStore*>(store_.get());
    ASSERT_NE(s3_, nullptr) << store_->ToString();
  }

  std::string Key(const std::string& name) const { return prefix_ + "/" + name; }
  int64_t Requests() const { return s3_->client()->stats().requests.load(); }

  Result<WrittenFile> Write(const std::string& key, const SchemaPtr& schema,
                            const std::vector<RecordBatchPtr>& batches) {
    LANCE_ASSIGN_OR_RAISE(LanceSchema ls, LanceSchema::Assign(schema));
    LANCE_ASSIGN_OR_RAISE(auto writer, LanceFileWriter::Open(store_, key, ls));
    for (const auto& b : batches) LANCE_RETURN_NOT_OK(writer->WriteBatch(*b));
    return writer->Close();
  }

  static void ExpectTablesEqual(const Table& actual, const Table& expected) {
    ASSERT_EQ(actual.num_rows(), expected.num_rows());
    ASSERT_OK_AND_ASSIGN(auto a, actual.CombineBatches());
    ASSERT_OK_AND_ASSIGN(auto e, expected.CombineBatches());
    ASSERT_EQ(a->num_columns(), e->num_columns());
    for (int c = 0; c < e->num_columns(); ++c) {
      EXPECT_TRUE(a->column(c)->Equals(*e->column(c)))
          << "column " << e->schema()->field(c)->ToString();
    }
  }

  std::string root_uri_;
  std::shared_ptr<io::ObjectStore> store_;
  io::S3ObjectStore* s3_ = nullptr;
  std::string prefix_;
};

SchemaPtr MixedSchema() {
  return schema({
      field("i32", int32()),
      field("i64", int64(), false),
      field("f64", float64()),
      field("flag", boolean()),
      field("s", utf8()),
      field("b", binary()),
      field("li", list(int64())),
      field("v", fixed_size_list(float32(), 3)),
      field("st", struct_({field("x", int32()), field("y", utf8())})),
  });
}

TEST_F(S3FileTest, RoundTripOfSeveralColumnTypes) {
  const SchemaPtr s = MixedSchema();
  std::vector<RecordBatchPtr> batches;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(s, 2000, seed));
    batches.push_back(batch);
  }
  ASSERT_OK_AND_ASSIGN(auto written, Write(Key("mixed.lance"), s, batches));
  EXPECT_EQ(written.num_rows, 6000);
  ASSERT_OK_AND_ASSIGN(auto meta, store_->Head(Key("mixed.lance")));
  EXPECT_EQ(meta.size, written.size_bytes);

  ASSERT_OK_AND_ASSIGN(auto expected, Table::Make(s, batches));
  FileReaderOptions ro;
  ro.file_size = written.size_bytes;
  ASSERT_OK_AND_ASSIGN(auto reader,
                       LanceFileReader::Open(store_, Key("mixed.lance"), ro));
  EXPECT_EQ(reader->num_rows(), 6000);
  EXPECT_TRUE(reader->schema().schema()->Equals(*s));
  ASSERT_OK_AND_ASSIGN(auto all, reader->ReadTable());
  ExpectTablesEqual(*all, *expected);

  // A projection of a row range crossing batch boundaries.
  FileReadOptions part;
  part.field_ids = {reader->schema().SubtreeIds(4)[0], reader->schema().SubtreeIds(1)[0]};
  part.offset = 1500;
  part.length = 1000;
  part.batch_size = 333;
  ASSERT_OK_AND_ASSIGN(auto some, reader->ReadTable(part));
  ASSERT_OK_AND_ASSIGN(auto e, expected->CombineBatches());
  ASSERT_OK_AND_ASSIGN(auto a, some->CombineBatches());
  ASSERT_EQ(a->num_rows(), 1000);
  EXPECT_TRUE(a->column(0)->Equals(*e->column(4)->Slice(1500, 1000)));
  EXPECT_TRUE(a->column(1)->Equals(*e->column(1)->Slice(1500, 1000)));
}

// 5 MiB parts: a ~24 MB file is uploaded as a multipart object and reads back equal,
// also in ranges (parallel ranged GETs above the read chunk size).
TEST_F(S3FileTest, LargeFileIsUploadedInPartsAndReadsBackEqual) {
  io::StorageOptions options = env_.Options();
  options["lance_cpp_multipart_part_size"] = "5242880";
  options["lance_cpp_read_chunk_size"] = "1048576";
  ASSERT_NO_FATAL_FAILURE(Resolve(options));
  EXPECT_EQ(s3_->client()->options().multipart_part_size, 5242880);

  const SchemaPtr s = schema({field("id", int64(), false), field("blob", binary())});
  std::vector<RecordBatchPtr> batches;
  constexpr int64_t kBatchRows = 1000;
  constexpr int kBatches = 24;
  for (int b = 0; b < kBatches; ++b) {
    Int64Builder ids;
    BinaryBuilder blobs;
    std::mt19937_64 rng(b);
    for (int64_t i = 0; i < kBatchRows; ++i) {
      ASSERT_OK(ids.Append(b * kBatchRows + i));
      std::string blob(1000, '\0');
      for (char& c : blob) c = static_cast<char>(rng());
      ASSERT_OK(blobs.Append(blob));
    }
    ASSERT_OK_AND_ASSIGN(auto id_arr, ids.Finish());
    ASSERT_OK_AND_ASSIGN(auto blob_arr, blobs.Finish());
    ASSERT_OK_AND_ASSIGN(auto batch,
                         RecordBatch::Make(s, kBatchRows, {id_arr, blob_arr}));
    batches.push_back(batch);
  }
  ASSERT_OK_AND_ASSIGN(auto written, Write(Key("large.lance"), s, batches));
  EXPECT_GT(written.size_bytes, 24'000'000);

  ASSERT_OK_AND_ASSIGN(auto info, s3_->client()->HeadObject(Key("large.lance")));
  EXPECT_EQ(info.size, written.size_bytes);
  const size_t dash = info.etag.rfind('-');
  ASSERT_NE(dash, std::string::npos) << "not a multipart object: ETag " << info.etag;
  EXPECT_EQ(std::stoi(info.etag.substr(dash + 1)),
            static_cast<int>((info.size + 5242880 - 1) / 5242880))
      << info.etag;

  ASSERT_OK_AND_ASSIGN(auto expected, Table::Make(s, batches));
  FileReaderOptions ro;
  ro.file_size = written.size_bytes;
  ASSERT_OK_AND_ASSIGN(auto reader,
                       LanceFileReader::Open(store_, Key("large.lance"), ro));
  ASSERT_OK_AND_ASSIGN(auto all, reader->ReadTable());
  ExpectTablesEqual(*all, *expected);
  FileReadOptions range;
  range.offset = 11'111;
  range.length = 5'000;
  ASSERT_OK_AND_ASSIGN(auto middle, reader->ReadTable(range));
  ASSERT_OK_AND_ASSIGN(auto e, expected->CombineBatches());
  ASSERT_OK_AND_ASSIGN(auto m, middle->CombineBatches());
  EXPECT_TRUE(m->column(1)->Equals(*e->column(1)->Slice(11'111, 5'000)));

  // The whole object through the store equals a concatenation of ranged reads.
  ASSERT_OK_AND_ASSIGN(auto whole, store_->Read(Key("large.lance")));
  ASSERT_EQ(whole->size(), written.size_bytes);
  ASSERT_OK_AND_ASSIGN(auto tail,
                       store_->ReadRange(Key("large.lance"), 7'000'001, 9'000'000));
  EXPECT_EQ(tail->ToStringView(), whole->ToStringView().substr(7'000'001, 9'000'000));
}

// With the size from a manifest the reader opens without a HEAD: one GET of the footer
// for a small file, where an open without the size costs HEAD + GET.
TEST_F(S3FileTest, KnownSizeOpensWithoutHead) {
  const SchemaPtr s = MixedSchema();
  ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(s, 100, 7));
  ASSERT_OK_AND_ASSIGN(auto written, Write(Key("small.lance"), s, {batch}));
  ASSERT_LT(written.size_bytes, 64 * 1024);  // the footer read covers the whole file

  auto counting = std::make_shared<CountingStore>(store_);
  FileReaderOptions known;
  known.file_size = written.size_bytes;
  int64_t before = Requests();
  ASSERT_OK_AND_ASSIGN(auto reader,
                       LanceFileReader::Open(counting, Key("small.lance"), known));
  EXPECT_EQ(Requests() - before, 1) << "expected one GET and no HEAD";
  EXPECT_EQ(counting->heads.load(), 0);
  EXPECT_EQ(counting->open_reader.load(), 0);
  EXPECT_EQ(counting->open_reader_with_size.load(), 1);
  ASSERT_OK_AND_ASSIGN(auto table, reader->ReadTable());
  EXPECT_EQ(table->num_rows(), 100);

  before = Requests();
  ASSERT_OK_AND_ASSIGN(reader, LanceFileReader::Open(counting, Key("small.lance")));
  EXPECT_EQ(Requests() - before, 2) << "expected HEAD + GET";
  EXPECT_EQ(reader->num_rows(), 100);

  // A size that does not match the object is Corrupt, never a silent misread.
  for (int64_t wrong : {written.size_bytes + 10, written.size_bytes - 1}) {
    FileReaderOptions bad;
    bad.file_size = wrong;
    auto opened = LanceFileReader::Open(store_, Key("small.lance"), bad);
    EXPECT_THAT(opened, IsError(StatusCode::kCorrupt)) << "file_size " << wrong;
    if (!opened.ok()) {
      EXPECT_NE(opened.status().message().find("small.lance"), std::string::npos)
          << opened.status();
    }
  }
}

// The URI entry points, as pylance's LanceFileReader/Writer(path, storage_options=...).
TEST_F(S3FileTest, OpenUriWithStorageOptions) {
  const std::string uri = root_uri_ + "/by-uri.lance";
  const io::StorageOptions options = env_.Options();
  const SchemaPtr s = MixedSchema();
  ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(s, 500, 11));
  ASSERT_OK_AND_ASSIGN(LanceSchema ls, LanceSchema::Assign(s));
  ASSERT_OK_AND_ASSIGN(auto writer, LanceFileWriter::OpenUri(uri, ls, options));
  ASSERT_OK(writer->WriteBatch(*batch));
  ASSERT_OK_AND_ASSIGN(auto written, writer->Close());
  EXPECT_EQ(written.path, Key("by-uri.lance"));
  EXPECT_TRUE(*store_->Exists(Key("by-uri.lance")));

  FileReaderOptions known;
  known.file_size = written.size_bytes;
  ASSERT_OK_AND_ASSIGN(auto reader, LanceFileReader::OpenUri(uri, options, known));
  ASSERT_OK_AND_ASSIGN(auto table, reader->ReadTable());
  ASSERT_OK_AND_ASSIGN(auto expected, Table::Make(s, {batch}));
  ExpectTablesEqual(*table, *expected);
  ASSERT_OK_AND_ASSIGN(reader, LanceFileReader::OpenUri(uri, options));
  EXPECT_EQ(reader->num_rows(), 500);

  // The bucket itself names no file; a missing file is NotFound naming the URI.
  EXPECT_THAT(LanceFileReader::OpenUri("s3://" + env_.bucket, options),
              IsError(StatusCode::kInvalid));
  auto missing = LanceFileReader::OpenUri(root_uri_ + "/nope.lance", options);
  EXPECT_THAT(missing, IsError(StatusCode::kNotFound));
  EXPECT_NE(missing.status().message().find("nope.lance"), std::string::npos)
      << missing.status();

  // Refused credentials: a clear error without the secret, and nothing written.
  const std::string bad_secret = "WrongSecretDoNotPrint0123456789abcdefXYZ";
  io::StorageOptions wrong = options;
  wrong["aws_secret_access_key"] = bad_secret;
  auto refused = LanceFileReader::OpenUri(uri, wrong);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().code() == StatusCode::kUnauthorized ||
              refused.status().code() == StatusCode::kForbidden)
      << refused.status();
  EXPECT_EQ(refused.status().ToString().find(bad_secret), std::string::npos);
  auto refused_writer = LanceFileWriter::OpenUri(root_uri_ + "/refused.lance", ls, wrong);
  if (refused_writer.ok()) {
    Status st = (*refused_writer)->WriteBatch(*batch);
    if (st.ok()) st = (*refused_writer)->Close().status();
    EXPECT_FALSE(st.ok());
    EXPECT_EQ(st.ToString().find(bad_secret), std::string::npos) << st;
  }
  EXPECT_FALSE(*store_->Exists(Key("refused.lance")));
}

TEST_F(S3FileTest, MissingFileAndAbortedWrites) {
  auto missing = LanceFileReader::Open(store_, Key("nope.lance"));
  EXPECT_THAT(missing, IsError(StatusCode::kNotFound));
  EXPECT_NE(missing.status().message().find("nope.lance"), std::string::npos)
      << missing.status();
  FileReaderOptions known;
  known.file_size = 1000;
  EXPECT_THAT(LanceFileReader::Open(store_, Key("nope.lance"), known),
              IsError(StatusCode::kNotFound));

  // Aborted writers publish nothing, small (single PUT) or large (multipart: 5 MiB
  // parts, and the writer flushes 8 MiB pages).
  io::StorageOptions options = env_.Options();
  options["lance_cpp_multipart_part_size"] = "5242880";
  ASSERT_NO_FATAL_FAILURE(Resolve(options));
  const SchemaPtr s = schema({field("blob", binary())});
  ASSERT_OK_AND_ASSIGN(LanceSchema ls, LanceSchema::Assign(s));
  for (int64_t rows : {10, 20'000}) {
    const std::string key = Key("aborted-" + std::to_string(rows) + ".lance");
    ASSERT_OK_AND_ASSIGN(auto writer, LanceFileWriter::Open(store_, key, ls));
    BinaryBuilder blobs;
    for (int64_t i = 0; i < rows; ++i)
      ASSERT_OK(blobs.Append(std::string(1000, 'x' + i % 3)));
    ASSERT_OK_AND_ASSIGN(auto arr, blobs.Finish());
    ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(s, rows, {arr}));
    ASSERT_OK(writer->WriteBatch(*batch));
    ASSERT_OK(writer->Abort());
    EXPECT_FALSE(*store_->Exists(key)) << key;
  }
  ASSERT_OK_AND_ASSIGN(auto left, store_->ListAll(prefix_ + "/", true));
  EXPECT_TRUE(left.objects.empty()) << left.objects.front().path;
}

}  // namespace
}  // namespace lance::format

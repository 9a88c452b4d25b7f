// SPDX-License-Identifier: Apache-2.0
// LanceFileWriter::OpenUri / LanceFileReader::OpenUri: the URI entry points (pylance's
// LanceFileWriter(path, schema, storage_options=...) and LanceFileReader(path, ...)).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <mutex>

#include "lance/format/file_reader.h"
#include "lance/format/file_writer.h"
#include "lance/io/credentials.h"
#include "lance/io/memory_object_store.h"
#include "lance/io/object_store_registry.h"
#include "tests/format/format_test_util.h"
#include "tests/testing/counting_store.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance::format {
namespace {

using ::lance::format::testing::RandomBatch;
using ::lance::testing::IsError;
using ::lance::testing::IsErrorWith;
using ::testing::HasSubstr;

SchemaPtr TestSchema() {
  return lance::schema(
      {field("id", int64()), field("name", utf8()), field("tags", list(utf8()))});
}

// Writes `batches` to `uri` through OpenUri.
Result<WrittenFile> WriteUri(const std::string& uri,
                             const std::vector<RecordBatchPtr>& batches,
                             const io::StorageAccess& access = {}) {
  LANCE_ASSIGN_OR_RAISE(LanceSchema ls, LanceSchema::Assign(batches.front()->schema()));
  LANCE_ASSIGN_OR_RAISE(auto writer,
                        LanceFileWriter::OpenUri(uri, std::move(ls), access));
  for (const auto& b : batches) LANCE_RETURN_NOT_OK(writer->WriteBatch(*b));
  return writer->Close();
}

std::vector<RecordBatchPtr> TestBatches() {
  std::vector<RecordBatchPtr> out;
  for (uint64_t seed : {1, 2, 3}) {
    auto batch = RandomBatch(TestSchema(), 100 + static_cast<int64_t>(seed), seed);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    out.push_back(*batch);
  }
  return out;
}

void ExpectSameRows(const TablePtr& actual, const std::vector<RecordBatchPtr>& batches) {
  auto expected = Table::Make(batches.front()->schema(), batches);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  ASSERT_EQ(actual->num_rows(), (*expected)->num_rows());
  EXPECT_TRUE(actual->Equals(**expected));
}

TEST(FileUriTest, FileUriRoundTrip) {
  lance::testing::TempDir tmp;
  const std::string path = tmp.Join("nested/dir/data.lance");
  const std::string uri = "file://" + path;
  const auto batches = TestBatches();
  ASSERT_OK_AND_ASSIGN(WrittenFile written, WriteUri(uri, batches));
  EXPECT_EQ(written.num_rows, 101 + 102 + 103);
  // The file is where the URI says, with the size the writer reports.
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(static_cast<int64_t>(std::filesystem::file_size(path)), written.size_bytes);

  ASSERT_OK_AND_ASSIGN(auto reader, LanceFileReader::OpenUri(uri));
  EXPECT_EQ(reader->num_rows(), written.num_rows);
  ASSERT_OK_AND_ASSIGN(TablePtr table, reader->ReadTable());
  ExpectSameRows(table, batches);

  // A plain path names the same file.
  ASSERT_OK_AND_ASSIGN(reader, LanceFileReader::OpenUri(path));
  EXPECT_EQ(reader->num_rows(), written.num_rows);
}

TEST(FileUriTest, MemoryUriRoundTripLandsInTheNamedStore) {
  const std::string name = "file-uri-test-roundtrip";
  const auto batches = TestBatches();
  ASSERT_OK_AND_ASSIGN(WrittenFile written,
                       WriteUri("memory://" + name + "/a/b.lance", batches));
  // The named store holds the object at the path below the authority.
  auto store = io::MemoryObjectStore::Named(name);
  ASSERT_OK_AND_ASSIGN(io::ObjectMeta meta, store->Head("a/b.lance"));
  EXPECT_EQ(meta.size, written.size_bytes);

  ASSERT_OK_AND_ASSIGN(auto reader,
                       LanceFileReader::OpenUri("memory://" + name + "/a/b.lance"));
  ASSERT_OK_AND_ASSIGN(TablePtr table, reader->ReadTable());
  ExpectSameRows(table, batches);
  io::MemoryObjectStore::DropNamed(name);
}

TEST(FileUriTest, KnownFileSizeIsChecked) {
  const std::string uri = "memory://file-uri-test-size/f.lance";
  ASSERT_OK_AND_ASSIGN(WrittenFile written, WriteUri(uri, TestBatches()));
  FileReaderOptions options;
  options.file_size = written.size_bytes;
  ASSERT_OK_AND_ASSIGN(auto reader, LanceFileReader::OpenUri(uri, {}, options));
  EXPECT_EQ(reader->num_rows(), written.num_rows);
  // The memory store looks the size up, so a wrong size is caught at open.
  options.file_size = written.size_bytes + 1;
  EXPECT_THAT(LanceFileReader::OpenUri(uri, {}, options),
              IsErrorWith(StatusCode::kCorrupt, "bytes but the object has"));
  io::MemoryObjectStore::DropNamed("file-uri-test-size");
}

TEST(FileUriTest, Errors) {
  // A missing file: NotFound naming the URI.
  auto missing = LanceFileReader::OpenUri("memory://file-uri-test-missing/nope.lance");
  ASSERT_THAT(missing, IsError(StatusCode::kNotFound));
  EXPECT_THAT(missing.status().message(),
              HasSubstr("memory://file-uri-test-missing/nope.lance"));
  // A store root is no file.
  EXPECT_THAT(LanceFileReader::OpenUri("memory://file-uri-test-root"),
              IsErrorWith(StatusCode::kInvalid, "store root"));
  ASSERT_OK_AND_ASSIGN(LanceSchema ls, LanceSchema::Assign(TestSchema()));
  EXPECT_THAT(LanceFileWriter::OpenUri("memory://file-uri-test-root", ls),
              IsErrorWith(StatusCode::kInvalid, "store root"));
  // Unknown scheme.
  EXPECT_THAT(LanceFileReader::OpenUri("nosuchscheme://b/f.lance"),
              IsError(StatusCode::kNotImplemented));
  EXPECT_THAT(LanceFileWriter::OpenUri("nosuchscheme://b/f.lance", ls),
              IsError(StatusCode::kNotImplemented));
  // Writer-side validation still applies, naming the URI.
  FileWriterOptions bad;
  bad.page_bytes = 0;
  auto writer =
      LanceFileWriter::OpenUri("memory://file-uri-test-root/x.lance", ls, {}, bad);
  ASSERT_THAT(writer, IsErrorWith(StatusCode::kInvalid, "page_bytes"));
  EXPECT_THAT(writer.status().message(),
              HasSubstr("memory://file-uri-test-root/x.lance"));
  // A URI with user info is refused without echoing it.
  auto userinfo = LanceFileReader::OpenUri("memory://user:hunter2@host/f.lance");
  ASSERT_THAT(userinfo, IsError(StatusCode::kInvalid));
  EXPECT_THAT(userinfo.status().ToString(), ::testing::Not(HasSubstr("hunter2")));
  io::MemoryObjectStore::DropNamed("file-uri-test-root");
}

// The storage options and the credentials source reach the store factory unchanged.
TEST(FileUriTest, StorageOptionsAndCredentialsReachTheFactory) {
  static ::lance::testing::FactoryLog seen;
  static auto store = std::make_shared<io::MemoryObjectStore>("fileuritest");
  // Independent of earlier runs (--gtest_repeat): no cached store, nothing seen yet.
  io::ObjectStoreRegistry::Default().ClearCache();
  seen.Clear();
  ASSERT_OK(::lance::testing::RegisterLoggedFactory("fileuritest", store, &seen));
  auto source = ::lance::testing::StaticTestCredentials("AKIDFILEURI");
  const io::StorageOptions options = {{"some_option", "v1"}};
  const auto batches = TestBatches();
  ASSERT_OK(WriteUri("fileuritest://bucket/w.lance", batches,
                     io::StorageAccess(options, source))
                .status());
  {
    std::lock_guard<std::mutex> lock(seen.mu);
    EXPECT_EQ(seen.calls, 1);
    EXPECT_EQ(seen.options, options);
    EXPECT_EQ(seen.credentials, source);
  }
  // The written object is in the factory's store under the path below the bucket.
  EXPECT_OK(store->Head("w.lance").status());

  // Other options: a different cache key, so the factory runs again and sees them.
  const io::StorageOptions other = {{"some_option", "v2"}};
  ASSERT_OK_AND_ASSIGN(auto reader,
                       LanceFileReader::OpenUri("fileuritest://bucket/w.lance",
                                                io::StorageAccess(other, source)));
  ASSERT_OK_AND_ASSIGN(TablePtr table, reader->ReadTable());
  ExpectSameRows(table, batches);
  {
    std::lock_guard<std::mutex> lock(seen.mu);
    EXPECT_EQ(seen.calls, 2);
    EXPECT_EQ(seen.options, other);
    EXPECT_EQ(seen.credentials, source);
  }
}

}  // namespace
}  // namespace lance::format

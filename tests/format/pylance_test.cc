// SPDX-License-Identifier: Apache-2.0
// File-level interop with real Lance (pylance): files pylance writes read equal here, and
// files written here read equal in pylance. The interpreter is $LANCE_PYTHON, falling
// back to the project's .venv; without an importable pylance the tests skip.

#include <gtest/gtest.h>

#include "lance/format/file_reader.h"
#include "lance/format/file_writer.h"
#include "lance/io/local_object_store.h"
#include "tests/format/format_test_util.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance::format {
namespace {

using ::lance::format::testing::json;

class PylanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    // The oracle is part of the test environment (make test installs it): its absence
    // is a failure, never a skip.
    ASSERT_TRUE(testing::PylanceAvailable(&why)) << why;
  }
  std::string Helper() const { return testing::FormatTestDir() + "/pylance_helper.py"; }
  ::lance::testing::TempDir dir_;
};

TEST_F(PylanceTest, FilesWrittenByPylanceReadEqual) {
  std::string out;
  ASSERT_EQ(testing::RunPython({Helper(), "write", dir_.path()}, &out), 0) << out;
  ASSERT_OK_AND_ASSIGN(auto store, io::LocalObjectStore::Make(dir_.path()));
  ASSERT_OK_AND_ASSIGN(json files, testing::ReadJsonFile(dir_.Join("files.json")));
  ASSERT_GE(files.size(), 6u);
  for (const auto& f : files) {
    const std::string name = f.get<std::string>();
    SCOPED_TRACE(name);
    const std::string base = name.substr(0, name.find("_paged"));
    ASSERT_OK_AND_ASSIGN(json expected, testing::ReadJsonFile(dir_.Join(base + ".json")));
    ASSERT_OK_AND_ASSIGN(auto reader, LanceFileReader::Open(store, name + ".lance"));
    EXPECT_EQ(reader->version(), LanceFileVersion::kV2_0);
    for (int64_t batch_size : {int64_t{8192}, int64_t{61}}) {
      FileReadOptions ro;
      ro.batch_size = batch_size;
      ASSERT_OK_AND_ASSIGN(auto table, reader->ReadTable(ro));
      const std::string diff =
          testing::JsonDiff(expected, testing::TableToJsonRows(*table));
      ASSERT_TRUE(diff.empty()) << diff;
    }
    FileReadOptions ro;
    ro.offset = 250;
    ro.length = 301;
    ro.batch_size = 50;
    ASSERT_OK_AND_ASSIGN(auto table, reader->ReadTable(ro));
    json rows = testing::TableToJsonRows(*table);
    ASSERT_EQ(rows.size(), 301u);
    for (size_t i = 0; i < rows.size(); ++i) {
      const std::string diff = testing::JsonDiff(expected[250 + i], rows[i]);
      ASSERT_TRUE(diff.empty()) << "row " << 250 + i << ": " << diff;
    }
  }
}

TEST_F(PylanceTest, FilesWrittenHereReadEqualInPylance) {
  auto st = struct_({field("a", int32()), field("b", utf8())});
  std::vector<std::pair<std::string, SchemaPtr>> cases = {
      {"leaves",
       schema({field("b", boolean()), field("i8", int8()), field("i16", int16()),
               field("i32", int32()), field("i64", int64()), field("u8", uint8()),
               field("u16", uint16()), field("u32", uint32()), field("u64", uint64()),
               field("f16", float16()), field("f32", float32()), field("f64", float64()),
               field("d", date32()), field("ts", timestamp(TimeUnit::kMicro, "UTC")),
               field("tsn", timestamp(TimeUnit::kNano)),
               field("fsb", fixed_size_binary(4))})},
      {"strings", schema({field("s", utf8()), field("ls", large_utf8()),
                          field("bin", binary()), field("lbin", large_binary())})},
      {"nested",
       schema({field("st", st), field("li", list(int32())),
               field("lls", large_list(large_utf8())), field("lst", list(st)),
               field("lli", list(list(int16()))),
               field("vec", fixed_size_list(float32(), 128)),
               field("fsl", fixed_size_list(int64(), 3)),
               field("stl", struct_({field("tags", list(utf8())), field("n", int64())})),
               field("lfsl", list(fixed_size_list(float64(), 2)))})},
  };
  ASSERT_OK_AND_ASSIGN(auto store, io::LocalObjectStore::Make(dir_.path()));
  struct Written {
    std::string file;
    json expected;
  };
  std::vector<Written> written;
  std::vector<std::string> args = {Helper(), "read"};
  for (const auto& [name, schema] : cases) {
    for (int64_t page_bytes : {int64_t{8} << 20, int64_t{1000}}) {
      const std::string file = name + "_" + std::to_string(page_bytes) + ".lance";
      SCOPED_TRACE(file);
      std::vector<RecordBatchPtr> batches;
      for (int b = 0; b < 3; ++b) {
        ASSERT_OK_AND_ASSIGN(auto batch,
                             testing::RandomBatch(schema, 400 + 50 * b, 17 + b));
        batches.push_back(batch);
      }
      // A null-heavy and an all-null batch exercise the other nullable branches.
      testing::RandomOptions heavy;
      heavy.null_probability = 1.0;
      ASSERT_OK_AND_ASSIGN(auto nulls, testing::RandomBatch(schema, 30, 99, heavy));
      batches.push_back(nulls);
      ASSERT_OK_AND_ASSIGN(LanceSchema ls, LanceSchema::Assign(schema));
      FileWriterOptions options;
      options.page_bytes = page_bytes;
      ASSERT_OK_AND_ASSIGN(auto writer, LanceFileWriter::Open(store, file, ls, options));
      for (const auto& b : batches) ASSERT_OK(writer->WriteBatch(*b));
      ASSERT_OK(writer->Close().status());
      ASSERT_OK_AND_ASSIGN(auto table, Table::Make(schema, batches));
      written.push_back({file, testing::TableToJsonRows(*table)});
      args.push_back(dir_.Join(file));
      args.push_back(dir_.Join(file + ".json"));
    }
  }
  // One interpreter for every file: pylance takes seconds to import.
  std::string out;
  ASSERT_EQ(testing::RunPython(args, &out), 0) << out;
  for (const Written& w : written) {
    SCOPED_TRACE(w.file);
    ASSERT_OK_AND_ASSIGN(json got, testing::ReadJsonFile(dir_.Join(w.file + ".json")));
    std::string diff = testing::JsonDiff(w.expected, got["rows"]);
    ASSERT_TRUE(diff.empty()) << diff;
    const size_t start = got["range_start"].get<size_t>();
    for (size_t i = 0; i < got["range"].size(); ++i) {
      diff = testing::JsonDiff(w.expected[start + i], got["range"][i]);
      ASSERT_TRUE(diff.empty()) << "range row " << i << ": " << diff;
    }
  }
}

TEST_F(PylanceTest, AllEmptyListsReadInPylance) {
  // No item ever: the item column has no pages at all.
  ListBuilder lb(std::make_unique<Int32Builder>());
  for (int i = 0; i < 20; ++i) ASSERT_OK(i % 4 ? lb.Append(true) : lb.AppendNull());
  ASSERT_OK_AND_ASSIGN(auto lists, lb.Finish());
  auto sch = schema({field("l", list(int32()))});
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(sch, 20, {lists}));
  ASSERT_OK_AND_ASSIGN(auto store, io::LocalObjectStore::Make(dir_.path()));
  ASSERT_OK_AND_ASSIGN(LanceSchema ls, LanceSchema::Assign(sch));
  ASSERT_OK_AND_ASSIGN(auto writer, LanceFileWriter::Open(store, "e.lance", ls));
  ASSERT_OK(writer->WriteBatch(*batch));
  ASSERT_OK(writer->Close().status());
  std::string out;
  ASSERT_EQ(testing::RunPython(
                {Helper(), "read", dir_.Join("e.lance"), dir_.Join("e.json")}, &out),
            0)
      << out;
  ASSERT_OK_AND_ASSIGN(json got, testing::ReadJsonFile(dir_.Join("e.json")));
  ASSERT_OK_AND_ASSIGN(auto table, Table::Make(sch, {batch}));
  const std::string diff =
      testing::JsonDiff(testing::TableToJsonRows(*table), got["rows"]);
  EXPECT_TRUE(diff.empty()) << diff;
}

}  // namespace
}  // namespace lance::format

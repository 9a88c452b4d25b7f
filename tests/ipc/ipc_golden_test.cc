// SPDX-License-Identifier: Apache-2.0
// Interoperability with real Arrow: files written by pyarrow and by Lance (Rust), and
// files written by this library that pyarrow was checked to read (data/make_golden.py).

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"
#include "tests/ipc/ipc_test_util.h"
#include "tests/testing/matchers.h"

namespace lance::ipc {
namespace {

using ::lance::testing::IsOk;
using namespace ::lance::ipc::testing;  // NOLINT(build/namespaces)

SchemaPtr RowIdSchema() {
  return schema({field("row_id", uint32(), /*nullable=*/false)});
}

RecordBatchPtr RowIdBatch(const std::vector<uint32_t>& ids) {
  std::vector<Opt<uint32_t>> values(ids.begin(), ids.end());
  return std::make_shared<RecordBatch>(
      RowIdSchema(), static_cast<int64_t>(ids.size()),
      std::vector<ArrayPtr>{Numeric<uint32_t>(uint32(), values)});
}

// Files written by lance-cpp and verified once with pyarrow (plus
// lance_written_row_ids_zstd.arrow).
struct LanceWritten {
  const char* name;
  bool is_file;
  IpcCompression compression;
};
constexpr LanceWritten kLanceWritten[] = {
    {"lance_written_types_zstd.arrow", true, IpcCompression::kZstd},
    {"lance_written_types_lz4.arrow", true, IpcCompression::kLz4Frame},
    {"lance_written_types_none.arrows", false, IpcCompression::kNone},
};

std::vector<RecordBatchPtr> TypesBatches() {
  RecordBatchPtr batch = TypesBatch();
  return {batch, batch->Slice(1, 3)};
}

std::vector<uint32_t> EveryThird() {
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < 3000; i += 3) ids.push_back(i);
  return ids;
}

// ---- pyarrow goldens ------------------------------------------------------------------

TEST(PyArrowGoldenTest, TypesUncompressedTwoBatches) {
  ASSERT_OK_AND_ASSIGN(auto reader,
                       IpcFileReader::Open(LoadGolden("pyarrow_types_none.arrow")));
  ASSERT_EQ(reader->num_record_batches(), 2);
  EXPECT_TRUE(reader->schema()->Equals(*TypesSchema(), /*check_metadata=*/true))
      << reader->schema()->ToString();
  const std::vector<RecordBatchPtr> expected = TypesBatches();
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE("batch " + std::to_string(i));
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, reader->ReadRecordBatch(i));
    ExpectBatchesEqual(*expected[i], *batch);
  }
}

TEST(PyArrowGoldenTest, TypesCompressed) {
  for (const char* name : {"pyarrow_types_lz4.arrow", "pyarrow_types_zstd.arrow"}) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(TablePtr table, ReadIpcFile(LoadGolden(name)));
    ASSERT_EQ(table->batches().size(), 1u);
    ExpectBatchesEqual(*TypesBatch(), *table->batches()[0]);
  }
}

TEST(PyArrowGoldenTest, TypesStream) {
  ASSERT_OK_AND_ASSIGN(TablePtr table,
                       ReadIpcStream(LoadGolden("pyarrow_types_none.arrows")));
  const std::vector<RecordBatchPtr> expected = TypesBatches();
  ASSERT_EQ(table->batches().size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    ExpectBatchesEqual(*expected[i], *table->batches()[i]);
  }
}

TEST(PyArrowGoldenTest, RowIdsZstd) {
  ASSERT_OK_AND_ASSIGN(TablePtr table,
                       ReadIpcFile(LoadGolden("pyarrow_row_ids_zstd.arrow")));
  ASSERT_EQ(table->batches().size(), 1u);
  ExpectBatchesEqual(*RowIdBatch(EveryThird()), *table->batches()[0]);
}

TEST(PyArrowGoldenTest, EmptyBatch) {
  ASSERT_OK_AND_ASSIGN(TablePtr table,
                       ReadIpcFile(LoadGolden("pyarrow_row_ids_empty.arrow")));
  ASSERT_EQ(table->batches().size(), 1u);
  ExpectBatchesEqual(*RowIdBatch({}), *table->batches()[0]);
}

// ---- Lance deletion files (written by Lance 0.x in Rust, arrow-rs, ZSTD) --------------

TEST(LanceDeletionFileTest, DecodesRowIds) {
  const std::vector<uint32_t> first = {
      700, 760, 250, 330, 260, 320, 660, 900, 190, 120, 850, 870, 20,  80,  820, 530, 10,
      90,  70,  930, 730, 130, 460, 810, 630, 800, 890, 200, 720, 920, 620, 990, 30,  310,
      470, 480, 790, 370, 970, 550, 430, 540, 230, 380, 880, 140, 420, 610, 180, 490, 860,
      950, 160, 410, 220, 400, 150, 910, 390, 40,  100, 280, 340, 360, 440, 510, 590, 520,
      600, 740, 60,  240, 560, 350, 640, 770, 780, 830, 110, 650, 270, 680, 940, 170, 690,
      210, 300, 710, 960, 980, 670, 450, 570, 0,   290, 500, 750, 840, 50,  580};
  const std::vector<uint32_t> second = {30, 40, 150, 90, 130, 70, 100, 140, 190, 170,
                                        0,  60, 110, 10, 20,  50, 80,  120, 160, 180};
  const struct {
    const char* name;
    const std::vector<uint32_t>& ids;
  } files[] = {{"lance_deletions/0-2-16806000350398585950.arrow", first},
               {"lance_deletions/1-2-13321176393809221197.arrow", second}};
  for (const auto& file : files) {
    SCOPED_TRACE(file.name);
    ASSERT_OK_AND_ASSIGN(auto reader, IpcFileReader::Open(LoadGolden(file.name)));
    ASSERT_EQ(reader->num_record_batches(), 1);
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, reader->ReadRecordBatch(0));
    ExpectBatchesEqual(*RowIdBatch(file.ids), *batch);
    EXPECT_EQ(batch->column(0)->null_count(), 0);
  }
}

// ---- Files written by lance-cpp
// ---------------------------------------------------------

Result<BufferPtr> WriteLanceGolden(const LanceWritten& spec) {
  IpcWriteOptions options;
  options.compression = spec.compression;
  return spec.is_file ? WriteIpcFile(TypesSchema(), TypesBatches(), options)
                      : WriteIpcStream(TypesSchema(), TypesBatches(), options);
}

// A tool, not a test: rewrites the lance_written_* files. Run it on purpose with
//   ipc_test --gtest_also_run_disabled_tests --gtest_filter='*Regenerate*'
// and then `make_golden.py --check` to confirm pyarrow reads them.
TEST(LanceWrittenGoldenTest, DISABLED_Regenerate) {
  for (const LanceWritten& spec : kLanceWritten) {
    ASSERT_OK_AND_ASSIGN(BufferPtr bytes, WriteLanceGolden(spec));
    WriteGolden(spec.name, *bytes);
  }
  ASSERT_OK_AND_ASSIGN(BufferPtr row_ids, WriteIpcFile(*RowIdBatch(EveryThird()), [] {
                         IpcWriteOptions options;
                         options.compression = IpcCompression::kZstd;
                         return options;
                       }()));
  WriteGolden("lance_written_row_ids_zstd.arrow", *row_ids);
}

TEST(LanceWrittenGoldenTest, CommittedFilesStillRead) {
  // Guards the reader against changes that would no longer accept what earlier
  // versions of the writer (checked against pyarrow) produced.
  for (const LanceWritten& spec : kLanceWritten) {
    SCOPED_TRACE(spec.name);
    BufferPtr bytes = LoadGolden(spec.name);
    ASSERT_NE(bytes, nullptr);
    ASSERT_OK_AND_ASSIGN(TablePtr table,
                         spec.is_file ? ReadIpcFile(bytes) : ReadIpcStream(bytes));
    const std::vector<RecordBatchPtr> expected = TypesBatches();
    ASSERT_EQ(table->batches().size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      ExpectBatchesEqual(*expected[i], *table->batches()[i]);
    }
  }
  ASSERT_OK_AND_ASSIGN(TablePtr table,
                       ReadIpcFile(LoadGolden("lance_written_row_ids_zstd.arrow")));
  ExpectBatchesEqual(*RowIdBatch(EveryThird()), *table->batches()[0]);
}

TEST(LanceWrittenGoldenTest, UncompressedOutputIsByteStable) {
  // Without compression the output depends only on this library, so it must not drift
  // from the bytes pyarrow was checked against (compressed bytes may vary with the
  // codec library version and are not compared).
  BufferPtr committed = LoadGolden("lance_written_types_none.arrows");
  ASSERT_OK_AND_ASSIGN(BufferPtr now, WriteLanceGolden(kLanceWritten[2]));
  EXPECT_TRUE(now->Equals(*committed));
}

}  // namespace
}  // namespace lance::ipc

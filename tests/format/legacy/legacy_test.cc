// SPDX-License-Identifier: Apache-2.0
// Legacy (v0.1 / v0.2) Lance files, read with LanceFileReader::Open and compared with
// what real pylance reads from the same files.
//
// tests/data/legacy/ holds datasets pylance 14.0.2 wrote with
// data_storage_version="legacy" (generators: gen_legacy_data.py and, for dictionary and
// null columns, gen_legacy_types.py beside this file), each with <name>.expected.json
// listing every data file and its rows as pylance reads them (or, for a dataset pylance
// cannot read, "unreadable": its error).
// Damaged copies (truncations at every offset, seeded flips in the footer, metadata,
// embedded manifest, page table and pages) must fail with a Status naming the file, or
// read, but never crash: this file runs under ASan+UBSan too.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <numeric>
#include <random>

#include "format/proto/file.pb.h"
#include "lance/format/file_reader.h"
#include "lance/io/local_object_store.h"
#include "lance/io/memory_object_store.h"
#include "tests/format/format_test_util.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance::format {
namespace {

using ::lance::format::testing::json;
using ::lance::format::testing::JsonDiff;
using ::lance::format::testing::TableToJsonRows;

std::string LegacyDataDir() { return testing::TestDataDir() + "/legacy"; }

struct Dataset {
  std::string name;
  std::string dir;  ///< the dataset root
  json expected;
};

std::vector<Dataset> LoadDatasets() {
  std::vector<Dataset> out;
  for (const auto& entry : std::filesystem::directory_iterator(LegacyDataDir())) {
    const std::string file = entry.path().filename().string();
    const std::string suffix = ".expected.json";
    if (file.size() <= suffix.size() ||
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    Dataset d;
    d.name = file.substr(0, file.size() - suffix.size());
    d.dir = LegacyDataDir() + "/" + d.name + ".lance";
    auto expected = testing::ReadJsonFile(entry.path().string());
    EXPECT_TRUE(expected.ok()) << expected.status().ToString();
    if (!expected.ok()) continue;
    d.expected = std::move(*expected);
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(),
            [](const Dataset& a, const Dataset& b) { return a.name < b.name; });
  return out;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

/// The rows `rows` of `expected`, keeping only `columns` (all when empty).
json Select(const json& expected, const std::vector<int64_t>& rows,
            const std::vector<std::string>& columns) {
  json out = json::array();
  for (int64_t r : rows) {
    const json& row = expected[static_cast<size_t>(r)];
    if (columns.empty()) {
      out.push_back(row);
      continue;
    }
    json projected = json::object();
    for (const auto& c : columns) projected[c] = row[c];
    out.push_back(std::move(projected));
  }
  return out;
}

std::vector<int64_t> Range(int64_t begin, int64_t end) {
  std::vector<int64_t> out;
  for (int64_t i = begin; i < end; ++i) out.push_back(i);
  return out;
}

void ExpectValid(const RecordBatch& batch) {
  for (const auto& column : batch.columns()) {
    ASSERT_OK(column->Validate());
  }
}

class LegacyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { datasets_ = new std::vector<Dataset>(LoadDatasets()); }
  static void TearDownTestSuite() {
    delete datasets_;
    datasets_ = nullptr;
  }

  static const std::vector<Dataset>& datasets() { return *datasets_; }

  /// Every data file of the datasets whose types this build reads.
  struct FileCase {
    const Dataset* dataset;
    const json* file;
  };
  /// The datasets pylance wrote but cannot read back (their expected.json has no rows).
  /// The unsupported_* ones, written when the columnar layer lacked their types, are all
  /// read now.
  static bool Unreadable(const Dataset& d) { return d.expected.contains("unreadable"); }
  static std::vector<FileCase> SupportedFiles() {
    std::vector<FileCase> out;
    for (const Dataset& d : datasets()) {
      if (Unreadable(d)) continue;
      for (const json& f : d.expected["files"]) out.push_back({&d, &f});
    }
    return out;
  }

  static Result<std::shared_ptr<LanceFileReader>> OpenFile(const FileCase& c) {
    LANCE_ASSIGN_OR_RAISE(auto store, io::LocalObjectStore::Make(c.dataset->dir));
    return LanceFileReader::Open(store, (*c.file)["path"].get<std::string>());
  }

  static std::vector<int32_t> TopLevelIds(const LanceFileReader& reader) {
    std::vector<int32_t> ids;
    const auto& fields = reader.schema().schema()->fields();
    for (int i = 0; i < static_cast<int>(fields.size()); ++i) {
      ids.push_back(reader.schema().SubtreeIds(i)[0]);
    }
    return ids;
  }

  /// A file opened, with what the range and take sweeps need of it.
  struct OpenedFile {
    std::shared_ptr<LanceFileReader> reader;
    int64_t num_rows;
    std::vector<int32_t> top_level_ids;
    std::vector<FieldPtr> fields;
  };

  static Result<OpenedFile> OpenWithIds(const FileCase& c) {
    LANCE_ASSIGN_OR_RAISE(auto reader, OpenFile(c));
    const int64_t n = reader->num_rows();
    std::vector<int32_t> ids = TopLevelIds(*reader);
    std::vector<FieldPtr> fields = reader->schema().schema()->fields();
    return OpenedFile{std::move(reader), n, std::move(ids), std::move(fields)};
  }

  /// Runs `check` on every supported file (its expected.json entry and the file opened
  /// with OpenWithIds), under a trace that names the file; a fatal failure stops the
  /// sweep as it would in the test body.
  static void ForEachOpenedFile(
      const std::function<void(const json& f, const OpenedFile& file)>& check) {
    for (const FileCase& c : SupportedFiles()) {
      const json& f = *c.file;
      SCOPED_TRACE(c.dataset->name + "/" + f["path"].get<std::string>());
      ASSERT_OK_AND_ASSIGN(const OpenedFile file, OpenWithIds(c));
      check(f, file);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }

  static std::vector<Dataset>* datasets_;
};

std::vector<Dataset>* LegacyTest::datasets_ = nullptr;

TEST_F(LegacyTest, TestDataIsPresent) {
  std::vector<std::string> names;
  for (const Dataset& d : datasets()) names.push_back(d.name);
  for (const char* want :
       {"add_columns", "all_types", "deletions", "unsupported_decimal128",
        "unsupported_dictionary", "unsupported_null", "dictionary", "dictionary_bad_keys",
        "null_type"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
  // Several fragments, several files per fragment, several batches per file.
  EXPECT_GE(SupportedFiles().size(), 10u);
}

TEST_F(LegacyTest, FullReadsMatchPylance) {
  for (const FileCase& c : SupportedFiles()) {
    const json& f = *c.file;
    SCOPED_TRACE(c.dataset->name + "/" + f["path"].get<std::string>());
    ASSERT_OK_AND_ASSIGN(auto reader, OpenFile(c));
    EXPECT_EQ(reader->version(), LanceFileVersion::kLegacy);
    EXPECT_EQ(f["file_major_version"].get<int>(), 0);
    EXPECT_EQ(f["file_minor_version"].get<int>(), 2);
    EXPECT_EQ(reader->num_rows(), f["num_rows"].get<int64_t>());
    // path() names the file as the user knows it: the absolute path, not the key.
    EXPECT_EQ(reader->path(),
              (std::filesystem::path(c.dataset->dir) / f["path"].get<std::string>())
                  .lexically_normal()
                  .string());
    // The file schema holds exactly the DataFile's field ids, in pre-order.
    EXPECT_EQ(reader->schema().field_ids(), f["field_ids"].get<std::vector<int32_t>>());
    std::vector<std::string> names;
    for (const auto& field : reader->schema().schema()->fields()) {
      names.push_back(field->name());
    }
    EXPECT_EQ(names, f["columns"].get<std::vector<std::string>>());
    for (int64_t batch_size : {int64_t{8192}, int64_t{5}}) {
      FileReadOptions ro;
      ro.batch_size = batch_size;
      ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(ro));
      std::vector<RecordBatchPtr> batches;
      ASSERT_NO_FATAL_FAILURE(testing::ReadBatches(*stream, batch_size, &batches));
      for (const auto& batch : batches) ExpectValid(*batch);
      EXPECT_EQ(testing::TotalRows(batches), reader->num_rows());
      ASSERT_OK_AND_ASSIGN(auto table, Table::Make(stream->schema(), batches));
      const std::string diff = JsonDiff(f["rows"], TableToJsonRows(*table));
      EXPECT_TRUE(diff.empty()) << diff;
    }
  }
}

TEST_F(LegacyTest, RangesBatchSizesAndProjections) {
  std::mt19937_64 rng(11);
  ForEachOpenedFile([&](const json& f, const OpenedFile& file) {
    const auto& [reader, n, ids, fields] = file;
    for (int64_t offset :
         {int64_t{0}, int64_t{1}, int64_t{6}, int64_t{7}, int64_t{8}, n - 1, n}) {
      for (int64_t length :
           {int64_t{-1}, int64_t{0}, int64_t{1}, int64_t{5}, int64_t{13}}) {
        if (offset < 0 || offset > n) continue;
        const int64_t rows = length < 0 ? n - offset : std::min(length, n - offset);
        for (int64_t batch_size : {int64_t{1}, int64_t{3}, int64_t{7}, int64_t{100}}) {
          FileReadOptions ro;
          ro.offset = offset;
          ro.length = length < 0 ? -1 : rows;
          ro.batch_size = batch_size;
          // A random projection in a random order (sometimes everything).
          std::vector<std::string> columns;
          if (rng() % 3 != 0) {
            std::vector<int> order(fields.size());
            std::iota(order.begin(), order.end(), 0);
            std::shuffle(order.begin(), order.end(), rng);
            order.resize(1 + rng() % order.size());
            for (int i : order) {
              ro.field_ids.push_back(ids[i]);
              columns.push_back(fields[i]->name());
            }
          }
          SCOPED_TRACE("offset " + std::to_string(offset) + " length " +
                       std::to_string(length) + " batch " + std::to_string(batch_size));
          ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(ro));
          std::vector<RecordBatchPtr> batches;
          while (true) {
            ASSERT_OK_AND_ASSIGN(auto batch, stream->Next());
            if (!batch) break;
            ASSERT_LE(batch->num_rows(), batch_size);
            ASSERT_EQ(batch->num_columns(), columns.empty()
                                                ? static_cast<int>(fields.size())
                                                : static_cast<int>(columns.size()));
            ExpectValid(*batch);
            batches.push_back(batch);
          }
          ASSERT_OK_AND_ASSIGN(auto table, Table::Make(stream->schema(), batches));
          ASSERT_EQ(table->num_rows(), rows);
          const json want = Select(f["rows"], Range(offset, offset + rows), columns);
          const std::string diff = JsonDiff(want, TableToJsonRows(*table));
          ASSERT_TRUE(diff.empty()) << diff;
        }
      }
    }
  });
}

TEST_F(LegacyTest, TakeMatchesPylance) {
  std::mt19937_64 rng(5);
  ForEachOpenedFile([&](const json& f, const OpenedFile& file) {
    const auto& [reader, n, ids, fields] = file;
    std::vector<std::vector<int64_t>> cases = {{}, {0}, Range(0, n)};
    if (n > 8)
      cases.push_back({n - 1, 0, n - 1, 3, 3, 7, 8, 2});  // unsorted, repeats, edges
    for (int k = 0; k < 6; ++k) {
      std::vector<int64_t> random;
      const int count = 1 + static_cast<int>(rng() % (2 * n));
      for (int i = 0; i < count; ++i) random.push_back(static_cast<int64_t>(rng() % n));
      cases.push_back(std::move(random));
    }
    for (const auto& indices : cases) {
      for (bool project : {false, true}) {
        std::vector<int32_t> field_ids;
        std::vector<std::string> columns;
        if (project) {
          // Every other field, last first.
          for (int i = static_cast<int>(fields.size()) - 1; i >= 0; i -= 2) {
            field_ids.push_back(ids[i]);
            columns.push_back(fields[i]->name());
          }
        }
        ASSERT_OK_AND_ASSIGN(auto batch, reader->Take(indices, field_ids));
        ASSERT_EQ(batch->num_rows(), static_cast<int64_t>(indices.size()));
        ExpectValid(*batch);
        ASSERT_OK_AND_ASSIGN(auto table, Table::Make(batch->schema(), {batch}));
        const std::string diff =
            JsonDiff(Select(f["rows"], indices, columns), TableToJsonRows(*table));
        ASSERT_TRUE(diff.empty()) << diff;
      }
    }
    // Rows outside the file and unknown fields.
    EXPECT_TRUE(reader->Take({n}).status().IsInvalid());
    EXPECT_TRUE(reader->Take({-1}).status().IsInvalid());
    EXPECT_TRUE(reader->Take({0}, {9999}).status().IsInvalid());
  });
}

TEST_F(LegacyTest, BadReadArguments) {
  const auto files = SupportedFiles();
  ASSERT_FALSE(files.empty());
  ASSERT_OK_AND_ASSIGN(auto reader, OpenFile(files[0]));
  FileReadOptions ro;
  ro.batch_size = 0;
  EXPECT_TRUE(reader->Read(ro).status().IsInvalid());
  ro = {};
  ro.offset = reader->num_rows() + 1;
  EXPECT_TRUE(reader->Read(ro).status().IsInvalid());
  ro = {};
  ro.length = reader->num_rows() + 1;
  EXPECT_TRUE(reader->Read(ro).status().IsInvalid());
  ro = {};
  ro.field_ids = {12345};
  auto st = reader->Read(ro).status();
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_NE(st.message().find(reader->path()), std::string::npos) << st.ToString();
}

TEST_F(LegacyTest, DictionaryAndNullColumnsHavePylancesTypes) {
  // Every column has the Arrow type of pylance's dataset schema (and to_table):
  // dictionaries stay dictionaries (never ordered: Lance writes "false"), nulls null.
  int checked = 0;
  for (const FileCase& c : SupportedFiles()) {
    const json& d = c.dataset->expected;
    json types = d.contains("arrow_types") ? d["arrow_types"] : json::object();
    if (c.dataset->name == "unsupported_dictionary") {
      types["x"] = "dictionary<values=string, indices=int32, ordered=0>";
    } else if (c.dataset->name == "unsupported_null") {
      types["x"] = "null";
    }
    if (types.empty()) continue;
    SCOPED_TRACE(c.dataset->name);
    ASSERT_OK_AND_ASSIGN(auto reader, OpenFile(c));
    for (const auto& field : reader->schema().schema()->fields()) {
      if (!types.contains(field->name())) continue;
      // pyarrow spells utf8 "string".
      std::string want = types[field->name()].get<std::string>();
      for (size_t at = want.find("string"); at != std::string::npos;
           at = want.find("string", at)) {
        want.replace(at, 6, "utf8");
      }
      EXPECT_EQ(field->type()->ToString(), want) << field->name();
      ++checked;
    }
  }
  // 10 columns in each of the 2 files of "dictionary", 4 in "null_type", 2 more.
  EXPECT_EQ(checked, 26);
}

TEST_F(LegacyTest, DictionaryValuesAreReadOnceAndShared) {
  const Dataset* dataset = nullptr;
  for (const Dataset& d : datasets()) {
    if (d.name == "dictionary") dataset = &d;
  }
  ASSERT_NE(dataset, nullptr);
  const json& f = dataset->expected["files"][0];
  ASSERT_OK_AND_ASSIGN(auto reader, OpenFile({dataset, &f}));
  const int d = reader->schema().schema()->GetFieldIndex("d");
  ASSERT_GE(d, 0);
  const int32_t id = TopLevelIds(*reader)[d];
  // Batches of 3 rows cut across the file's batches of 4: every piece, concatenated or
  // not, keeps the one dictionary of the file.
  FileReadOptions ro;
  ro.batch_size = 3;
  ro.field_ids = {id};
  ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(ro));
  std::vector<ArrayDataPtr> dictionaries;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto batch, stream->Next());
    if (!batch) break;
    dictionaries.push_back(batch->column(0)->data()->dictionary);
  }
  ASSERT_GE(dictionaries.size(), 4u);
  for (const auto& dict : dictionaries) EXPECT_EQ(dict.get(), dictionaries[0].get());
  ASSERT_OK_AND_ASSIGN(auto taken, reader->Take({11, 0, 5, 0}, {id}));
  EXPECT_EQ(taken->column(0)->data()->dictionary.get(), dictionaries[0].get());

  // Row 0 was null when written. Its index was not stored as null (the page has no
  // validity): it reads as index 0, a valid "fig", as in pylance. The nulls there are
  // those of the dictionary: "" reads as null.
  auto column = std::static_pointer_cast<DictionaryArray>(taken->column(0));
  EXPECT_TRUE(column->IsValid(1));
  EXPECT_EQ(column->GetValueIndex(1), 0);
  auto values = std::static_pointer_cast<StringArray>(column->dictionary());
  EXPECT_EQ(values->GetString(0), "fig");
  ASSERT_EQ(values->length(), 4);
  EXPECT_TRUE(values->IsNull(2));
  EXPECT_EQ(column->indices()->null_count(), 0);
}

TEST_F(LegacyTest, DictionaryIndicesPastTheDictionaryAreCorrupt) {
  // pylance wrote this dataset but fails to read it: its second batch came with a
  // dictionary of its own, and only the first batch's was stored.
  int checked = 0;
  for (const Dataset& d : datasets()) {
    if (!Unreadable(d)) continue;
    SCOPED_TRACE(d.name);
    EXPECT_NE(d.expected["unreadable"].get<std::string>().find("dictionary key"),
              std::string::npos);
    for (const json& f : d.expected["files"]) {
      ASSERT_OK_AND_ASSIGN(auto reader, OpenFile({&d, &f}));
      const std::string path = f["path"].get<std::string>();
      // The first batch (rows 0-3) is fine: its indices fit the stored dictionary.
      FileReadOptions ro;
      ro.length = 4;
      ASSERT_OK_AND_ASSIGN(auto first, reader->ReadTable(ro));
      EXPECT_EQ(TableToJsonRows(*first),
                json::parse(R"([{"x":"a"},{"x":"b"},{"x":"a"},{"x":"a"}])"));
      ASSERT_OK_AND_ASSIGN(auto some, reader->Take({5, 3, 4}));
      ASSERT_OK_AND_ASSIGN(auto some_table, Table::Make(some->schema(), {some}));
      EXPECT_EQ(TableToJsonRows(*some_table),
                json::parse(R"([{"x":"b"},{"x":"a"},{"x":"a"}])"));
      // Anything touching row 6 (index 2 of a dictionary of 2) is Corrupt, naming the
      // file, the field and the index.
      for (const Status& st :
           {reader->ReadTable().status(), reader->Take({0, 6}).status()}) {
        ASSERT_TRUE(st.IsCorrupt()) << st.ToString();
        EXPECT_NE(st.message().find(path), std::string::npos) << st.ToString();
        EXPECT_NE(st.message().find("field 'x'"), std::string::npos) << st.ToString();
        EXPECT_NE(st.message().find("dictionary index 2"), std::string::npos)
            << st.ToString();
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 2);
}

// ---------------------------------------------------------------------------------------
// Hand-edited copies of real files

/// The parsed tail of a legacy file: where its blocks are.
struct LegacyLayout {
  uint64_t metadata_pos = 0;
  uint64_t manifest_pos = 0;
  uint64_t page_table_pos = 0;
  uint64_t page_table_end = 0;
  lance::file::Metadata metadata;
};

LegacyLayout Inspect(const std::string& bytes, int num_fields_span) {
  LegacyLayout l;
  uint64_t pos;
  std::memcpy(&pos, bytes.data() + bytes.size() - 16, 8);
  l.metadata_pos = pos;
  uint32_t len;
  std::memcpy(&len, bytes.data() + pos, 4);
  EXPECT_TRUE(l.metadata.ParseFromArray(bytes.data() + pos + 4, static_cast<int>(len)));
  l.manifest_pos = l.metadata.manifest_position();
  l.page_table_pos = l.metadata.page_table_position();
  const uint64_t batches = static_cast<uint64_t>(l.metadata.batch_offsets_size()) - 1;
  l.page_table_end =
      l.page_table_pos + 16 * batches * static_cast<uint64_t>(num_fields_span);
  return l;
}

/// `bytes` without its 16-byte footer, then `message` as legacy files store one: its
/// 4-byte length and its bytes. `*pos` is where the length starts.
std::string CutFooterAndAppend(const std::string& bytes,
                               const google::protobuf::MessageLite& message,
                               uint64_t* pos) {
  std::string out = bytes.substr(0, bytes.size() - 16);
  *pos = out.size();
  const std::string body = message.SerializeAsString();
  const uint32_t len = static_cast<uint32_t>(body.size());
  out.append(reinterpret_cast<const char*>(&len), 4);
  out += body;
  return out;
}

/// `bytes` with its metadata replaced by `metadata` (appended after the old tail).
std::string WithMetadata(const std::string& bytes, const lance::file::Metadata& metadata,
                         uint16_t minor = 2) {
  uint64_t pos;
  std::string out = CutFooterAndAppend(bytes, metadata, &pos);
  out.append(reinterpret_cast<const char*>(&pos), 8);
  const uint16_t major = 0;
  out.append(reinterpret_cast<const char*>(&major), 2);
  out.append(reinterpret_cast<const char*>(&minor), 2);
  out += "LANC";
  return out;
}

class LegacyBytesTest : public LegacyTest {
 protected:
  /// The data file of `dataset` whose fields start at `first_id`.
  std::string FileOf(const std::string& dataset, int32_t first_id, json* expected) {
    for (const Dataset& d : datasets()) {
      if (d.name != dataset) continue;
      for (const json& f : d.expected["files"]) {
        if (f["field_ids"][0].get<int32_t>() != first_id) continue;
        *expected = f;
        return ReadBytes(d.dir + "/" + f["path"].get<std::string>());
      }
    }
    ADD_FAILURE() << "no file of " << dataset << " starting at field " << first_id;
    return "";
  }

  static Result<std::shared_ptr<LanceFileReader>> OpenBytes(const std::string& bytes,
                                                            const std::string& name) {
    auto store = std::make_shared<io::MemoryObjectStore>();
    LANCE_RETURN_NOT_OK(store->Put(name, bytes));
    return LanceFileReader::Open(store, name);
  }
};

TEST_F(LegacyBytesTest, MinorVersionOneReadsTheSame) {
  // Lance reads 0.0-0.2 footers with one reader; Lance before 0.10 wrote 0.1.
  json expected;
  std::string bytes = FileOf("deletions", 0, &expected);
  ASSERT_FALSE(bytes.empty());
  bytes[bytes.size() - 6] = 1;
  ASSERT_OK_AND_ASSIGN(auto reader, OpenBytes(bytes, "v01.lance"));
  EXPECT_EQ(reader->version(), LanceFileVersion::kLegacy);
  ASSERT_OK_AND_ASSIGN(auto table, reader->ReadTable());
  const std::string diff = JsonDiff(expected["rows"], TableToJsonRows(*table));
  EXPECT_TRUE(diff.empty()) << diff;
}

TEST_F(LegacyBytesTest, FileWithoutEmbeddedSchema) {
  json expected;
  const std::string bytes = FileOf("deletions", 0, &expected);
  ASSERT_FALSE(bytes.empty());
  LegacyLayout layout = Inspect(bytes, 2);
  lance::file::Metadata metadata = layout.metadata;
  metadata.set_manifest_position(0);
  auto reader = OpenBytes(WithMetadata(bytes, metadata), "noschema.lance");
  ASSERT_FALSE(reader.ok());
  EXPECT_TRUE(reader.status().IsNotImplemented()) << reader.status().ToString();
  EXPECT_NE(reader.status().message().find("noschema.lance"), std::string::npos);
  EXPECT_NE(reader.status().message().find("embedded schema"), std::string::npos);
}

TEST_F(LegacyBytesTest, InconsistentMetadataIsCorrupt) {
  json expected;
  const std::string bytes = FileOf("deletions", 0, &expected);
  ASSERT_FALSE(bytes.empty());
  const LegacyLayout layout = Inspect(bytes, 2);
  auto expect_corrupt = [&](const lance::file::Metadata& m, const char* what) {
    auto reader = OpenBytes(WithMetadata(bytes, m), "bad.lance");
    ASSERT_FALSE(reader.ok()) << what;
    EXPECT_TRUE(reader.status().IsCorrupt())
        << what << ": " << reader.status().ToString();
    EXPECT_NE(reader.status().message().find("bad.lance"), std::string::npos);
  };
  lance::file::Metadata m = layout.metadata;
  m.set_batch_offsets(0, 1);
  expect_corrupt(m, "batch offsets not starting at 0");
  m = layout.metadata;
  m.set_batch_offsets(1, 1000);
  expect_corrupt(m, "decreasing batch offsets");
  m = layout.metadata;
  m.add_batch_offsets(m.batch_offsets(m.batch_offsets_size() - 1) + 5);
  expect_corrupt(m, "a batch without pages");
  m = layout.metadata;
  m.set_page_table_position(bytes.size());
  expect_corrupt(m, "page table outside the file");
  m = layout.metadata;
  m.set_page_table_position(layout.page_table_pos + 8);
  expect_corrupt(m, "shifted page table");
  m = layout.metadata;
  m.set_manifest_position(bytes.size() - 3);
  expect_corrupt(m, "manifest outside the file");
  m = layout.metadata;
  for (int i = 0; i < 5000; ++i) m.add_batch_offsets(1 << 30);
  expect_corrupt(m, "page table larger than the file");
}

/// `bytes` with its embedded schema replaced by `schema` (appended as a manifest that
/// holds only the schema fields, plus new metadata pointing at it).
std::string WithSchema(const std::string& bytes, const lance::file::Schema& schema) {
  LegacyLayout layout = Inspect(bytes, 1);
  uint64_t pos;
  std::string out = CutFooterAndAppend(bytes, schema, &pos);
  // Keep a valid footer so that WithMetadata can cut it off again.
  out.append(16, '\0');
  lance::file::Metadata metadata = layout.metadata;
  metadata.set_manifest_position(pos);
  return WithMetadata(out, metadata);
}

/// The embedded schema of `bytes` (a legacy file whose page table spans
/// `num_fields_span` field ids); a failure to parse it is reported here.
lance::file::Schema EmbeddedSchema(const std::string& bytes, int num_fields_span = 1) {
  const LegacyLayout layout = Inspect(bytes, num_fields_span);
  uint32_t len;
  std::memcpy(&len, bytes.data() + layout.manifest_pos, 4);
  lance::file::Schema schema;
  EXPECT_TRUE(schema.ParseFromArray(bytes.data() + layout.manifest_pos + 4,
                                    static_cast<int>(len)));
  return schema;
}

TEST_F(LegacyBytesTest, SchemaThatDoesNotFitThePages) {
  json expected;
  const std::string bytes = FileOf("add_columns", 3, &expected);
  ASSERT_FALSE(bytes.empty());
  lance::file::Schema original = EmbeddedSchema(bytes, 5);
  ASSERT_FALSE(HasFailure()) << "the embedded schema does not parse";
  // ids 3 info (struct), 4 p (int32), 5 q (string), 6 tags (list), 7 item (string).
  ASSERT_EQ(original.fields_size(), 5);
  ASSERT_EQ(original.fields(1).logical_type(), "int32");

  // Unchanged: reads.
  ASSERT_OK_AND_ASSIGN(auto reader, OpenBytes(WithSchema(bytes, original), "same.lance"));
  ASSERT_OK_AND_ASSIGN(auto table, reader->ReadTable());
  EXPECT_TRUE(JsonDiff(expected["rows"], TableToJsonRows(*table)).empty());

  auto open_and_read = [&](const lance::file::Schema& schema) -> Status {
    LANCE_ASSIGN_OR_RAISE(auto r, OpenBytes(WithSchema(bytes, schema), "edited.lance"));
    LANCE_ASSIGN_OR_RAISE(auto t, r->ReadTable());
    return Status::OK();
  };
  auto expect_error = [&](const lance::file::Schema& schema, const char* what,
                          StatusCode code) {
    const Status st = open_and_read(schema);
    ASSERT_FALSE(st.ok()) << what;
    EXPECT_EQ(st.code(), code) << what << ": " << st.ToString();
    EXPECT_NE(st.message().find("edited.lance"), std::string::npos) << st.ToString();
  };
  lance::file::Schema s = original;
  s.mutable_fields(1)->set_logical_type("fixed_size_binary:2000000000");
  expect_error(s, "a value wider than 256 MiB", StatusCode::kCorrupt);
  s = original;
  s.mutable_fields(1)->set_logical_type("fixed_size_binary:100000");
  expect_error(s, "pages past the end of the file", StatusCode::kCorrupt);
  s = original;
  s.mutable_fields(1)->set_logical_type("string");
  expect_error(s, "int32 values read as string positions", StatusCode::kCorrupt);
  s = original;
  s.mutable_fields(4)->set_logical_type("large_string");
  EXPECT_OK(open_and_read(s));  // the same bytes either way
  s = original;
  s.mutable_fields(3)->set_logical_type("large_list");
  expect_error(s, "i32 list offsets read as i64", StatusCode::kCorrupt);
  s = original;
  // The page table is indexed from the smallest id: shifting every id changes nothing.
  for (auto& f : *s.mutable_fields()) {
    f.set_id(f.id() + 1000);
    if (f.parent_id() >= 0) f.set_parent_id(f.parent_id() + 1000);
  }
  EXPECT_OK(open_and_read(s));
  s = original;
  s.mutable_fields(4)->set_id(1000);
  expect_error(s, "ids past the page table", StatusCode::kCorrupt);
  s = original;
  // tags: list.struct over a struct without fields.
  s.mutable_fields(3)->set_logical_type("list.struct");
  s.mutable_fields(4)->set_logical_type("struct");
  expect_error(s, "a list of an empty struct", StatusCode::kNotImplemented);
}

int ProtoIndex(const lance::file::Schema& schema, const std::string& name) {
  for (int i = 0; i < schema.fields_size(); ++i) {
    if (schema.fields(i).name() == name && schema.fields(i).parent_id() == -1) return i;
  }
  ADD_FAILURE() << "no top-level field " << name;
  return 0;
}

TEST_F(LegacyBytesTest, DamagedDictionaryMetadata) {
  json expected;
  const std::string bytes = FileOf("dictionary", 0, &expected);
  ASSERT_FALSE(bytes.empty());
  const lance::file::Schema original = EmbeddedSchema(bytes);
  const int d = ProtoIndex(original, "d");        // utf8 values: positions + bytes
  const int ints = ProtoIndex(original, "ints");  // int64 values: plain
  ASSERT_TRUE(original.fields(d).has_dictionary());
  const int64_t offset = original.fields(d).dictionary().offset();
  const int64_t length = original.fields(d).dictionary().length();
  ASSERT_EQ(length, 4);  // "fig", "kiwi", "", "apple"
  const auto size = static_cast<int64_t>(bytes.size());

  // Unchanged: reads.
  ASSERT_OK_AND_ASSIGN(auto same, OpenBytes(WithSchema(bytes, original), "same.lance"));
  ASSERT_OK_AND_ASSIGN(auto table, same->ReadTable());
  EXPECT_TRUE(JsonDiff(expected["rows"], TableToJsonRows(*table)).empty());

  auto open_and_read = [&](const std::string& file) -> Status {
    LANCE_ASSIGN_OR_RAISE(auto r, OpenBytes(file, "edited.lance"));
    LANCE_ASSIGN_OR_RAISE(auto t, r->ReadTable());
    for (const auto& batch : t->batches()) {
      for (const auto& column : batch->columns()) LANCE_RETURN_NOT_OK(column->Validate());
    }
    return Status::OK();
  };
  auto expect_error = [&](const std::string& file, const std::string& field,
                          const char* what, StatusCode code = StatusCode::kCorrupt) {
    const Status st = open_and_read(file);
    ASSERT_FALSE(st.ok()) << what;
    EXPECT_EQ(st.code(), code) << what << ": " << st.ToString();
    EXPECT_NE(st.message().find("edited.lance"), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find("field '" + field + "'"), std::string::npos)
        << what << ": " << st.ToString();
  };
  auto edited = [&](int index, int64_t new_offset, int64_t new_length) {
    lance::file::Schema s = original;
    s.mutable_fields(index)->mutable_dictionary()->set_offset(new_offset);
    s.mutable_fields(index)->mutable_dictionary()->set_length(new_length);
    return WithSchema(bytes, s);
  };
  // (WithSchema appends a few hundred bytes: the edited file ends before 2 * size.)
  expect_error(edited(d, 2 * size, length), "d", "positions past the end of the file");
  expect_error(edited(d, offset, size / 8), "d", "positions running past the end");
  expect_error(edited(d, offset, int64_t{1} << 60), "d", "an absurd value count");
  expect_error(edited(d, offset, -1), "d", "a negative value count");
  expect_error(edited(d, -8, length), "d", "a negative offset");
  expect_error(edited(d, std::numeric_limits<int64_t>::max(), 1), "d", "offset at 2^63");
  expect_error(edited(ints, 2 * size, 3), "ints", "int values past the end of the file");
  expect_error(edited(ints, size - 8, size / 8), "ints",
               "int values running past the end");
  expect_error(edited(ints, 0, int64_t{1} << 59), "ints", "an absurd int value count");
  // The string bytes right before the positions, read as positions, point nowhere.
  expect_error(edited(d, offset - 8, length), "d", "positions shifted into the bytes");
  // Fewer values than the indices use: the reads that need them fail.
  expect_error(edited(d, offset, 0), "d", "an empty dictionary");
  expect_error(edited(d, offset, 2), "d", "a dictionary shorter than its indices");
  {
    lance::file::Schema s = original;
    s.mutable_fields(d)->clear_dictionary();
    expect_error(WithSchema(bytes, s), "d", "no dictionary location");
    s = original;
    // A value type Lance cannot store in a legacy dictionary.
    s.mutable_fields(d)->set_logical_type("dict:double:int32:false");
    expect_error(WithSchema(bytes, s), "d", "float values", StatusCode::kNotImplemented);
  }

  // Damaged positions in the file itself.
  std::string file = bytes;
  const uint64_t huge = uint64_t{1} << 62;
  std::memcpy(&file[static_cast<size_t>(offset + length * 8)], &huge, 8);
  expect_error(WithSchema(file, original), "d", "the last position past the file");
  file = bytes;
  uint64_t first;
  std::memcpy(&first, &file[static_cast<size_t>(offset)], 8);
  const uint64_t later = first + 100;
  std::memcpy(&file[static_cast<size_t>(offset + 8)], &later, 8);
  expect_error(WithSchema(file, original), "d", "decreasing positions");
}

TEST_F(LegacyBytesTest, NullPagesAreNeverRead) {
  // A null page has a length and no bytes; like Lance, the reader never looks at its
  // position, so any value there reads the same.
  json expected;
  const std::string bytes = FileOf("null_type", 0, &expected);
  ASSERT_FALSE(bytes.empty());
  // ids 0 id, 1 n (null), 2 st, 3 z (null), 4 i, 5 l, 6 item (null): 7 page table rows
  // of num_batches each, starting at id 0.
  const LegacyLayout layout = Inspect(bytes, 7);
  const int64_t batches = layout.metadata.batch_offsets_size() - 1;
  ASSERT_EQ(batches, 3);
  std::string file = bytes;
  for (int64_t id : {1, 3, 6}) {
    for (int64_t b = 0; b < batches; ++b) {
      const uint64_t nowhere = ~uint64_t{0} - static_cast<uint64_t>(b);
      std::memcpy(&file[layout.page_table_pos + (id * batches + b) * 16], &nowhere, 8);
    }
  }
  ASSERT_OK_AND_ASSIGN(auto reader, OpenBytes(file, "nulls.lance"));
  ASSERT_OK_AND_ASSIGN(auto table, reader->ReadTable());
  EXPECT_TRUE(JsonDiff(expected["rows"], TableToJsonRows(*table)).empty());
  // Their lengths are checked like any page's.
  file = bytes;
  const uint64_t wrong = 3;
  std::memcpy(&file[layout.page_table_pos + (1 * batches + 0) * 16 + 8], &wrong, 8);
  auto bad = OpenBytes(file, "nulls.lance");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsCorrupt()) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("field 'n'"), std::string::npos)
      << bad.status().ToString();
}

// ---------------------------------------------------------------------------------------
// Damage

constexpr char kDamaged[] = "damaged.lance";

struct Outcome {
  int opened = 0;
  int failed_open = 0;
  int failed_read = 0;
  int read_ok = 0;
};

/// Opens `bytes`, reads it fully (all at once and in small batches) and takes a few rows;
/// every error must name the file.
void Exercise(const std::string& bytes, Outcome* outcome) {
  auto store = std::make_shared<io::MemoryObjectStore>();
  ASSERT_OK(store->Put(kDamaged, bytes));
  auto reader = LanceFileReader::Open(store, kDamaged);
  if (!reader.ok()) {
    ++outcome->failed_open;
    EXPECT_NE(reader.status().message().find(kDamaged), std::string::npos)
        << reader.status().ToString();
    return;
  }
  ++outcome->opened;
  bool all_ok = true;
  for (int64_t batch_size : {int64_t{1} << 20, int64_t{3}}) {
    Status st = testing::ReadAllValidating(**reader, batch_size);
    if (!st.ok()) {
      all_ok = false;
      EXPECT_NE(st.message().find(kDamaged), std::string::npos) << st.ToString();
    }
  }
  const int64_t n = (*reader)->num_rows();
  if (n > 0) {
    auto taken = (*reader)->Take({n - 1, 0, n / 2, n / 2});
    if (taken.ok()) {
      for (const auto& column : (*taken)->columns()) (void)column->Validate();
    } else {
      all_ok = false;
      EXPECT_NE(taken.status().message().find(kDamaged), std::string::npos)
          << taken.status().ToString();
    }
  }
  all_ok ? ++outcome->read_ok : ++outcome->failed_read;
}

class LegacyDamageTest : public LegacyBytesTest {
 protected:
  struct Sample {
    std::string bytes;
    int field_span;  ///< max field id - min field id + 1 (page table rows)
  };
  std::vector<Sample> Corpus() {
    json e;
    std::vector<Sample> out;
    // Flat int64 + string, 7 batches.
    out.push_back({FileOf("deletions", 0, &e), 2});
    // add_columns: a struct first, then a list of strings (ids 3..7).
    out.push_back({FileOf("add_columns", 3, &e), 5});
    // Every type (ids 0..52), 3 batches.
    std::string all = FileOf("all_types", 0, &e);
    out.push_back({all, Span(e)});
    // Dictionaries of every kind, nested ones too, and their values; 3 batches.
    std::string dict = FileOf("dictionary", 0, &e);
    out.push_back({dict, Span(e)});
    // Null columns, top-level, in a struct and in a list; 3 batches.
    std::string nulls = FileOf("null_type", 0, &e);
    out.push_back({nulls, Span(e)});
    return out;
  }
  static int Span(const json& file) {
    int max_id = 0;
    for (const auto& id : file["field_ids"]) max_id = std::max(max_id, id.get<int>());
    return max_id + 1;
  }
};

TEST_F(LegacyDamageTest, SamplesAreValid) {
  for (const Sample& s : Corpus()) {
    Outcome o;
    Exercise(s.bytes, &o);
    EXPECT_EQ(o.read_ok, 1);
  }
}

TEST_F(LegacyDamageTest, TruncationAtEveryOffset) {
  for (const Sample& s : Corpus()) {
    Outcome o;
    for (size_t n = 0; n < s.bytes.size(); ++n) {
      Exercise(s.bytes.substr(0, n), &o);
      // A truncated file loses its footer: nothing may open.
      ASSERT_EQ(o.opened, 0) << "truncated to " << n << " of " << s.bytes.size();
    }
    // Dropping bytes from the front keeps the footer but moves everything else.
    for (size_t n = 1; n < s.bytes.size(); n += 5) Exercise(s.bytes.substr(n), &o);
    EXPECT_GT(o.failed_open, 0);
  }
}

TEST_F(LegacyDamageTest, SeededByteFlips) {
  const auto start = std::chrono::steady_clock::now();
  std::mt19937_64 rng(20250101);
  int total = 0;
  for (const Sample& s : Corpus()) {
    const std::string& file = s.bytes;
    const LegacyLayout layout = Inspect(file, s.field_span);
    ASSERT_LT(layout.page_table_end, layout.manifest_pos);
    ASSERT_LT(layout.manifest_pos, layout.metadata_pos);
    struct Region {
      const char* name;
      size_t begin, end;
      int flips;
    };
    const std::vector<Region> regions = {
        {"footer", file.size() - 16, file.size(), 300},
        {"metadata", layout.metadata_pos, file.size() - 16, 500},
        {"manifest", layout.manifest_pos, layout.metadata_pos, 700},
        {"page table", layout.page_table_pos, layout.page_table_end, 700},
        {"pages", 0, layout.page_table_pos, 500},
    };
    for (const Region& r : regions) {
      SCOPED_TRACE(r.name);
      Outcome o;
      std::uniform_int_distribution<size_t> where(r.begin, r.end - 1);
      for (int i = 0; i < r.flips; ++i) {
        std::string damaged = file;
        // One to three random bytes, sometimes a single bit.
        const int count = 1 + static_cast<int>(rng() % 3);
        for (int k = 0; k < count; ++k) {
          const size_t pos = where(rng);
          if (rng() % 2) {
            damaged[pos] = static_cast<char>(damaged[pos] ^ (1 << (rng() % 8)));
          } else {
            damaged[pos] = static_cast<char>(rng());
          }
        }
        Exercise(damaged, &o);
        ++total;
      }
      // Damage to the structure must be noticed, not read as data.
      if (std::string(r.name) != "pages") {
        EXPECT_GT(o.failed_open + o.failed_read, 0);
      }
    }
  }
  EXPECT_EQ(total, static_cast<int>(Corpus().size()) * 2700);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::minutes(5));
}

TEST_F(LegacyDamageTest, DictionaryValueFlips) {
  // The dictionary values sit between the page table (and statistics) and the embedded
  // manifest, a region the flips above leave alone.
  json e;
  const std::string file = FileOf("dictionary", 0, &e);
  ASSERT_FALSE(file.empty());
  const LegacyLayout layout = Inspect(file, Span(e));
  ASSERT_LT(layout.page_table_end, layout.manifest_pos);
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<size_t> where(layout.page_table_end,
                                              layout.manifest_pos - 1);
  Outcome o;
  for (int i = 0; i < 1500; ++i) {
    std::string damaged = file;
    const int count = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < count; ++k) {
      const size_t pos = where(rng);
      damaged[pos] = static_cast<char>(rng() % 2 ? damaged[pos] ^ (1 << (rng() % 8))
                                                 : static_cast<int>(rng()));
    }
    Exercise(damaged, &o);
  }
  // Damaged positions are noticed; damaged value bytes are just other values.
  EXPECT_GT(o.failed_open, 0);
  EXPECT_GT(o.read_ok, 0);
}

// ---------------------------------------------------------------------------------------
// What reads touch

/// Counts the bytes read through the readers it opens.
class ByteCountingStore : public io::ObjectStoreWrapper {
 public:
  using io::ObjectStoreWrapper::ObjectStoreWrapper;

  Result<std::shared_ptr<io::RandomAccessReader>> OpenReader(
      const std::string& path) override {
    LANCE_ASSIGN_OR_RAISE(auto inner, io::ObjectStoreWrapper::OpenReader(path));
    return std::shared_ptr<io::RandomAccessReader>(new Counting(std::move(inner), this));
  }

  std::atomic<int64_t> bytes{0};
  std::atomic<int64_t> reads{0};

 private:
  class Counting : public io::RandomAccessReader {
   public:
    Counting(std::shared_ptr<io::RandomAccessReader> inner, ByteCountingStore* owner)
        : io::RandomAccessReader(inner->path(), inner->uri(), inner->size()),
          inner_(std::move(inner)),
          owner_(owner) {}

   protected:
    Result<BufferPtr> DoReadAt(int64_t offset, int64_t length) override {
      owner_->bytes += length;
      ++owner_->reads;
      return inner_->ReadAt(offset, length);
    }

   private:
    std::shared_ptr<io::RandomAccessReader> inner_;
    ByteCountingStore* owner_;
  };
};

TEST(LegacyIoTest, ReadsTouchOnlyTheBatchesTheyNeed) {
  // A bigger file than the committed ones, written by pylance now: 64 batches of 2000
  // rows (int64 + strings of 40 bytes) = about 7 MB.
  std::string why;
  ASSERT_TRUE(testing::PylanceAvailable(&why)) << why;
  ::lance::testing::TempDir dir;
  // (RunPython quotes arguments with single quotes: the script uses none.)
  const std::string script =
      "import sys, lance, pyarrow as pa\n"
      "n = 128000\n"
      "t = pa.table({\"x\": pa.array(range(n), pa.int64()),\n"
      "              \"s\": pa.array([\"value-%08d-\" % i + \"y\" * 25 for i in "
      "range(n)])})\n"
      "lance.write_dataset(t, sys.argv[1], data_storage_version=\"legacy\",\n"
      "                    max_rows_per_group=2000)\n"
      "ds = lance.dataset(sys.argv[1])\n"
      "print(ds.get_fragments()[0].metadata.files[0].path)\n";
  std::string out;
  ASSERT_EQ(testing::RunPython({"-c", script, dir.Join("big.lance")}, &out), 0) << out;
  const std::string name = out.substr(0, out.find('\n'));
  ASSERT_OK_AND_ASSIGN(auto local,
                       io::LocalObjectStore::Make(dir.Join("big.lance/data")));
  auto store = std::make_shared<ByteCountingStore>(local);
  ASSERT_OK_AND_ASSIGN(auto reader, LanceFileReader::Open(store, name));
  ASSERT_EQ(reader->num_rows(), 128000);
  const int64_t size = (*store->target()->OpenReader(name))->size();
  const int64_t open_bytes = store->bytes;
  EXPECT_LE(open_bytes, 64 * 1024 + 4096);

  // Take a handful of rows spread over the file: a few KB around each.
  ASSERT_OK_AND_ASSIGN(auto batch, reader->Take({127999, 5, 64000, 5, 3}));
  ASSERT_EQ(batch->num_rows(), 5);
  auto x = std::static_pointer_cast<Int64Array>(batch->column(0));
  auto s = std::static_pointer_cast<StringArray>(batch->column(1));
  EXPECT_EQ(x->Value(0), 127999);
  EXPECT_EQ(x->Value(2), 64000);
  EXPECT_EQ(x->Value(4), 3);
  EXPECT_EQ(s->GetString(1), "value-00000005-yyyyyyyyyyyyyyyyyyyyyyyyy");
  const int64_t take_bytes = store->bytes - open_bytes;
  EXPECT_LT(take_bytes, size / 20) << take_bytes << " of " << size;

  // A range inside one batch reads about that batch's share.
  const int64_t before = store->bytes;
  FileReadOptions ro;
  ro.offset = 70000;
  ro.length = 100;
  ASSERT_OK_AND_ASSIGN(auto table, reader->ReadTable(ro));
  ASSERT_EQ(table->num_rows(), 100);
  EXPECT_LT(store->bytes - before, size / 20);
  ASSERT_OK_AND_ASSIGN(auto first, table->CombineBatches());
  EXPECT_EQ(std::static_pointer_cast<Int64Array>(first->column(0))->Value(0), 70000);

  // A full streaming read, in batches that straddle the file's 2000-row batches.
  ro = {};
  ro.batch_size = 3001;
  ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(ro));
  int64_t next = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto b, stream->Next());
    if (!b) break;
    auto xs = std::static_pointer_cast<Int64Array>(b->column(0));
    for (int64_t i = 0; i < b->num_rows(); ++i) ASSERT_EQ(xs->Value(i), next + i);
    next += b->num_rows();
  }
  EXPECT_EQ(next, 128000);
}

}  // namespace
}  // namespace lance::format

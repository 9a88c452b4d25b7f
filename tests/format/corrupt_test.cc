// SPDX-License-Identifier: Apache-2.0
// Damaged files: truncations, seeded byte flips in the footer, the metadata and the
// pages, and metadata that parses but lies (page lengths, buffer positions and sizes,
// every count and width in a 2.1/2.2 page layout, chunk metadata words). Open, Read and
// Take must return a Status naming the file (or, for damage in data values or padding,
// succeed) -- never crash, hang or allocate absurdly. The corpus: files this build writes
// in 2.0, 2.1 and 2.2, files pylance 14.0.2 wrote in 2.1 and 2.2 (tests/data/pylance-14,
// every structural layout and most compressions) and a Lance 8.0.0 fixture of each
// version. Run under ASan+UBSan in CI.

#include <google/protobuf/any.pb.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>

#include "format/proto/encodings_v2_1.pb.h"
#include "lance/core/builder.h"
#include "lance/format/file_reader.h"
#include "lance/format/file_writer.h"
#include "lance/io/memory_object_store.h"
#include "tests/format/file_inspect.h"
#include "tests/format/format_test_util.h"
#include "tests/testing/matchers.h"

namespace lance::format {
namespace {

constexpr char kPath[] = "damaged.lance";

struct Outcome {
  int opened = 0;
  int failed_open = 0;
  int failed_read = 0;
  int read_ok = 0;
  int failed_take = 0;
  int take_ok = 0;
  int take_differs = 0;  ///< Takes that succeeded with other values than the read
};

/// A column of a successful read or Take is structurally valid (offsets, lengths, child
/// sizes); the only thing damage may leave is invalid UTF-8 in string values (the values
/// are not checksummed, and the readers do not re-validate text, as Lance).
void ExpectStructurallyValid(const Array& column) {
  Status st = column.Validate();
  if (!st.ok()) {
    EXPECT_NE(st.message().find("is not valid UTF-8"), std::string::npos)
        << st.ToString();
  }
}

void ExpectNamesFile(const Status& st) {
  EXPECT_NE(st.message().find(kPath), std::string::npos) << st.ToString();
}

/// Row `row` of `table` equals row `k` of `batch`, column by column.
bool RowEquals(const Table& table, int64_t row, const RecordBatch& batch, int64_t k) {
  for (const auto& chunk : table.batches()) {
    if (row >= chunk->num_rows()) {
      row -= chunk->num_rows();
      continue;
    }
    if (chunk->num_columns() != batch.num_columns()) return false;
    for (int c = 0; c < batch.num_columns(); ++c) {
      if (!chunk->column(c)->Slice(row, 1)->Equals(batch.column(c)->Slice(k, 1))) {
        return false;
      }
    }
    return true;
  }
  return false;
}

/// Opens `bytes`, reads it fully (all at once, and in tiny batches unless `quick`) and
/// takes a few rows (first, middle, last, and one twice).
///
/// The rule every damaged copy must follow, each step on its own: a step either fails
/// with a Status naming the file, or its result is checked exactly against what the
/// file's own (possibly damaged) metadata says and against the other steps:
/// - a read that succeeds has exactly num_rows() rows, every column structurally valid;
/// - a tiny-batch read that succeeds equals the one-batch read (when that succeeded);
/// - a Take that succeeds has exactly the 4 rows asked for, structurally valid, and
///   (counted in take_differs, which the tests pin) equal to those rows of the one-batch
///   read when that succeeded.
/// Damage in data values or padding may read successfully (the values are not
/// checksummed); damage to the structure either fails cleanly or stays self-consistent.
void Exercise(const std::string& bytes, Outcome* outcome, bool quick = false) {
  auto store = std::make_shared<io::MemoryObjectStore>();
  ASSERT_OK(store->Put(kPath, bytes));
  auto reader = LanceFileReader::Open(store, kPath);
  if (!reader.ok()) {
    ++outcome->failed_open;
    ExpectNamesFile(reader.status());
    return;
  }
  ++outcome->opened;
  const int64_t n = (*reader)->num_rows();
  std::vector<int64_t> batch_sizes = {int64_t{1} << 20};
  if (!quick) batch_sizes.push_back(3);
  TablePtr whole;  // the one-batch read, when it succeeded
  for (int64_t batch_size : batch_sizes) {
    FileReadOptions options;
    options.batch_size = batch_size;
    auto table = (*reader)->ReadTable(options);
    if (!table.ok()) {
      ++outcome->failed_read;
      ExpectNamesFile(table.status());
      continue;
    }
    ++outcome->read_ok;
    for (const auto& batch : (*table)->batches()) {
      for (const auto& column : batch->columns()) ExpectStructurallyValid(*column);
    }
    EXPECT_EQ((*table)->num_rows(), n) << "a read that succeeds has num_rows() rows";
    if (whole == nullptr) {
      whole = *table;
    } else {
      EXPECT_TRUE((*table)->Equals(*whole))
          << "batch size " << batch_size << " reads other values than one batch";
    }
  }
  if (n <= 0) return;
  const std::vector<int64_t> rows = {n - 1, 0, n / 2, n / 2};
  auto taken = (*reader)->Take(rows);
  if (taken.ok()) {
    ++outcome->take_ok;
    ASSERT_EQ((*taken)->num_rows(), 4);
    for (const auto& column : (*taken)->columns()) ExpectStructurallyValid(*column);
    if (whole != nullptr && whole->num_rows() == n) {
      for (int64_t k = 0; k < 4; ++k) {
        if (!RowEquals(*whole, rows[k], **taken, k)) {
          ++outcome->take_differs;
          break;
        }
      }
    }
  } else {
    ++outcome->failed_take;
    ExpectNamesFile(taken.status());
  }
}

std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

std::string WriteSample(const RecordBatchPtr& batch, int64_t page_bytes,
                        LanceFileVersion version) {
  auto store = std::make_shared<io::MemoryObjectStore>();
  auto ls = LanceSchema::Assign(batch->schema());
  EXPECT_OK(ls.status());
  FileWriterOptions options;
  options.page_bytes = page_bytes;
  options.version = version;
  auto writer = LanceFileWriter::Open(store, "f.lance", *ls, options);
  EXPECT_OK(writer.status());
  EXPECT_OK((*writer)->WriteBatch(*batch));
  EXPECT_OK((*writer)->Close().status());
  auto bytes = store->Read("f.lance");
  EXPECT_OK(bytes.status());
  return std::string((*bytes)->ToStringView());
}

std::string WriteRandomSample(const SchemaPtr& schema, int64_t rows, int64_t page_bytes,
                              uint64_t seed, LanceFileVersion version) {
  auto batch = testing::RandomBatch(schema, rows, seed);
  EXPECT_OK(batch.status());
  return WriteSample(*batch, page_bytes, version);
}

/// Columns that make the 2.1/2.2 writer choose its compressions: bit-packed sorted ints,
/// RLE runs, a dictionary, FSST, values over 32 KiB (full-zip), a constant, all nulls.
RecordBatchPtr CompressiveBatch() {
  constexpr int64_t kRows = 1500;
  Int64Builder sorted;
  Int32Builder runs;
  StringBuilder words, urls;
  BinaryBuilder big;
  Int16Builder constant;
  FloatBuilder nulls;
  const char* const kWords[] = {"alpha", "beta", "gamma", "delta"};
  std::mt19937_64 rng(5);
  for (int64_t i = 0; i < kRows; ++i) {
    EXPECT_OK(sorted.Append(i * 3));
    EXPECT_OK(runs.Append(static_cast<int32_t>(i / 300)));
    EXPECT_OK(i % 13 ? words.Append(kWords[rng() % 4]) : words.AppendNull());
    EXPECT_OK(urls.Append("https://ex.com/" + std::to_string(rng() % 10000) +
                          "?p=" + std::to_string(i % 17)));
    if (i == 7 || i == 900) {
      std::string value;
      for (int k = 0; k < 6000; ++k) value += "lance-";
      EXPECT_OK(big.Append(value));
    } else {
      EXPECT_OK(big.AppendNull());
    }
    EXPECT_OK(constant.Append(42));
    EXPECT_OK(nulls.AppendNull());
  }
  std::vector<ArrayPtr> columns;
  for (ArrayBuilder* b : std::initializer_list<ArrayBuilder*>{
           &sorted, &runs, &words, &urls, &big, &constant, &nulls}) {
    auto a = b->Finish();
    EXPECT_OK(a.status());
    columns.push_back(*a);
  }
  auto s = schema({field("sorted", int64()), field("runs", int32()),
                   field("words", utf8()), field("urls", utf8()), field("big", binary()),
                   field("const", int16()), field("nulls", float32())});
  auto batch = RecordBatch::Make(s, kRows, columns);
  EXPECT_OK(batch.status());
  return *batch;
}

std::vector<std::string> WrittenCorpus(LanceFileVersion version) {
  std::vector<std::string> files;
  files.push_back(WriteRandomSample(
      schema({field("i", int32()), field("s", utf8()), field("b", boolean())}), 20,
      8 << 20, 1, version));
  files.push_back(WriteRandomSample(
      schema({field("l", list(struct_({field("x", int64()), field("y", large_utf8())}))),
              field("v", fixed_size_list(float32(), 4)),
              field("f", fixed_size_binary(3))}),
      12, 8 << 20, 2, version));
  files.push_back(
      WriteRandomSample(schema({field("ll", list(list(int16()))), field("d", date32()),
                                field("st", struct_({field("a", utf8())}))}),
                        60, 200, 3, version));
  if (version != LanceFileVersion::kV2_0) {
    files.push_back(WriteSample(CompressiveBatch(), 8 << 20, version));
  }
  return files;
}

/// Files real Lance wrote: pylance 14.0.2 in 2.1 and 2.2, Lance 8.0.0 in 2.0 and 2.1.
std::vector<std::pair<std::string, std::string>> RealLanceCorpus() {
  const std::string dir = testing::TestDataDir();
  std::vector<std::pair<std::string, std::string>> files;
  for (const char* name :
       {"pylance-14/corrupt_sample_v21.lance", "pylance-14/corrupt_sample_v22.lance",
        "lance-8.0.0/basic_v20_v1names.lance/data/"
        "0100110000000000110011000a056b4c638e9f03e8676ab5e9.lance"}) {
    files.emplace_back(name, ReadFileBytes(dir + "/" + name));
  }
  // The 2.1 fixture's data file (its name is whatever Lance chose).
  const std::string v21 = dir + "/lance-8.0.0/basic_v21_v1names.lance/data";
  for (const auto& entry : std::filesystem::directory_iterator(v21)) {
    files.emplace_back("lance-8.0.0 basic_v21 " + entry.path().filename().string(),
                       ReadFileBytes(entry.path().string()));
    break;
  }
  return files;
}

// ---------------------------------------------------------------------------------------
// Damage to files of each version this build writes.

class CorruptTest : public ::testing::TestWithParam<LanceFileVersion> {};

TEST_P(CorruptTest, SamplesAreValid) {
  for (const auto& f : WrittenCorpus(GetParam())) {
    Outcome o;
    Exercise(f, &o);
    EXPECT_EQ(o.read_ok, 2);
    EXPECT_EQ(o.take_ok, 1);
    EXPECT_EQ(o.take_differs, 0);
  }
}

TEST_P(CorruptTest, TruncationAtEveryOffset) {
  for (const auto& file : WrittenCorpus(GetParam())) {
    Outcome o;
    // Every offset of small files; of larger ones every offset of the metadata and a
    // stride through the pages.
    auto info = testing::InspectFile(file);
    ASSERT_OK(info.status());
    const size_t dense_from = file.size() < 8192 ? 0 : info->descriptor_pos;
    for (size_t n = 0; n < file.size(); n += (n < dense_from ? 97 : 1)) {
      Exercise(file.substr(0, n), &o, /*quick=*/true);
      // Truncated files lose their footer: nothing may open.
      ASSERT_EQ(o.opened, 0) << "truncated to " << n << " of " << file.size();
    }
    // Also drop bytes from the front, which keeps the footer but shifts everything.
    for (size_t n = 1; n < file.size(); n += (file.size() < 8192 ? 7 : 211)) {
      Exercise(file.substr(n), &o, /*quick=*/true);
    }
    EXPECT_EQ(o.take_differs, 0);
  }
}

/// Flips one to three random bytes (sometimes a single bit) of `file` in [begin, end),
/// `flips` times, and exercises each damaged copy.
/// How many times more damaged copies than the default the flip tests try: 1 unless
/// LANCE_CORRUPT_SCALE says otherwise (`make fuzz` runs them at 20).
int FlipScale() {
  const char* env = std::getenv("LANCE_CORRUPT_SCALE");
  const int scale = env != nullptr ? std::atoi(env) : 1;
  return scale > 0 ? scale : 1;
}

Outcome FlipBytes(const std::string& file, size_t begin, size_t end, int flips,
                  std::mt19937_64* rng, bool quick = false) {
  flips *= FlipScale();
  Outcome o;
  if (end <= begin) return o;
  std::uniform_int_distribution<size_t> where(begin, end - 1);
  for (int i = 0; i < flips; ++i) {
    std::string damaged = file;
    const int count = 1 + static_cast<int>((*rng)() % 3);
    for (int k = 0; k < count; ++k) {
      const size_t pos = where(*rng);
      if ((*rng)() % 2) {
        damaged[pos] = static_cast<char>(damaged[pos] ^ (1 << ((*rng)() % 8)));
      } else {
        damaged[pos] = static_cast<char>((*rng)());
      }
    }
    Exercise(damaged, &o, quick);
  }
  return o;
}

TEST_P(CorruptTest, SeededByteFlips) {
  std::mt19937_64 rng(20240611);
  for (const auto& file : WrittenCorpus(GetParam())) {
    auto info = testing::InspectFile(file);
    ASSERT_OK(info.status());
    const size_t meta_start = info->descriptor_pos;
    // Footer, metadata (descriptor, column metadata, tables) and page data.
    Outcome footer = FlipBytes(file, file.size() - 40, file.size(), 300, &rng);
    Outcome meta = FlipBytes(file, meta_start, file.size() - 40, 800, &rng);
    Outcome pages = FlipBytes(file, 0, meta_start, 300, &rng);
    // Every damaged copy followed the rule of Exercise(); Take and the read always agree.
    EXPECT_EQ(footer.take_differs + meta.take_differs + pages.take_differs, 0);
    // Some metadata damage is detected rather than read as data.
    EXPECT_GT(footer.failed_open + meta.failed_open + meta.failed_read, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Versions, CorruptTest,
                         ::testing::Values(LanceFileVersion::kV2_0,
                                           LanceFileVersion::kV2_1,
                                           LanceFileVersion::kV2_2),
                         [](const auto& info) {
                           std::string v(FileVersionString(info.param));
                           return "V" + v.replace(v.find('.'), 1, "_");
                         });

// ---------------------------------------------------------------------------------------
// Damage to files real Lance wrote.

TEST(CorruptRealLance, TruncationsAndFlips) {
  std::mt19937_64 rng(7);
  for (const auto& [name, file] : RealLanceCorpus()) {
    SCOPED_TRACE(name);
    auto info = testing::InspectFile(file);
    ASSERT_OK(info.status());
    Outcome intact;
    Exercise(file, &intact);
    ASSERT_EQ(intact.read_ok, 2);
    ASSERT_EQ(intact.take_ok, 1);
    const size_t meta_start = info->descriptor_pos;
    Outcome meta = FlipBytes(file, meta_start, file.size(), 600, &rng, /*quick=*/true);
    EXPECT_GT(meta.failed_open + meta.failed_read + meta.failed_take, 0);
    // Metadata damage: Take and the read always agree. Page damage garbles values,
    // which may legitimately decode differently on the random-access path (pylance's
    // 2.1/2.2 samples: 7 and 1 of 400), so only the rest of the rule applies there.
    EXPECT_EQ(meta.take_differs, 0);
    Outcome pages = FlipBytes(file, 0, meta_start, 400, &rng, /*quick=*/true);
    std::cout << "[ info ] " << name << ": Take differs from the read in "
              << pages.take_differs << " of 400 page flips\n";
    Outcome truncated;
    for (size_t n = 0; n < file.size(); n += 1 + file.size() / 300) {
      Exercise(file.substr(0, n), &truncated, /*quick=*/true);
    }
    EXPECT_EQ(truncated.opened, 0);
  }
}

// ---------------------------------------------------------------------------------------
// Metadata that parses but lies: every page's length, buffer positions and sizes, and
// (2.1/2.2) every number, width, enum and byte string of its page layout, rewritten into
// a well-formed file. Then the first words of every page buffer (chunk metadata,
// repetition index, dictionary, full-zip control words) overwritten with extreme values.

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

/// Calls `mutate(copy)` for each lie told about one integer / enum / bytes field
/// reachable in `message` (recursively, through set sub-messages and repeated elements),
/// plus the removal of each set sub-message.
void ForEachLie(const Message& message,
                const std::function<void(const std::function<void(Message*)>&)>& visit,
                const std::function<Message*(Message*)>& locate) {
  const auto* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* f : fields) {
    auto at = [locate](Message* root) { return locate(root); };
    if (f->is_repeated()) {
      const int n = reflection->FieldSize(message, f);
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        for (int i = 0; i < n; ++i) {
          ForEachLie(reflection->GetRepeatedMessage(message, f, i), visit,
                     [at, f, i](Message* root) {
                       Message* m = at(root);
                       return m->GetReflection()->MutableRepeatedMessage(m, f, i);
                     });
        }
        continue;
      }
      // Drop the last element, add one, and (enums) set each to an unknown value.
      visit([at, f](Message* root) {
        Message* m = at(root);
        m->GetReflection()->RemoveLast(m, f);
      });
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_ENUM) {
        visit([at, f](Message* root) {
          Message* m = at(root);
          m->GetReflection()->AddEnumValue(m, f, 4);
        });
        for (int i = 0; i < n; ++i) {
          for (int value : {0, 1, 6, 99}) {
            visit([at, f, i, value](Message* root) {
              Message* m = at(root);
              m->GetReflection()->SetRepeatedEnumValue(m, f, i, value);
            });
          }
        }
      }
      continue;
    }
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_MESSAGE:
        visit([at, f](Message* root) {
          Message* m = at(root);
          m->GetReflection()->ClearField(m, f);
        });
        ForEachLie(reflection->GetMessage(message, f), visit, [at, f](Message* root) {
          Message* m = at(root);
          return m->GetReflection()->MutableMessage(m, f);
        });
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
      case FieldDescriptor::CPPTYPE_UINT64: {
        const bool is64 = f->cpp_type() == FieldDescriptor::CPPTYPE_UINT64;
        const uint64_t v =
            is64 ? reflection->GetUInt64(message, f) : reflection->GetUInt32(message, f);
        for (uint64_t lie : {uint64_t{0}, uint64_t{1}, v - 1, v + 1, v * 2 + 3,
                             uint64_t{0xFFFFFFFF}, uint64_t{1} << 40, ~uint64_t{0}}) {
          if (lie == v) continue;
          visit([at, f, lie, is64](Message* root) {
            Message* m = at(root);
            if (is64) {
              m->GetReflection()->SetUInt64(m, f, lie);
            } else {
              m->GetReflection()->SetUInt32(m, f, static_cast<uint32_t>(lie));
            }
          });
        }
        break;
      }
      case FieldDescriptor::CPPTYPE_BOOL:
        visit([at, f](Message* root) {
          Message* m = at(root);
          m->GetReflection()->SetBool(m, f, !m->GetReflection()->GetBool(*m, f));
        });
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        for (int value : {0, 2, 99}) {
          visit([at, f, value](Message* root) {
            Message* m = at(root);
            m->GetReflection()->SetEnumValue(m, f, value);
          });
        }
        break;
      case FieldDescriptor::CPPTYPE_STRING: {
        const std::string v = reflection->GetString(message, f);
        for (size_t keep : {size_t{0}, v.size() / 2, v.size() > 0 ? v.size() - 1 : 0}) {
          visit([at, f, keep](Message* root) {
            Message* m = at(root);
            const std::string s = m->GetReflection()->GetString(*m, f);
            m->GetReflection()->SetString(m, f, s.substr(0, keep));
          });
        }
        break;
      }
      default:
        break;
    }
  }
}

using Columns = std::vector<lance::file::v2::ColumnMetadata>;

/// Every lying variant of `file`'s metadata, one at a time: `damage(copy)` then rebuild.
void ForEachLyingFile(const std::string& file, const testing::FileInfo& info,
                      const std::function<void(const std::string&)>& use) {
  using Page = lance::file::v2::ColumnMetadata::Page;
  auto rebuild = [&](const std::function<void(Columns*)>& damage) {
    Columns columns = info.columns;
    damage(&columns);
    use(testing::RebuildFile(file, info, columns));
  };
  const uint64_t size = file.size();
  for (size_t c = 0; c < info.columns.size(); ++c) {
    for (int p = 0; p < info.columns[c].pages_size(); ++p) {
      const Page& page = info.columns[c].pages(p);
      auto page_at = [c, p](Columns* cols) { return (*cols)[c].mutable_pages(p); };
      for (uint64_t lie :
           {uint64_t{0}, page.length() - 1, page.length() + 1, uint64_t{1} << 40}) {
        rebuild([&](Columns* cols) { page_at(cols)->set_length(lie); });
      }
      for (int b = 0; b < page.buffer_sizes_size(); ++b) {
        const uint64_t bsize = page.buffer_sizes(b);
        const uint64_t boff = page.buffer_offsets(b);
        for (uint64_t lie : {uint64_t{0}, bsize - 1, bsize + 1, size, ~uint64_t{0}}) {
          rebuild([&](Columns* cols) { page_at(cols)->set_buffer_sizes(b, lie); });
        }
        for (uint64_t lie : {boff + 1, size - 1, uint64_t{1} << 62}) {
          rebuild([&](Columns* cols) { page_at(cols)->set_buffer_offsets(b, lie); });
        }
      }
      rebuild([&](Columns* cols) { page_at(cols)->clear_buffer_sizes(); });
      // The page layout (2.1/2.2): parse, lie, re-serialize.
      google::protobuf::Any any;
      if (!any.ParseFromString(page.encoding().direct().encoding())) continue;
      lance::encodings21::PageLayout layout;
      if (!any.type_url().ends_with("PageLayout") ||
          !layout.ParseFromString(any.value())) {
        continue;
      }
      ForEachLie(
          layout,
          [&](const std::function<void(Message*)>& lie) {
            lance::encodings21::PageLayout damaged = layout;
            lie(&damaged);
            google::protobuf::Any wrapped = any;
            wrapped.set_value(damaged.SerializeAsString());
            rebuild([&](Columns* cols) {
              page_at(cols)->mutable_encoding()->mutable_direct()->set_encoding(
                  wrapped.SerializeAsString());
            });
          },
          [](Message* root) { return root; });
    }
  }
}

std::vector<std::pair<std::string, std::string>> StructuralCorpus() {
  auto files = RealLanceCorpus();
  files.erase(files.begin() + 2);  // the 2.0 fixture (its lies are covered by flips)
  for (LanceFileVersion v : {LanceFileVersion::kV2_1, LanceFileVersion::kV2_2}) {
    int i = 0;
    for (auto& f : WrittenCorpus(v)) {
      files.emplace_back(
          "written " + std::string(FileVersionString(v)) + " #" + std::to_string(i++),
          std::move(f));
    }
  }
  return files;
}

// Calls fn(name, file, info) for each file of StructuralCorpus() with its inspection,
// under a trace naming the file; stops at the first file that cannot be inspected.
template <typename Fn>
void ForEachStructuralFile(Fn&& fn) {
  for (const auto& [name, file] : StructuralCorpus()) {
    SCOPED_TRACE(name);
    auto info = testing::InspectFile(file);
    ASSERT_OK(info.status());
    fn(name, file, *info);
  }
}

TEST(CorruptStructural, LyingPageMetadata) {
  int variants = 0;
  ASSERT_NO_FATAL_FAILURE(ForEachStructuralFile(
      [&](const std::string&, const std::string& file, const auto& info) {
        Outcome o;
        ForEachLyingFile(file, info, [&](const std::string& damaged) {
          Exercise(damaged, &o, /*quick=*/true);
          ++variants;
        });
        // Every lie followed the rule of Exercise() (some are harmless: a priority, a
        // wider-than-needed width); Take and the read always agree.
        EXPECT_EQ(o.take_differs, 0);
        EXPECT_GT(o.failed_open + o.failed_read + o.failed_take, 0)
            << "opened " << o.opened << " read_ok " << o.read_ok;
      }));
  EXPECT_GT(variants, 3000);
}

TEST(CorruptStructural, LyingChunkMetadataWords) {
  // The first bytes of every page buffer hold the chunk metadata words (mini-block),
  // the repetition index, dictionary offsets or full-zip control words: overwrite each of
  // the first 16 two-byte words with 0x0000, 0xFFFF and 0x8000, and each of the first 8
  // four-byte words with 0xFFFFFFFF.
  int variants = 0;
  ASSERT_NO_FATAL_FAILURE(ForEachStructuralFile(
      [&](const std::string& name, const std::string& file, const auto& info) {
        Outcome o;
        for (const auto& column : info.columns) {
          for (const auto& page : column.pages()) {
            for (int b = 0; b < page.buffer_sizes_size(); ++b) {
              const size_t off = page.buffer_offsets(b);
              const size_t len = page.buffer_sizes(b);
              for (size_t w = 0; w < 16 && 2 * w + 2 <= len; ++w) {
                for (uint16_t value : {uint16_t{0}, uint16_t{0xFFFF}, uint16_t{0x8000}}) {
                  std::string damaged = file;
                  std::memcpy(damaged.data() + off + 2 * w, &value, 2);
                  if (damaged == file) continue;
                  Exercise(damaged, &o, /*quick=*/true);
                  ++variants;
                }
              }
              for (size_t w = 0; w < 8 && 4 * w + 4 <= len; ++w) {
                std::string damaged = file;
                const uint32_t value = 0xFFFFFFFF;
                std::memcpy(damaged.data() + off + 4 * w, &value, 4);
                Exercise(damaged, &o, /*quick=*/true);
                ++variants;
              }
            }
          }
        }
        EXPECT_GT(o.failed_read + o.failed_take, 0) << name;
        EXPECT_EQ(o.take_differs, 0) << name;
      }));
  EXPECT_GT(variants, 2000);
}

}  // namespace
}  // namespace lance::format

// SPDX-License-Identifier: Apache-2.0
// Damaged files: truncations at every offset and seeded byte flips in the footer, the
// metadata and the pages. Open and Read must return a Status naming the file (or, for
// damage in data values or padding, succeed) -- never crash, hang or allocate absurdly.
// Run under ASan+UBSan in CI.

#include <gtest/gtest.h>

#include <chrono>
#include <random>

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
};

/// Opens and fully reads `bytes` (twice: all at once and in tiny batches).
void Exercise(const std::string& bytes, Outcome* outcome) {
  auto store = std::make_shared<io::MemoryObjectStore>();
  ASSERT_OK(store->Put(kPath, bytes));
  auto reader = LanceFileReader::Open(store, kPath);
  if (!reader.ok()) {
    ++outcome->failed_open;
    EXPECT_NE(reader.status().message().find(kPath), std::string::npos)
        << reader.status().ToString();
    return;
  }
  ++outcome->opened;
  for (int64_t batch_size : {int64_t{1} << 20, int64_t{3}}) {
    FileReadOptions ro;
    ro.batch_size = batch_size;
    auto stream = (*reader)->Read(ro);
    Status st = stream.status();
    if (st.ok()) {
      while (true) {
        auto batch = (*stream)->Next();
        if (!batch.ok()) {
          st = batch.status();
          break;
        }
        if (*batch == nullptr) break;
        // Touch every value so that bad offsets would show up under the sanitizers.
        for (const auto& column : (*batch)->columns()) (void)column->Validate();
      }
    }
    if (st.ok()) {
      ++outcome->read_ok;
    } else {
      ++outcome->failed_read;
      EXPECT_NE(st.message().find(kPath), std::string::npos) << st.ToString();
    }
  }
}

class CorruptTest : public ::testing::Test {
 protected:
  static std::string WriteSample(const SchemaPtr& schema, int64_t rows,
                                 int64_t page_bytes, uint64_t seed) {
    auto store = std::make_shared<io::MemoryObjectStore>();
    auto ls = LanceSchema::Assign(schema);
    EXPECT_OK(ls.status());
    FileWriterOptions options;
    options.page_bytes = page_bytes;
    auto writer = LanceFileWriter::Open(store, "f.lance", *ls, options);
    EXPECT_OK(writer.status());
    auto batch = testing::RandomBatch(schema, rows, seed);
    EXPECT_OK(batch.status());
    EXPECT_OK((*writer)->WriteBatch(**batch));
    EXPECT_OK((*writer)->Close().status());
    auto bytes = store->Read("f.lance");
    EXPECT_OK(bytes.status());
    return std::string((*bytes)->ToStringView());
  }

  static std::vector<std::string> Corpus() {
    std::vector<std::string> files;
    files.push_back(WriteSample(
        schema({field("i", int32()), field("s", utf8()), field("b", boolean())}), 20,
        8 << 20, 1));
    files.push_back(WriteSample(
        schema(
            {field("l", list(struct_({field("x", int64()), field("y", large_utf8())}))),
             field("v", fixed_size_list(float32(), 4)),
             field("f", fixed_size_binary(3))}),
        12, 8 << 20, 2));
    files.push_back(
        WriteSample(schema({field("ll", list(list(int16()))), field("d", date32()),
                            field("st", struct_({field("a", utf8())}))}),
                    60, 200, 3));
    return files;
  }
};

TEST_F(CorruptTest, SamplesAreValid) {
  for (const auto& f : Corpus()) {
    Outcome o;
    Exercise(f, &o);
    EXPECT_EQ(o.read_ok, 2);
  }
}

TEST_F(CorruptTest, TruncationAtEveryOffset) {
  for (const auto& file : Corpus()) {
    Outcome o;
    for (size_t n = 0; n < file.size(); ++n) {
      Exercise(file.substr(0, n), &o);
      // Truncated files lose their footer: nothing may open.
      ASSERT_EQ(o.opened, 0) << "truncated to " << n << " of " << file.size();
    }
    // Also drop bytes from the front, which keeps the footer but shifts everything.
    for (size_t n = 1; n < file.size(); n += 7) Exercise(file.substr(n), &o);
  }
}

TEST_F(CorruptTest, SeededByteFlips) {
  const auto start = std::chrono::steady_clock::now();
  std::mt19937_64 rng(20240611);
  int total = 0;
  for (const auto& file : Corpus()) {
    auto info = testing::InspectFile(file);
    ASSERT_OK(info.status());
    const size_t meta_start = info->descriptor_pos;
    struct Region {
      size_t begin, end;
      int flips;
    };
    // Footer, metadata (descriptor, column metadata, tables) and page data.
    const std::vector<Region> regions = {{file.size() - 40, file.size(), 600},
                                         {meta_start, file.size() - 40, 1500},
                                         {0, meta_start, 600}};
    Outcome o;
    for (const Region& r : regions) {
      if (r.end <= r.begin) continue;
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
    }
    // Most metadata damage must be detected rather than read as data.
    EXPECT_GT(o.failed_open + o.failed_read, 0);
  }
  EXPECT_EQ(total, 3 * 2700);
  // A hang would show up here long before the ctest timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::minutes(5));
}

TEST_F(CorruptTest, FixtureMetadataFlips) {
  // A real Lance file (dictionary, struct, list, fixed_size_list pages): flips in its
  // metadata and at sampled truncation points.
  const std::string path = testing::TestDataDir() +
                           "/lance-8.0.0/basic_v20_v1names.lance/data/"
                           "0100110000000000110011000a056b4c638e9f03e8676ab5e9.lance";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << path;
  const std::string file((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  auto info = testing::InspectFile(file);
  ASSERT_OK(info.status());
  Outcome o;
  Exercise(file, &o);
  ASSERT_EQ(o.read_ok, 2);
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<size_t> meta(info->descriptor_pos, file.size() - 1);
  std::uniform_int_distribution<size_t> data(0, info->descriptor_pos - 1);
  for (int i = 0; i < 800; ++i) {
    std::string damaged = file;
    const size_t pos = i % 4 == 0 ? data(rng) : meta(rng);
    damaged[pos] = static_cast<char>(damaged[pos] ^ (1 + rng() % 255));
    Exercise(damaged, &o);
  }
  for (size_t n = 0; n < file.size(); n += file.size() / 200)
    Exercise(file.substr(0, n), &o);
}

}  // namespace
}  // namespace lance::format

// SPDX-License-Identifier: Apache-2.0
// Hand-made hostile inputs for every parser the fuzz targets cover: huge counts, lengths
// and offsets past the end, negative sizes, deep nesting. Each must come back as a clean
// error Status (under ASan+UBSan in the sanitizer build: no crash, no overflow, no
// multi-gigabyte allocation). They go through the same target bodies as the fuzzers
// (fuzz_entries.h), built from the real files of the seed corpus where a valid frame is
// needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_entries.h"
#include "lance/io/memory_object_store.h"
#include "table/proto/table.pb.h"
#include "table/proto/transaction.pb.h"

namespace lance::fuzz {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The first file under tests/data (recursively) whose path ends with `suffix` and
// contains `part`.
std::string FixtureLike(const std::string& part, const std::string& suffix) {
  std::vector<fs::path> found;
  for (const auto& e : fs::recursive_directory_iterator(LANCE_TEST_DATA_DIR)) {
    const std::string p = e.path().string();
    if (e.is_regular_file() && p.find(part) != std::string::npos &&
        p.size() >= suffix.size() &&
        p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0) {
      found.push_back(e.path());
    }
  }
  std::sort(found.begin(), found.end());
  if (found.empty()) {
    ADD_FAILURE() << "no fixture like *" << part << "*" << suffix;
    return "";
  }
  return ReadAll(found.front());
}

template <typename T>
void Poke(std::string* bytes, size_t pos, T value) {
  ASSERT_LE(pos + sizeof(T), bytes->size());
  std::memcpy(bytes->data() + pos, &value, sizeof(T));
}

template <typename T>
T Peek(const std::string& bytes, size_t pos) {
  T v{};
  std::memcpy(&v, bytes.data() + pos, sizeof(T));
  return v;
}

// The input must be refused with an error Status (reaching here at all means no crash).
#define EXPECT_CLEAN_ERROR(expr) \
  EXPECT_FALSE(::lance::Status(expr).ok()) << #expr << " accepted a hostile input "

// ---- manifests: [u32 len][Manifest][sections][u64 pos][u16 major][u16 minor]["LANC"]

std::string ManifestFile(const table::Manifest& m, uint64_t pos_delta = 0) {
  std::string body = m.SerializeAsString();
  std::string out;
  const uint32_t len = static_cast<uint32_t>(body.size());
  out.append(reinterpret_cast<const char*>(&len), 4);
  out += body;
  const uint64_t pos = 0 + pos_delta;
  out.append(reinterpret_cast<const char*>(&pos), 8);
  const uint16_t major = 0, minor = 2;
  out.append(reinterpret_cast<const char*>(&major), 2);
  out.append(reinterpret_cast<const char*>(&minor), 2);
  out += "LANC";
  return out;
}

table::Manifest OneColumnManifest() {
  table::Manifest m;
  AddTopLevelField(&m, "x", 0, "int64", /*nullable=*/false);
  m.set_version(1);
  return m;
}

TEST(LyingLengths, ManifestFooterOffsetPastEnd) {
  std::string bytes = FixtureLike("basic_v21", ".manifest");
  const size_t footer = bytes.size() - 16;
  for (uint64_t pos : {uint64_t{bytes.size()}, uint64_t{bytes.size()} * 2, ~uint64_t{0},
                       ~uint64_t{0} - 3, uint64_t{footer} - 3}) {
    std::string b = bytes;
    Poke<uint64_t>(&b, footer, pos);
    EXPECT_CLEAN_ERROR(FuzzManifest(b));
  }
}

TEST(LyingLengths, ManifestMessageLengthLies) {
  std::string bytes = FixtureLike("basic_v21", ".manifest");
  const uint64_t pos = Peek<uint64_t>(bytes, bytes.size() - 16);
  for (uint32_t len : {0xFFFFFFFFu, 0x7FFFFFFFu, 0u}) {
    std::string b = bytes;
    Poke<uint32_t>(&b, pos, len);
    EXPECT_CLEAN_ERROR(FuzzManifest(b));
  }
  EXPECT_CLEAN_ERROR(FuzzManifest(bytes.substr(0, bytes.size() - 17) + "LANC"));
  EXPECT_CLEAN_ERROR(FuzzManifest("LANC"));
}

TEST(LyingLengths, ManifestSectionOffsetsPastEnd) {
  for (uint64_t at : {uint64_t{1} << 40, ~uint64_t{0}, uint64_t{3}}) {
    table::Manifest m = OneColumnManifest();
    m.set_index_section(at);
    EXPECT_CLEAN_ERROR(FuzzManifest(ManifestFile(m)));
    table::Manifest t = OneColumnManifest();
    t.set_transaction_section(at);
    EXPECT_CLEAN_ERROR(FuzzManifest(ManifestFile(t)));
  }
}

TEST(LyingLengths, ManifestSchemaCyclesAndDeepNesting) {
  table::Manifest cycle = OneColumnManifest();
  cycle.mutable_fields(0)->set_parent_id(0);  // its own parent
  EXPECT_CLEAN_ERROR(FuzzManifest(ManifestFile(cycle)));

  table::Manifest deep;
  deep.set_version(1);
  for (int i = 0; i < 20000; ++i) {
    auto* f = deep.add_fields();
    f->set_name("s");
    f->set_id(i);
    f->set_parent_id(i - 1);
    f->set_logical_type("struct");
  }
  EXPECT_CLEAN_ERROR(FuzzManifest(ManifestFile(deep)));

  table::Manifest huge_ids = OneColumnManifest();
  huge_ids.mutable_fields(0)->set_id(-5);
  EXPECT_CLEAN_ERROR(FuzzManifest(ManifestFile(huge_ids)));
}

TEST(LyingLengths, ManifestFragmentCountsLie) {
  // A data file listing more fields than columns, and huge row counts: opening is
  // rejected or succeeds without trusting the counts (no allocation by them).
  table::Manifest m = OneColumnManifest();
  auto* frag = m.add_fragments();
  frag->set_id(~uint64_t{0});
  frag->set_physical_rows(~uint64_t{0});
  auto* file = frag->add_files();
  file->set_path("a.lance");
  file->add_fields(0);
  file->add_fields(1);
  file->add_column_indices(0);
  file->set_file_major_version(2);
  EXPECT_CLEAN_ERROR(FuzzManifest(ManifestFile(m)));
}

// ---- transactions

TEST(LyingLengths, TransactionHugeIdsAndCounts) {
  table::Transaction del;
  del.set_read_version(~uint64_t{0});
  auto* d = del.mutable_delete_();
  d->add_deleted_fragment_ids(~uint64_t{0});
  d->add_deleted_fragment_ids(12345678);
  EXPECT_CLEAN_ERROR(FuzzTransaction(del.SerializeAsString()));

  // An Append of a fragment whose file lists fields without columns.
  table::Transaction append;
  auto* frag = append.mutable_append()->add_fragments();
  frag->set_physical_rows(~uint64_t{0});
  auto* file = frag->add_files();
  file->set_path("x.lance");
  file->add_fields(0);
  file->set_file_major_version(2);
  (void)FuzzTransaction(append.SerializeAsString());  // must not crash

  // Not a protobuf: a length-delimited field claiming 2 GiB.
  EXPECT_CLEAN_ERROR(FuzzTransaction(std::string("\x0a\xff\xff\xff\xff\x07", 6)));
  EXPECT_CLEAN_ERROR(FuzzTransaction(std::string("\xa2\x06\xff\xff\xff\xff\x0f", 7)));
}

TEST(LyingLengths, TransactionDeepSchema) {
  table::Transaction overwrite;
  auto* o = overwrite.mutable_overwrite();
  for (int i = 0; i < 20000; ++i) {
    auto* f = o->add_schema();
    f->set_name("l");
    f->set_id(i);
    f->set_parent_id(i - 1);
    f->set_logical_type(i % 2 ? "list" : "struct");
  }
  EXPECT_CLEAN_ERROR(FuzzTransaction(overwrite.SerializeAsString()));
}

// ---- deletion files

std::string RoaringHeader(uint32_t cookie, uint32_t containers) {
  std::string out;
  out.append(reinterpret_cast<const char*>(&cookie), 4);
  out.append(reinterpret_cast<const char*>(&containers), 4);
  return out;
}

TEST(LyingLengths, RoaringHugeContainerCount) {
  // No-run cookie 12346 with 2^31 containers and nothing behind it.
  EXPECT_CLEAN_ERROR(FuzzDeletion("\x01" + RoaringHeader(12346, 0x80000000u)));
  EXPECT_CLEAN_ERROR(FuzzDeletion("\x01" + RoaringHeader(12346, 0xFFFFFFFFu)));
  // Run cookie 12347 with 65536 containers (count-1 in the high half).
  EXPECT_CLEAN_ERROR(FuzzDeletion("\x01" + RoaringHeader(12347 | (0xFFFFu << 16), 0)));
}

TEST(LyingLengths, RoaringOffsetsAndCardinalitiesLie) {
  // One array container (key 0, cardinality 65536) whose offset points past the end.
  std::string b = RoaringHeader(12346, 1);
  const uint16_t key = 0, card_minus_one = 0xFFFF;
  b.append(reinterpret_cast<const char*>(&key), 2);
  b.append(reinterpret_cast<const char*>(&card_minus_one), 2);
  const uint32_t offset = 0xFFFFFF00u;
  b.append(reinterpret_cast<const char*>(&offset), 4);
  EXPECT_CLEAN_ERROR(FuzzDeletion("\x01" + b));
  EXPECT_CLEAN_ERROR(FuzzDeletion("\x03" + b));
  // A run container whose run goes past 65535.
  std::string r = RoaringHeader(12347, 0);  // runs: 1 container
  r.push_back('\x01');                      // run bitmap: container 0 is a run
  r.append(reinterpret_cast<const char*>(&key), 2);
  const uint16_t card = 0;
  r.append(reinterpret_cast<const char*>(&card), 2);
  const uint16_t runs = 1, start = 0xFFF0, length = 0xFFFF;
  r.append(reinterpret_cast<const char*>(&runs), 2);
  r.append(reinterpret_cast<const char*>(&start), 2);
  r.append(reinterpret_cast<const char*>(&length), 2);
  EXPECT_CLEAN_ERROR(FuzzDeletion("\x01" + r));
  // A real bitmap, truncated at every length.
  const std::string real = FixtureLike("_deletions", ".bin");
  for (size_t n = 0; n + 1 < real.size(); n += std::max<size_t>(1, real.size() / 64)) {
    EXPECT_CLEAN_ERROR(FuzzDeletion("\x01" + real.substr(0, n)));
  }
}

TEST(LyingLengths, DeletionArrowRowsPastFragment) {
  // A real .arrow deletion file with its physical row count set below its offsets.
  const std::string real = FixtureLike("_deletions", ".arrow");
  ASSERT_TRUE(FuzzDeletion(std::string("\x00", 1) + real).ok());
  for (size_t n = 0; n + 1 < real.size(); n += std::max<size_t>(1, real.size() / 64)) {
    EXPECT_CLEAN_ERROR(FuzzDeletion(std::string("\x00", 1) + real.substr(0, n)));
  }
}

// ---- Lance files: the v2 footer's offsets and counts, the legacy metadata position

void ExpectFooterFieldsChecked(const std::string& file) {
  ASSERT_GE(file.size(), 40u);
  ASSERT_TRUE(FuzzLanceFile(file).ok()) << "the unmodified file must read";
  const size_t footer = file.size() - 40;
  const uint64_t size = file.size();
  for (size_t field : {0, 8, 16}) {
    for (uint64_t v :
         {size, size * 4, ~uint64_t{0}, ~uint64_t{0} - 7, uint64_t{1} << 63}) {
      std::string b = file;
      Poke<uint64_t>(&b, footer + field, v);
      EXPECT_CLEAN_ERROR(FuzzLanceFile(b)) << "footer field at +" << field << " = " << v;
    }
  }
  for (size_t field : {24, 28}) {
    for (uint32_t v : {0x7FFFFFFFu, 0xFFFFFFFFu, 1u << 20}) {
      std::string b = file;
      Poke<uint32_t>(&b, footer + field, v);
      EXPECT_CLEAN_ERROR(FuzzLanceFile(b)) << "footer count at +" << field << " = " << v;
    }
  }
  // Truncated copies that keep the footer (offsets then point past the end).
  for (size_t cut : {size_t{64}, file.size() / 2, file.size() - 41}) {
    if (cut >= file.size() - 40) continue;
    EXPECT_CLEAN_ERROR(FuzzLanceFile(file.substr(cut)));
  }
}

TEST(LyingLengths, LanceFileV20FooterLies) {
  ExpectFooterFieldsChecked(FixtureLike("basic_v20_v2names.lance/data", ".lance"));
}

TEST(LyingLengths, LanceFileV21FooterLies) {
  ExpectFooterFieldsChecked(FixtureLike("bitmap_del_v21.lance/data", ".lance"));
}

TEST(LyingLengths, LanceFileLegacyMetadataPositionLies) {
  const std::string file = FixtureLike("legacy/all_types.lance/data", ".lance");
  ASSERT_GE(file.size(), 16u);
  const size_t footer = file.size() - 16;
  for (uint64_t v : {uint64_t{file.size()}, ~uint64_t{0}, uint64_t{1} << 63,
                     uint64_t{file.size()} - 17}) {
    std::string b = file;
    Poke<uint64_t>(&b, footer, v);
    EXPECT_CLEAN_ERROR(FuzzLanceFile(b)) << v;
  }
}

// ---- Arrow IPC: stream message lengths, file footer length

TEST(LyingLengths, IpcStreamMessageLengths) {
  for (uint32_t len : {0x7FFFFFFFu, 0x80000000u, 0xFFFFFFF0u}) {
    std::string b("\x01\xff\xff\xff\xff", 5);  // mode byte: stream; continuation marker
    b.append(reinterpret_cast<const char*>(&len), 4);
    b += std::string(16, '\0');
    EXPECT_CLEAN_ERROR(FuzzArrowIpc(b));
  }
  // The legacy (pre-0.15) framing without the continuation marker, negative length.
  EXPECT_CLEAN_ERROR(FuzzArrowIpc(std::string("\x01\xf0\xff\xff\xff", 5) + "xxxxxxxx"));
}

TEST(LyingLengths, IpcFileFooterLength) {
  const std::string real = FixtureLike("_deletions", ".arrow");
  ASSERT_GE(real.size(), 16u);
  // [... footer][i32 footer length]["ARROW1"]
  const size_t len_at = real.size() - 10;
  for (int32_t len : {-1, -100000, 0x7FFFFFFF, static_cast<int32_t>(real.size())}) {
    std::string b = real;
    Poke<int32_t>(&b, len_at, len);
    EXPECT_CLEAN_ERROR(FuzzArrowIpc(std::string("\x00", 1) + b)) << len;
  }
  for (size_t n = 8; n < real.size(); n += std::max<size_t>(1, real.size() / 48)) {
    // Head cut off: the footer's block offsets now point past the data.
    EXPECT_CLEAN_ERROR(
        FuzzArrowIpc(std::string("\x00", 1) + "ARROW1\0\0" + real.substr(n)));
  }
}

// ---- S3 / STS XML

std::string Nested(const std::string& open, const std::string& close, int depth,
                   const std::string& inner = "") {
  std::string out;
  for (int i = 0; i < depth; ++i) out += open;
  out += inner;
  for (int i = 0; i < depth; ++i) out += close;
  return out;
}

TEST(LyingLengths, S3XmlDeepNesting) {
  const std::string deep = Nested("<a>", "</a>", 100000);
  for (char mode = 0; mode < 8; ++mode) {
    // Header parsers (5, 6) read no XML; an error body that does not parse is no error
    // body (1).
    if (mode == 1 || mode == 5 || mode == 6) continue;
    EXPECT_CLEAN_ERROR(FuzzS3Xml(std::string(1, mode) + "\x00" + deep)) << int(mode);
  }
  EXPECT_CLEAN_ERROR(FuzzS3Xml(std::string("\x07\x00", 2) + Nested("<a>", "", 100000)));
}

TEST(LyingLengths, S3ListHugeNumbers) {
  const std::string prefix("\x00\x00", 2);
  for (const char* size :
       {"99999999999999999999999", "-1", "9223372036854775808", "1e3"}) {
    EXPECT_CLEAN_ERROR(FuzzS3Xml(prefix +
                                 "<ListBucketResult><Contents><Key>k</Key><Size>" + size +
                                 "</Size></Contents></ListBucketResult>"))
        << size;
  }
  EXPECT_CLEAN_ERROR(FuzzS3Xml(prefix + "<ListBucketResult><KeyCount>&#99999999999;"
                                        "</KeyCount></ListBucketResult>"));
  EXPECT_CLEAN_ERROR(FuzzS3Xml(prefix + "<ListBucketResult><Contents><Key>%ZZ%</Key>"
                                        "</Contents><EncodingType>url</EncodingType>"
                                        "</ListBucketResult>"));
}

TEST(LyingLengths, S3HeaderRangesLie) {
  // Content-Range and dates with overflowing or inverted numbers (mode 5 parses them
  // all; the result is the ISO 8601 parser's).
  for (const char* v : {"bytes 0-99999999999999999999/1", "bytes 5-1/10", "bytes -1--5/*",
                        "9999999999-99-99T99:99:99Z",
                        "2026-02-30T25:61:61.9999999999999Z", "-2026-01-01T00:00:00Z"}) {
    EXPECT_CLEAN_ERROR(FuzzS3Xml(std::string("\x05\x00", 2) + v)) << v;
  }
  EXPECT_CLEAN_ERROR(FuzzS3Xml(std::string("\x06\x00", 2) + "%"));
  EXPECT_CLEAN_ERROR(FuzzS3Xml(std::string("\x06\x00", 2) + "abc%F"));
}

TEST(LyingLengths, StsCredentialsMissingOrHuge) {
  const std::string prefix("\x04\x00", 2);
  EXPECT_CLEAN_ERROR(FuzzS3Xml(prefix +
                               "<AssumeRoleResponse><AssumeRoleResult><Credentials>"
                               "<Expiration>99999999999999999999</Expiration>"
                               "</Credentials></AssumeRoleResult>"
                               "</AssumeRoleResponse>"));
  EXPECT_CLEAN_ERROR(
      FuzzS3Xml(prefix + Nested("<AssumeRoleResponse>", "</AssumeRoleResponse>", 70)));
}

// ---- namespace JSON, FragmentMetadata JSON

TEST(LyingLengths, NamespaceJsonDeepNestingAndHugeNumbers) {
  const std::string deep = Nested("[", "]", 100000);
  for (char mode = 0; mode < 20; ++mode) {
    EXPECT_CLEAN_ERROR(FuzzNamespaceJson(std::string(1, mode) + deep)) << int(mode);
  }
  // A deep value where a request expects the id (a list of strings).
  for (char mode : {0, 2, 5, 7, 8, 10, 11, 12, 13, 18}) {
    EXPECT_CLEAN_ERROR(FuzzNamespaceJson(
        std::string(1, mode) + "{\"id\": " + Nested("{\"a\":", "}", 50000, "1") + "}"))
        << int(mode);
  }
  // limit: beyond int32, not an integer.
  for (const char* limit : {"1e400", "99999999999999999999999", "2147483648", "1.5"}) {
    EXPECT_CLEAN_ERROR(
        FuzzNamespaceJson(std::string(1, 0) + "{\"limit\": " + limit + "}"))
        << limit;
  }
  for (const char* version : {"1e400", "18446744073709551616", "\"3\""}) {
    EXPECT_CLEAN_ERROR(
        FuzzNamespaceJson(std::string(1, 5) + "{\"version\": " + version + "}"))
        << version;
  }
}

TEST(LyingLengths, FragmentJsonHugeCounts) {
  for (const char* rows : {"-1", "1e30", "18446744073709551616", "\"10\"", "null"}) {
    const std::string json =
        std::string("{\"id\": 0, \"files\": [], \"physical_rows\": ") + rows + "}";
    if (std::string(rows) == "null") continue;  // null takes the default
    EXPECT_CLEAN_ERROR(FuzzFragmentJson(json)) << rows;
  }
  EXPECT_CLEAN_ERROR(FuzzFragmentJson(
      "{\"id\": 1, \"files\": [{\"path\": \"a\", \"fields\": [0], \"column_indices\": "
      "[0], "
      "\"file_major_version\": 4294967296, \"file_minor_version\": -1}], "
      "\"physical_rows\": 1}"));
  // More deleted rows than rows: read (as pylance does), counted as no live rows.
  EXPECT_TRUE(FuzzFragmentJson(
                  "{\"id\": 1, \"files\": [], \"physical_rows\": 1, \"deletion_file\": "
                  "{\"read_version\": 1, \"id\": 2, \"file_type\": \"bitmap\", "
                  "\"num_deleted_rows\": 18446744073709551615}}")
                  .ok());
  EXPECT_CLEAN_ERROR(FuzzFragmentJson(Nested("[", "]", 100000)));
  EXPECT_CLEAN_ERROR(FuzzFragmentJson("{\"id\": -1}"));
}

// ---- CLI inputs

TEST(LyingLengths, CliDeepNesting) {
  EXPECT_CLEAN_ERROR(FuzzCliInput(std::string(1, 4) + Nested("[", "]", 100000)));
  EXPECT_CLEAN_ERROR(
      FuzzCliInput(std::string(1, 1) + "{\"a\": " + Nested("[", "]", 100000) + "}\n"));
  EXPECT_CLEAN_ERROR(
      FuzzCliInput(std::string(1, 6) + Nested("list<", ">", 100000, "int64")));
  EXPECT_CLEAN_ERROR(
      FuzzCliInput(std::string(1, 6) + Nested("struct<a: ", ">", 100000, "int64")));
  EXPECT_CLEAN_ERROR(FuzzCliInput(std::string(1, 5) + "[{\"name\": \"x\", \"type\": \"" +
                                  Nested("list<", ">", 1000, "int8") + "\"}]"));
}

TEST(LyingLengths, CliHugeNumbersAndWidths) {
  EXPECT_CLEAN_ERROR(
      FuzzCliInput(std::string(1, 3) + "{\"i\": 99999999999999999999999}\n"));
  EXPECT_CLEAN_ERROR(FuzzCliInput(std::string(1, 3) + "{\"f\": 1e999}\n"));
  EXPECT_CLEAN_ERROR(FuzzCliInput(std::string(1, 2) + "i\n-99999999999999999999999\n"));
  EXPECT_CLEAN_ERROR(
      FuzzCliInput(std::string(1, 6) + "fixed_size_list<int8, 99999999999>"));
  EXPECT_CLEAN_ERROR(FuzzCliInput(std::string(1, 6) + "fixed_size_list<int8, -1>"));
  EXPECT_CLEAN_ERROR(FuzzCliInput(std::string(1, 6) + "decimal(99999999999, 2)"));
  EXPECT_CLEAN_ERROR(FuzzCliInput(std::string(1, 0) + "a\n\"unterminated\n"));
  // 100000 columns in the header, a row with one more field.
  std::string wide;
  for (int i = 0; i < 100000; ++i) wide += (i ? ",c" : "c") + std::to_string(i);
  wide += "\n" + std::string(100000, ',') + "\n";
  EXPECT_CLEAN_ERROR(FuzzCliInput(std::string(1, 0) + wide));
}

// ---- predicates

TEST(LyingLengths, PredicateDeepParentheses) {
  EXPECT_CLEAN_ERROR(FuzzPredicate(Nested("(", ")", 100000, "i > 1")));
}

TEST(LyingLengths, PredicateDeepPrefixOperators) {
  EXPECT_CLEAN_ERROR(FuzzPredicate(Nested("NOT ", "", 100000, "b")));
  EXPECT_CLEAN_ERROR(FuzzPredicate(Nested("-", "", 100000, "i") + " > 1"));
}

TEST(LyingLengths, PredicateDeepCalls) {
  EXPECT_CLEAN_ERROR(FuzzPredicate(Nested("CAST(", " AS bigint)", 100000, "i") + " > 1"));
  EXPECT_CLEAN_ERROR(FuzzPredicate(Nested("abs(", ")", 100000, "i") + " > 1"));
}

TEST(LyingLengths, PredicateLongChains) {
  // Left-associative chains: the tree is as deep as the chain.
  std::string chain = "i > 1";
  for (int i = 0; i < 100000; ++i) chain += " AND i > 1";
  EXPECT_CLEAN_ERROR(FuzzPredicate(chain));
  std::string sum = "i";
  for (int i = 0; i < 100000; ++i) sum += " + 1";
  EXPECT_CLEAN_ERROR(FuzzPredicate(sum + " > 0"));
}

TEST(LyingLengths, PredicateLongChainWithinLimitsEvaluates) {
  // A generated filter of 1000 terms (below the operator limit) still works.
  std::string chain = "i = 0";
  for (int i = 1; i < 1000; ++i) chain += " OR i = " + std::to_string(i);
  EXPECT_TRUE(FuzzPredicate(chain).ok());
}

TEST(LyingLengths, PredicateHugeLiterals) {
  // Integers beyond int64 are float literals (as in DataFusion): valid filters.
  EXPECT_TRUE(FuzzPredicate("i > 99999999999999999999999999").ok());
  EXPECT_TRUE(FuzzPredicate("i > -9223372036854775809").ok());
  EXPECT_CLEAN_ERROR(FuzzPredicate("x > 1e999999"));
  EXPECT_CLEAN_ERROR(FuzzPredicate("s = 'unterminated"));
  EXPECT_CLEAN_ERROR(FuzzPredicate("i / 0 = 1"));
  EXPECT_CLEAN_ERROR(FuzzPredicate("date '99999-99-99' > date '2020-01-01'"));
}

}  // namespace
}  // namespace lance::fuzz

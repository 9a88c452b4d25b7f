// SPDX-License-Identifier: Apache-2.0
// v2.0 encodings our writer never produces but real Lance may: hand-assembled pages.

#include <google/protobuf/any.pb.h>
#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include "format/proto/encodings_v2_0.pb.h"
#include "format/proto/file2.pb.h"
#include "format/schema_proto.h"
#include "format/v2_container.h"
#include "lance/format/file_reader.h"
#include "lance/io/memory_object_store.h"
#include "tests/format/format_test_util.h"
#include "tests/testing/matchers.h"

namespace lance::format {
namespace {

namespace pb = lance::encodings;
using ::lance::format::testing::json;
using ::lance::testing::IsErrorWith;

struct RawPage {
  pb::ArrayEncoding encoding;
  std::vector<std::string> buffers;
  uint64_t length;
};

/// Assembles a v2.0 file (footer 0.3) from explicit pages, one column per field.
std::string BuildFile(const LanceSchema& schema, uint64_t rows,
                      const std::vector<std::vector<RawPage>>& columns,
                      bool align = true) {
  std::string out;
  std::vector<lance::file::v2::ColumnMetadata> metas(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    for (const RawPage& page : columns[c]) {
      auto* p = metas[c].add_pages();
      for (const std::string& b : page.buffers) {
        p->add_buffer_offsets(out.size());
        p->add_buffer_sizes(b.size());
        out += b;
        if (align) out.append((64 - out.size() % 64) % 64, 'H');
      }
      p->set_length(page.length);
      google::protobuf::Any any;
      any.set_type_url("/lance.encodings.ArrayEncoding");
      any.set_value(page.encoding.SerializeAsString());
      p->mutable_encoding()->mutable_direct()->set_encoding(any.SerializeAsString());
    }
  }
  lance::file::v2::FileDescriptor fd;
  EXPECT_OK(SchemaToProto(schema, fd.mutable_schema()));
  fd.set_length(rows);
  internal::Footer footer;
  const uint64_t fd_pos = out.size();
  const std::string fd_bytes = fd.SerializeAsString();
  out += fd_bytes;
  footer.column_meta_start = out.size();
  std::string cmo;
  for (auto& m : metas) {
    const std::string bytes = m.SerializeAsString();
    uint64_t entry[2] = {out.size(), bytes.size()};
    cmo.append(reinterpret_cast<const char*>(entry), 16);
    out += bytes;
  }
  footer.cmo_table_start = out.size();
  out += cmo;
  footer.gbo_table_start = out.size();
  uint64_t gbo[2] = {fd_pos, fd_bytes.size()};
  out.append(reinterpret_cast<const char*>(gbo), 16);
  footer.num_global_buffers = 1;
  footer.num_columns = static_cast<uint32_t>(columns.size());
  footer.major = 0;
  footer.minor = 3;
  out += internal::EncodeFooter(footer);
  return out;
}

void SetFlat(pb::ArrayEncoding* e, int bits, int buffer) {
  e->mutable_flat()->set_bits_per_value(bits);
  e->mutable_flat()->mutable_buffer()->set_buffer_index(buffer);
}

template <typename T>
std::string Bytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()),
                     values.size() * sizeof(T));
}

Result<json> ReadRows(const std::string& bytes, int64_t batch_size = 8192) {
  auto store = std::make_shared<io::MemoryObjectStore>();
  LANCE_RETURN_NOT_OK(store->Put("t.lance", bytes));
  LANCE_ASSIGN_OR_RAISE(auto reader, LanceFileReader::Open(store, "t.lance"));
  FileReadOptions ro;
  ro.batch_size = batch_size;
  LANCE_ASSIGN_OR_RAISE(auto table, reader->ReadTable(ro));
  return testing::TableToJsonRows(*table);
}

json Column(const std::string& name, const json& values) {
  json rows = json::array();
  for (const auto& v : values) rows.push_back(json{{name, v}});
  return rows;
}

TEST(DecoderTest, CompressedFlat) {
  ASSERT_OK_AND_ASSIGN(
      auto ls, LanceSchema::Assign(schema(
                   {field("z", int32()), field("r", int32()), field("l", int64())})));
  std::vector<int32_t> ints(100);
  std::vector<int64_t> longs(100);
  json expected = json::array();
  for (int i = 0; i < 100; ++i) {
    ints[i] = i * 3;
    longs[i] = int64_t{1} << (i % 40);
    expected.push_back(json{{"z", ints[i]}, {"r", ints[i]}, {"l", longs[i]}});
  }
  const std::string raw = Bytes(ints);
  std::string zstd(ZSTD_compressBound(raw.size()), '\0');
  zstd.resize(ZSTD_compress(zstd.data(), zstd.size(), raw.data(), raw.size(), 3));
  uint64_t n = raw.size();
  const std::string prefixed = std::string(reinterpret_cast<const char*>(&n), 8) + zstd;
  const std::string lraw = Bytes(longs);
  std::string lz4(LZ4_compressBound(static_cast<int>(lraw.size())), '\0');
  lz4.resize(LZ4_compress_default(lraw.data(), lz4.data(), static_cast<int>(lraw.size()),
                                  static_cast<int>(lz4.size())));
  uint32_t n4 = static_cast<uint32_t>(lraw.size());
  lz4 = std::string(reinterpret_cast<const char*>(&n4), 4) + lz4;

  auto page = [](int bits, const std::string& scheme, const std::string& buffer) {
    RawPage p;
    SetFlat(p.encoding.mutable_nullable()->mutable_no_nulls()->mutable_values(), bits, 0);
    p.encoding.mutable_nullable()
        ->mutable_no_nulls()
        ->mutable_values()
        ->mutable_flat()
        ->mutable_compression()
        ->set_scheme(scheme);
    p.buffers = {buffer};
    p.length = 100;
    return p;
  };
  const std::string file = BuildFile(
      ls, 100,
      {{page(32, "zstd", prefixed)}, {page(32, "zstd", zstd)}, {page(64, "lz4", lz4)}});
  for (int64_t bs : {8192, 7}) {
    ASSERT_OK_AND_ASSIGN(json rows, ReadRows(file, bs));
    EXPECT_EQ(testing::JsonDiff(expected, rows), "");
  }
  // Damaged compressed data is reported, not read.
  std::string bad = file;
  bad[20] ^= 0x55;
  auto store = std::make_shared<io::MemoryObjectStore>();
  ASSERT_OK(store->Put("t.lance", bad));
  ASSERT_OK_AND_ASSIGN(auto reader, LanceFileReader::Open(store, "t.lance"));
  EXPECT_FALSE(reader->ReadTable().ok());
  const std::string unknown = BuildFile(
      ls, 100,
      {{page(32, "brotli", raw)}, {page(32, "zstd", zstd)}, {page(64, "lz4", lz4)}});
  EXPECT_THAT(ReadRows(unknown), IsErrorWith(StatusCode::kNotImplemented, "brotli"));
}

TEST(DecoderTest, ConstantAndAllNull) {
  ASSERT_OK_AND_ASSIGN(auto ls, LanceSchema::Assign(schema({field("c", int64())})));
  RawPage constant;
  int64_t seven = 7;
  constant.encoding.mutable_constant()->set_value(
      std::string(reinterpret_cast<char*>(&seven), 8));
  constant.length = 5;
  RawPage nulls;
  nulls.encoding.mutable_nullable()->mutable_all_nulls();
  nulls.length = 3;
  ASSERT_OK_AND_ASSIGN(json rows, ReadRows(BuildFile(ls, 8, {{constant, nulls}}), 2));
  EXPECT_EQ(
      testing::JsonDiff(Column("c", {7, 7, 7, 7, 7, nullptr, nullptr, nullptr}), rows),
      "");
}

TEST(DecoderTest, DictionaryWithWideIndicesAndNulls) {
  for (const auto& type : {utf8(), large_utf8()}) {
    ASSERT_OK_AND_ASSIGN(auto ls, LanceSchema::Assign(schema({field("s", type)})));
    RawPage p;
    auto* d = p.encoding.mutable_dictionary();
    SetFlat(
        d->mutable_indices()->mutable_nullable()->mutable_no_nulls()->mutable_values(),
        16, 0);
    auto* items = d->mutable_items()->mutable_binary();
    SetFlat(items->mutable_indices()
                ->mutable_nullable()
                ->mutable_no_nulls()
                ->mutable_values(),
            64, 1);
    SetFlat(items->mutable_bytes(), 8, 2);
    items->set_null_adjustment(9);
    d->set_num_dictionary_items(3);
    p.buffers = {Bytes(std::vector<uint16_t>{1, 0, 3, 2, 2, 0, 1}),
                 Bytes(std::vector<uint64_t>{3, 3, 8}), "redhello"};
    p.length = 7;
    ASSERT_OK_AND_ASSIGN(json rows, ReadRows(BuildFile(ls, 7, {{p}}), 3));
    EXPECT_EQ(testing::JsonDiff(
                  Column("s", {"red", nullptr, "hello", "", "", nullptr, "red"}), rows),
              "");
    // An index past the dictionary is damage.
    p.buffers[0] = Bytes(std::vector<uint16_t>{1, 0, 4, 2, 2, 0, 1});
    EXPECT_THAT(ReadRows(BuildFile(ls, 7, {{p}})),
                IsErrorWith(StatusCode::kCorrupt, "t.lance"));
  }
}

TEST(DecoderTest, FixedSizeBinaryStringsAndNullableBinary) {
  ASSERT_OK_AND_ASSIGN(
      auto ls,
      LanceSchema::Assign(schema({field("f", binary()), field("n", large_utf8())})));
  RawPage fsb;
  auto* some = fsb.encoding.mutable_nullable()->mutable_some_nulls();
  SetFlat(some->mutable_validity(), 1, 0);
  auto* f = some->mutable_values()->mutable_fixed_size_binary();
  f->set_byte_width(3);
  SetFlat(f->mutable_bytes(), 8, 1);
  fsb.buffers = {std::string(1, '\x05'), "abcdefghi"};
  fsb.length = 3;
  // Binary wrapped in nullable (older writers), with 32-bit offsets and no adjustment.
  RawPage nb;
  auto* some2 = nb.encoding.mutable_nullable()->mutable_some_nulls();
  SetFlat(some2->mutable_validity(), 1, 0);
  auto* b = some2->mutable_values()->mutable_binary();
  SetFlat(b->mutable_indices(), 32, 1);
  SetFlat(b->mutable_bytes(), 8, 2);
  nb.buffers = {std::string(1, '\x06'), Bytes(std::vector<uint32_t>{0, 2, 5}), "xyzzy"};
  nb.length = 3;
  ASSERT_OK_AND_ASSIGN(json rows, ReadRows(BuildFile(ls, 3, {{fsb}, {nb}})));
  json expected = json::array({json{{"f", "616263"}, {"n", nullptr}},
                               json{{"f", nullptr}, {"n", "xy"}},
                               json{{"f", "676869"}, {"n", "zzy"}}});
  EXPECT_EQ(testing::JsonDiff(expected, rows), "");
}

TEST(DecoderTest, UnsupportedEncodingsSayWhat) {
  ASSERT_OK_AND_ASSIGN(auto ls, LanceSchema::Assign(schema({field("i", int32())})));
  RawPage p;
  p.encoding.mutable_bitpacked()->set_compressed_bits_per_value(3);
  p.encoding.mutable_bitpacked()->set_uncompressed_bits_per_value(32);
  p.buffers = {"xx"};
  p.length = 4;
  EXPECT_THAT(ReadRows(BuildFile(ls, 4, {{p}})),
              IsErrorWith(StatusCode::kNotImplemented, "bitpacked"));
  // A flat whose width disagrees with the schema is damage.
  RawPage w;
  SetFlat(&w.encoding, 64, 0);
  w.buffers = {std::string(32, '\0')};
  w.length = 4;
  EXPECT_THAT(ReadRows(BuildFile(ls, 4, {{w}})),
              IsErrorWith(StatusCode::kCorrupt, "bits"));
  // Column lengths that disagree with the row count are caught at Open.
  auto store = std::make_shared<io::MemoryObjectStore>();
  ASSERT_OK(store->Put("t.lance", BuildFile(ls, 5, {{w}})));
  EXPECT_THAT(LanceFileReader::Open(store, "t.lance"),
              IsErrorWith(StatusCode::kCorrupt, "holds 4"));
}

TEST(DecoderTest, UnalignedBuffersAreCopied) {
  // Early v2.0 files did not align buffers; typed access must still be aligned.
  ASSERT_OK_AND_ASSIGN(auto ls, LanceSchema::Assign(schema({field("d", float64())})));
  RawPage p;
  SetFlat(p.encoding.mutable_nullable()->mutable_no_nulls()->mutable_values(), 64, 1);
  p.buffers = {"abc", Bytes(std::vector<double>{1.5, -2.25})};
  p.length = 2;
  // Without padding the values start at file offset 3.
  ASSERT_OK_AND_ASSIGN(json rows, ReadRows(BuildFile(ls, 2, {{p}}, /*align=*/false)));
  EXPECT_EQ(testing::JsonDiff(Column("d", {1.5, -2.25}), rows), "");
}

}  // namespace
}  // namespace lance::format

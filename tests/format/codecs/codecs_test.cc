// SPDX-License-Identifier: Apache-2.0
// The codec entry points on hand-built inputs: flat values, fixed-size lists with item
// validity (mini-block and zipped per-value forms), packed structs, constants, the block
// dictionary, general per-value values, and which encodings each context refuses.

#include "format/codecs/codecs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "format/codecs/general.h"
#include "tests/format/codecs/codec_test_util.h"

namespace lance::format::codecs {
namespace {

using testing::Buf;
using testing::Flat;
using testing::Str;

pb21::CompressiveEncoding Fsl(int dim, bool validity,
                              const pb21::CompressiveEncoding& inner) {
  pb21::CompressiveEncoding e;
  e.mutable_fixed_size_list()->set_items_per_value(dim);
  e.mutable_fixed_size_list()->set_has_validity(validity);
  *e.mutable_fixed_size_list()->mutable_values() = inner;
  return e;
}

pb21::CompressiveEncoding Constant(const std::string& value) {
  pb21::CompressiveEncoding e;
  e.mutable_constant()->set_value(value);
  return e;
}

TEST(Flat, ZeroCopyAndExactSizes) {
  const BufferPtr in = Buf(std::string("\x01\x00\x02\x00\x03\x00", 6));
  auto r = DecodeMiniBlock(Flat(16), {in}, 3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->data->data(), in->data());                 // a view, not a copy
  EXPECT_FALSE(DecodeMiniBlock(Flat(16), {in}, 2).ok());  // mini-block sizes are exact
  EXPECT_TRUE(DecodeBlock(Flat(16), in, 2).ok());         // a block may be longer
  EXPECT_FALSE(DecodeBlock(Flat(16), in, 4).ok());
  // Booleans: an LSB bitmap.
  auto bits = DecodeMiniBlock(Flat(1), {Buf(std::string("\x05\x01", 2))}, 9);
  ASSERT_TRUE(bits.ok());
  EXPECT_EQ(testing::Values(*bits),
            (std::vector<std::string>{"1", "0", "1", "0", "0", "0", "0", "0", "1"}));
  EXPECT_FALSE(DecodeMiniBlock(Flat(1), {Buf(std::string("\x05", 1))}, 9).ok());
  // Lance rejects width 0 and buffer compression in a mini-block.
  EXPECT_FALSE(DecodeMiniBlock(Flat(0), {in}, 0).ok());
  auto compressed = Flat(16);
  compressed.mutable_flat()->mutable_data()->set_scheme(pb21::COMPRESSION_ALGORITHM_LZ4);
  EXPECT_EQ(DecodeMiniBlock(compressed, {in}, 3).status().code(),
            StatusCode::kNotImplemented);
  // Wrong number of buffers.
  EXPECT_FALSE(DecodeMiniBlock(Flat(16), {in, in}, 3).ok());
  EXPECT_FALSE(DecodeMiniBlock(Flat(16), {}, 3).ok());
}

TEST(Flat, BlockWithBufferCompression) {
  // Never written by Lance 14.0.2; read with Lance's general framing.
  const std::string raw("\x01\x00\x02\x00\x03\x00", 6);
  BufferBuilder out;
  ASSERT_TRUE(GeneralCompress(pb21::COMPRESSION_ALGORITHM_ZSTD, std::nullopt,
                              reinterpret_cast<const uint8_t*>(raw.data()), 6, &out)
                  .ok());
  auto e = Flat(16);
  e.mutable_flat()->mutable_data()->set_scheme(pb21::COMPRESSION_ALGORITHM_ZSTD);
  auto r = DecodeBlock(e, out.Finish().value(), 3);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Str(r->data), raw);
}

TEST(FixedSizeList, MiniBlockWithItemValidity) {
  // 3 lists of 2 int16 items; items 1 and 4 null. Buffers: [item validity][items].
  const auto e = Fsl(2, true, Flat(16));
  EXPECT_EQ(MiniBlockBufferCount(e).value(), 2);
  const std::string validity("\x2d", 1);  // 101101
  const std::string items("\x01\x00\x00\x00\x03\x00\x04\x00\x00\x00\x06\x00", 12);
  auto r = DecodeMiniBlock(e, {Buf(validity), Buf(items)}, 3);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->kind, DataBlock::Kind::kFixedSizeList);
  EXPECT_EQ(r->dimension, 2u);
  EXPECT_EQ(r->num_values, 3);
  ASSERT_TRUE(r->validity);
  EXPECT_EQ(Str(r->validity), validity);
  ASSERT_EQ(r->children.size(), 1u);
  EXPECT_EQ(r->children[0].num_values, 6);
  EXPECT_EQ(Str(r->children[0].data), items);
  EXPECT_FALSE(DecodeMiniBlock(e, {Buf(items)}, 3).ok());
  EXPECT_FALSE(DecodeMiniBlock(e, {Buf(validity + "x"), Buf(items)}, 3).ok());
  EXPECT_FALSE(DecodeMiniBlock(e, {Buf(validity), Buf(items)}, 4).ok());
}

TEST(FixedSizeList, PerValueZipsValidityIntoEachValue) {
  // Nested: 2 rows of FSL<FSL<int8, 2> (items nullable), 3> (inner lists nullable).
  // Per row: ceil(3/8) = 1 byte of inner-list validity, ceil(6/8) = 1 byte of item
  // validity, then 6 item bytes: 8 bytes per row.
  const auto e = Fsl(3, true, Fsl(2, true, Flat(8)));
  EXPECT_EQ(FixedPerValueBits(e).value(), 64u);
  EXPECT_EQ(MiniBlockBufferCount(e).value(), 3);
  const std::string rows =
      std::string("\x05\x3f", 2) + "abcdef" + std::string("\x07\x21", 2) + "ghijkl";
  auto r = DecodeFixedPerValue(e, Buf(rows), 2);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->kind, DataBlock::Kind::kFixedSizeList);
  EXPECT_EQ(r->num_values, 2);
  // Outer validity: bits 101 then 111 over 6 inner lists.
  ASSERT_TRUE(r->validity);
  EXPECT_EQ(static_cast<uint8_t>(r->validity->data()[0]), 0x3d);
  const DataBlock& inner = r->children[0];
  ASSERT_EQ(inner.kind, DataBlock::Kind::kFixedSizeList);
  EXPECT_EQ(inner.num_values, 6);
  ASSERT_TRUE(inner.validity);
  // Item validity: 111111 then 100001 over 12 items.
  EXPECT_EQ(static_cast<uint8_t>(inner.validity->data()[0]), 0x7f);
  EXPECT_EQ(static_cast<uint8_t>(inner.validity->data()[1]), 0x08);
  EXPECT_EQ(Str(inner.children[0].data), "abcdefghijkl");
  // As a block: the same bytes, exact size.
  EXPECT_TRUE(DecodeBlock(e, Buf(rows), 2).ok());
  EXPECT_FALSE(DecodeBlock(e, Buf(rows + "x"), 2).ok());
  EXPECT_FALSE(DecodeFixedPerValue(e, Buf(rows.substr(1)), 2).ok());
}

TEST(FixedSizeList, AllNullItems) {
  // FSL over constant (no value): only validity bytes are stored, every item is null.
  const auto e = Fsl(10, true, Constant(""));
  EXPECT_EQ(FixedPerValueBits(e).value(), 16u);
  auto r = DecodeFixedPerValue(e, Buf(std::string(6, '\0')), 3);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->children[0].kind, DataBlock::Kind::kAllNull);
  EXPECT_EQ(r->children[0].num_values, 30);
  EXPECT_EQ(Str(r->validity), std::string(4, '\0'));
}

TEST(FixedSizeList, NoValidityIsAView) {
  const auto e = Fsl(4, false, Flat(32));
  const BufferPtr in = Buf(std::string(48, 'z'));
  auto r = DecodeFixedPerValue(e, in, 3);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->validity);
  EXPECT_EQ(r->children[0].data->data(), in->data());
  // Dimension 0 and unsupported leaves are refused.
  EXPECT_FALSE(FixedPerValueBits(Fsl(0, false, Flat(32))).ok());
  pb21::CompressiveEncoding leaf;
  leaf.mutable_inline_bitpacking()->set_uncompressed_bits_per_value(32);
  EXPECT_EQ(FixedPerValueBits(Fsl(4, false, leaf)).status().code(),
            StatusCode::kNotImplemented);
}

pb21::CompressiveEncoding Packed(std::vector<int> widths) {
  pb21::CompressiveEncoding e;
  int sum = 0;
  for (int w : widths) {
    e.mutable_packed_struct()->add_bits_per_value(w);
    sum += w;
  }
  *e.mutable_packed_struct()->mutable_values() = Flat(sum);
  return e;
}

TEST(PackedStruct, SplitsRows) {
  const auto e = Packed({8, 32});
  const std::string rows(
      "a\x01\x00\x00\x00"
      "b\x02\x00\x00\x00",
      10);
  for (bool mini : {true, false}) {
    auto r =
        mini ? DecodeMiniBlock(e, {Buf(rows)}, 2) : DecodeFixedPerValue(e, Buf(rows), 2);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->kind, DataBlock::Kind::kStruct);
    ASSERT_EQ(r->children.size(), 2u);
    EXPECT_EQ(Str(r->children[0].data), "ab");
    EXPECT_EQ(Str(r->children[1].data),
              std::string("\x01\x00\x00\x00\x02\x00\x00\x00", 8));
  }
  EXPECT_EQ(FixedPerValueBits(e).value(), 40u);
  EXPECT_FALSE(DecodeMiniBlock(e, {Buf(rows)}, 3).ok());
  auto bad = Packed({8, 32});
  bad.mutable_packed_struct()->mutable_values()->mutable_flat()->set_bits_per_value(48);
  EXPECT_FALSE(DecodeMiniBlock(bad, {Buf(rows)}, 2).ok());
  EXPECT_FALSE(DecodeMiniBlock(Packed({8, 4}), {Buf(rows)}, 2).ok());
}

TEST(VariablePackedStruct, ParsesRows) {
  pb21::CompressiveEncoding e;
  auto* f0 = e.mutable_variable_packed_struct()->add_fields();
  *f0->mutable_value() = Flat(16);
  f0->set_bits_per_value(16);
  auto* f1 = e.mutable_variable_packed_struct()->add_fields();
  f1->mutable_value()
      ->mutable_variable()
      ->mutable_offsets()
      ->mutable_flat()
      ->set_bits_per_value(32);
  f1->set_bits_per_length(32);
  // Row 0: 7, "hi"; row 1: empty (a null struct); row 2: 9, "".
  std::string data = std::string("\x07\x00\x02\x00\x00\x00", 6) + "hi" +
                     std::string("\x09\x00\x00\x00\x00\x00", 6);
  auto r = DecodeVariablePerValue(e, testing::MakeVariable(32, {0, 8, 8, 14}, data));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->kind, DataBlock::Kind::kStruct);
  EXPECT_EQ(Str(r->children[0].data), std::string("\x07\x00\x00\x00\x09\x00", 6));
  EXPECT_EQ(testing::Values(r->children[1]), (std::vector<std::string>{"hi", "", ""}));
  // A row with bytes left over, a length past the row.
  EXPECT_FALSE(
      DecodeVariablePerValue(e, testing::MakeVariable(32, {0, 9}, data + "x")).ok());
  std::string lying = data;
  lying[2] = 100;
  EXPECT_FALSE(
      DecodeVariablePerValue(e, testing::MakeVariable(32, {0, 8, 8, 14}, lying)).ok());
  EXPECT_EQ(DecodeMiniBlock(e, {Buf(data)}, 3).status().code(),
            StatusCode::kNotImplemented);
}

TEST(Constant, MaterializesOrIsAllNull) {
  auto r = DecodeBlock(Constant(std::string("\x05\x00", 2)), nullptr, 3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->bits_per_value, 16u);
  EXPECT_EQ(Str(r->data), std::string("\x05\x00\x05\x00\x05\x00", 6));
  auto n = DecodeFixedPerValue(Constant(""), nullptr, 4);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->kind, DataBlock::Kind::kAllNull);
  EXPECT_EQ(FixedPerValueBits(Constant("abcd")).value(), 32u);
  EXPECT_FALSE(DecodeBlock(Constant("ab"), Buf(std::string("x")), 1).ok());
  EXPECT_FALSE(DecodeBlock(Constant("ab"), nullptr, int64_t{1} << 39).ok());
  EXPECT_EQ(DecodeMiniBlock(Constant("ab"), {}, 1).status().code(),
            StatusCode::kNotImplemented);
}

TEST(Dictionary, BlockFrame) {
  // Indices flat(32) and items flat(64) in Lance's 16-byte frame.
  pb21::CompressiveEncoding e;
  *e.mutable_dictionary()->mutable_indices() = Flat(32);
  *e.mutable_dictionary()->mutable_items() = Flat(64);
  e.mutable_dictionary()->set_num_dictionary_items(2);
  std::string indices, items;
  for (uint32_t i : {1u, 0u, 1u}) indices.append(reinterpret_cast<const char*>(&i), 4);
  for (uint64_t v : {100ull, 200ull}) items.append(reinterpret_cast<const char*>(&v), 8);
  std::string frame;
  const uint64_t a = indices.size(), b = items.size();
  frame.append(reinterpret_cast<const char*>(&a), 8);
  frame.append(reinterpret_cast<const char*>(&b), 8);
  frame += indices + items;
  auto r = DecodeBlock(e, Buf(frame), 3);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<uint64_t> got(3);
  std::memcpy(got.data(), r->data->data(), 24);
  EXPECT_EQ(got, (std::vector<uint64_t>{200, 100, 200}));
  // An index out of range, a frame that does not add up.
  std::string bad = frame;
  bad[16] = 5;
  EXPECT_FALSE(DecodeBlock(e, Buf(bad), 3).ok());
  EXPECT_FALSE(DecodeBlock(e, Buf(frame + "x"), 3).ok());
  EXPECT_EQ(DecodeMiniBlock(e, {Buf(frame)}, 3).status().code(),
            StatusCode::kNotImplemented);
}

TEST(GeneralPerValue, EachValueCompressedOnItsOwn) {
  pb21::CompressiveEncoding e;
  e.mutable_general()->mutable_compression()->set_scheme(
      pb21::COMPRESSION_ALGORITHM_ZSTD);
  e.mutable_general()->mutable_compression()->set_level(0);
  e.mutable_general()
      ->mutable_values()
      ->mutable_variable()
      ->mutable_offsets()
      ->mutable_flat()
      ->set_bits_per_value(32);
  const std::vector<std::string> values{std::string(40000, 'q'), "", "short"};
  BufferBuilder data;
  std::vector<uint64_t> offsets{0};
  for (const auto& v : values) {
    ASSERT_TRUE(GeneralCompress(pb21::COMPRESSION_ALGORITHM_ZSTD, 0,
                                reinterpret_cast<const uint8_t*>(v.data()),
                                static_cast<int64_t>(v.size()), &data)
                    .ok());
    offsets.push_back(static_cast<uint64_t>(data.length()));
  }
  const std::string bytes = Str(data.Finish().value());
  auto r = DecodeVariablePerValue(e, testing::MakeVariable(32, offsets, bytes));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(testing::Values(*r), values);
  // A length prefix that lies.
  std::string lying = bytes;
  lying[1] = 0x7f;
  EXPECT_FALSE(DecodeVariablePerValue(e, testing::MakeVariable(32, offsets, lying)).ok());
}

TEST(Contexts, RefuseWhatLanceRefuses) {
  pb21::CompressiveEncoding unset;
  EXPECT_EQ(DecodeMiniBlock(unset, {}, 0).status().code(), StatusCode::kNotImplemented);
  EXPECT_EQ(DecodeBlock(unset, nullptr, 0).status().code(), StatusCode::kNotImplemented);
  EXPECT_EQ(FixedPerValueBits(unset).status().code(), StatusCode::kNotImplemented);
  pb21::CompressiveEncoding fsst;
  fsst.mutable_fsst()->set_symbol_table("x");
  *fsst.mutable_fsst()->mutable_values() = Flat(8);
  EXPECT_EQ(DecodeBlock(fsst, nullptr, 0).status().code(), StatusCode::kNotImplemented);
  EXPECT_EQ(DecodeMiniBlock(fsst, {Buf(std::string("a"))}, 1).status().code(),
            StatusCode::kNotImplemented);
  EXPECT_EQ(
      DecodeVariablePerValue(Flat(8), testing::MakeVariable(32, {0}, "")).status().code(),
      StatusCode::kNotImplemented);
  EXPECT_EQ(DecodeFixedPerValue(fsst, nullptr, 0).status().code(),
            StatusCode::kNotImplemented);
  const Status st = DecodeBlock(fsst, nullptr, 0).status();
  EXPECT_NE(st.message().find("fsst(flat(8))"), std::string::npos) << st.ToString();
}

TEST(Describe, NamesTheTree) {
  pb21::CompressiveEncoding e;
  e.mutable_general()->mutable_compression()->set_scheme(
      pb21::COMPRESSION_ALGORITHM_ZSTD);
  e.mutable_general()->mutable_compression()->set_level(3);
  auto* fsst = e.mutable_general()->mutable_values()->mutable_fsst();
  fsst->mutable_values()
      ->mutable_variable()
      ->mutable_offsets()
      ->mutable_flat()
      ->set_bits_per_value(32);
  EXPECT_EQ(Describe(e), "general(zstd:3, fsst(variable(flat(32))))");
  EXPECT_EQ(Describe(Fsl(8, true, Flat(32))), "fixed_size_list(8, validity, flat(32))");
  EXPECT_EQ(Describe(Packed({8, 16})), "packed_struct([8,16], flat(24))");
  EXPECT_EQ(Describe(pb21::CompressiveEncoding()), "(no compression set)");
}

}  // namespace
}  // namespace lance::format::codecs

namespace lance::format::codecs {
namespace {

TEST(TakeFromDictionary, FixedAndVariable) {
  const DataBlock fixed = DataBlock::Fixed(16, 3, testing::Buf(std::string("a1b2c3")));
  const DataBlock indices =
      DataBlock::Fixed(8, 4, testing::Buf(std::string("\x02\x00\x02\x01", 4)));
  auto r = TakeFromDictionary(fixed, indices);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(testing::Str(r->data), "c3a1c3b2");
  const DataBlock strings = testing::MakeVariable(64, {5, 5, 8, 10}, "#####abcde");
  auto s = TakeFromDictionary(strings, indices);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->offset_bits, 64);
  EXPECT_EQ(testing::Values(*s), (std::vector<std::string>{"de", "", "de", "abc"}));
  const DataBlock bad =
      DataBlock::Fixed(32, 1, testing::Buf(std::string("\x03\x00\x00\x00", 4)));
  EXPECT_EQ(TakeFromDictionary(fixed, bad).status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(TakeFromDictionary(strings, bad).status().code(), StatusCode::kCorrupt);
  // Indices that are not integers of a word width.
  EXPECT_FALSE(
      TakeFromDictionary(fixed, DataBlock::Fixed(12, 1, testing::Buf(std::string("ab"))))
          .ok());
}

}  // namespace
}  // namespace lance::format::codecs

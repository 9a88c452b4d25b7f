// SPDX-License-Identifier: Apache-2.0
// FSST: Lance's symbol table, the decoder's rules, and the compressor (round trips and
// compression ratio).

#include "format/codecs/fsst.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "format/codecs/variable.h"
#include "tests/format/codecs/codec_test_util.h"
#include "tests/testing/matchers.h"

namespace lance::format::codecs {
namespace {

using testing::Buf;
using testing::Str;

std::vector<std::string> Sentences(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> vocab;
  for (int i = 0; i < 300; ++i) {
    std::string w;
    const int len = 2 + static_cast<int>(rng() % 8);
    for (int k = 0; k < len; ++k) w.push_back(static_cast<char>('a' + rng() % 26));
    vocab.push_back(w);
  }
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    std::string s;
    const int words = 3 + static_cast<int>(rng() % 10);
    for (int k = 0; k < words; ++k) {
      if (k) s.push_back(' ');
      s += vocab[rng() % vocab.size()];
    }
    out.push_back(s);
  }
  return out;
}

using Strings = testing::ConcatenatedStrings<uint32_t>;

DataBlock Compressed(const FsstCompressor& c, const Strings& s) {
  std::vector<uint32_t> offs;
  std::vector<uint8_t> data;
  c.Compress(s.bytes(), s.offsets.data(), s.size(), &offs, &data);
  std::vector<uint64_t> o(offs.begin(), offs.end());
  return testing::MakeVariable(32, o, std::string(data.begin(), data.end()));
}

void ExpectRoundTrip(const std::vector<std::string>& values, const FsstCompressor& c) {
  Strings s(values);
  DataBlock comp = Compressed(c, s);
  auto r = FsstDecompress(c.table(), comp, int64_t{1} << 30);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(testing::Values(*r), values);
  // Through Lance's serialized table as well.
  uint8_t table[kFsstSymbolTableBytes];
  SerializeFsstSymbolTable(c.table(), table);
  auto parsed = ParseFsstSymbolTable(table, kFsstSymbolTableBytes);
  ASSERT_TRUE(parsed.ok());
  auto r2 = FsstDecompress(*parsed, comp, int64_t{1} << 30);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(testing::Values(*r2), values);
}

TEST(Fsst, MiniBlockPickedDecodesOnlyThePickedValues) {
  // A mini-block chunk of FSST strings, as Lance writes it: the compressed values in the
  // variable chunk layout, the table in the encoding.
  const std::vector<std::string> values = Sentences(300, 11);
  Strings s(values);
  auto c = FsstCompressor::Train(s.bytes(), s.offsets.data(), s.size());
  std::vector<uint32_t> offs;
  std::vector<uint8_t> data;
  c.Compress(s.bytes(), s.offsets.data(), s.size(), &offs, &data);
  BufferBuilder chunk;
  ASSERT_OK(WriteVariableChunk<uint32_t>(offs.data(), data.data(), 0, s.size(), &chunk));
  ASSERT_OK_AND_ASSIGN(BufferPtr buffer, chunk.Finish());
  std::string table(kFsstSymbolTableBytes, '\0');
  SerializeFsstSymbolTable(c.table(), reinterpret_cast<uint8_t*>(table.data()));
  pb21::CompressiveEncoding e;
  e.mutable_fsst()->set_symbol_table(table);
  e.mutable_fsst()
      ->mutable_values()
      ->mutable_variable()
      ->mutable_offsets()
      ->mutable_flat()
      ->set_bits_per_value(32);

  ASSERT_OK_AND_ASSIGN(DataBlock all, DecodeMiniBlock(e, {buffer}, s.size()));
  ASSERT_EQ(testing::Values(all), values);
  const std::vector<int64_t> positions = {0, 17, 17, 150, 299, 3};
  ASSERT_OK_AND_ASSIGN(auto picked,
                       DecodeMiniBlockPicked(e, {buffer}, s.size(), positions));
  ASSERT_TRUE(picked.has_value());
  std::vector<std::string> expected;
  for (int64_t p : positions) expected.push_back(values[static_cast<size_t>(p)]);
  EXPECT_EQ(testing::Values(*picked), expected);
  ASSERT_OK_AND_ASSIGN(auto none, DecodeMiniBlockPicked(e, {buffer}, s.size(), {}));
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(none->num_values, 0);

  EXPECT_FALSE(DecodeMiniBlockPicked(e, {buffer}, s.size(), {300}).ok());
  EXPECT_FALSE(DecodeMiniBlockPicked(e, {buffer}, s.size(), {-1}).ok());
  // Other encodings have no shortcut: nothing is decoded.
  pb21::CompressiveEncoding flat;
  flat.mutable_flat()->set_bits_per_value(32);
  ASSERT_OK_AND_ASSIGN(auto skipped, DecodeMiniBlockPicked(flat, {buffer}, 4, {0}));
  EXPECT_FALSE(skipped.has_value());
}

TEST(Fsst, RoundTripsText) {
  const auto values = Sentences(3000, 1);
  Strings s(values);
  const auto c = FsstCompressor::Train(s.bytes(), s.offsets.data(), s.size());
  EXPECT_TRUE(c.table().encoder_switch);
  EXPECT_GT(c.table().num_symbols, 100);
  EXPECT_LE(c.table().num_symbols, 255);
  ExpectRoundTrip(values, c);
}

TEST(Fsst, CompressesLikeFsst) {
  // Words from a small vocabulary: FSST (Lance's too, on the same kind of text in the
  // golden vectors) gets about 1.6x; golden_test compares with Lance directly.
  const auto values = Sentences(5000, 2);
  Strings s(values);
  const auto c = FsstCompressor::Train(s.bytes(), s.offsets.data(), s.size());
  const DataBlock comp = Compressed(c, s);
  const double ratio =
      static_cast<double>(s.data.size()) / static_cast<double>(comp.data->size());
  EXPECT_GT(ratio, 1.5) << "compressed " << s.data.size() << " to " << comp.data->size();
}

TEST(Fsst, EdgeValues) {
  const auto text = Sentences(500, 3);
  Strings s(text);
  const auto c = FsstCompressor::Train(s.bytes(), s.offsets.data(), s.size());
  // Empty strings, a value longer than 64 KiB, bytes never seen in training (escapes
  // only), every byte value, one-byte values.
  std::string big;
  for (int i = 0; i < 70000; ++i) big += text[static_cast<size_t>(i) % text.size()][0];
  std::string all_bytes;
  for (int b = 0; b < 256; ++b) all_bytes.push_back(static_cast<char>(b));
  ExpectRoundTrip({"", "", text[0], "", big, "\xff\xfe\x01\x02\x80", all_bytes, "x", ""},
                  c);
  ExpectRoundTrip({}, c);
  ExpectRoundTrip({""}, c);
}

TEST(Fsst, EscapeOnlyInputAndEmptyTraining) {
  // Trained on nothing: no symbols, every byte escaped.
  Strings none(std::vector<std::string>{"", ""});
  const auto c = FsstCompressor::Train(none.bytes(), none.offsets.data(), none.size());
  EXPECT_EQ(c.table().num_symbols, 0);
  ExpectRoundTrip({"hello", "", "\xff\xff"}, c);
  Strings s(std::vector<std::string>{"abc"});
  const DataBlock comp = Compressed(c, s);
  EXPECT_EQ(Str(comp.data), std::string("\xff"
                                        "a"
                                        "\xff"
                                        "b"
                                        "\xff"
                                        "c"));
}

TEST(Fsst, RandomBinaryRoundTrips) {
  std::mt19937 rng(9);
  std::vector<std::string> values;
  for (int i = 0; i < 2000; ++i) {
    std::string v(rng() % 40, '\0');
    for (auto& ch : v)
      ch = static_cast<char>(rng() % 6 == 0 ? rng() : "abcab\xff"[rng() % 6]);
    values.push_back(v);
  }
  Strings s(values);
  ExpectRoundTrip(values, FsstCompressor::Train(s.bytes(), s.offsets.data(), s.size()));
}

TEST(Fsst, SixtyFourBitOffsets) {
  const auto values = Sentences(200, 4);
  const testing::ConcatenatedStrings<uint64_t> s(values);
  const auto c = FsstCompressor::Train(s.bytes(), s.offsets.data(), s.size());
  std::vector<uint64_t> out_offsets;
  std::vector<uint8_t> out;
  c.Compress(s.bytes(), s.offsets.data(), s.size(), &out_offsets, &out);
  auto r = FsstDecompress(
      c.table(),
      testing::MakeVariable(64, out_offsets, std::string(out.begin(), out.end())),
      int64_t{1} << 30);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->offset_bits, 64);
  EXPECT_EQ(testing::Values(*r), values);
}

// --- the decoder's rules on hand-made tables
// ---------------------------------------------

std::string Table(bool on, std::vector<std::string> symbols) {
  FsstSymbolTable t;
  t.encoder_switch = on;
  t.num_symbols = static_cast<int>(symbols.size());
  for (size_t i = 0; i < symbols.size(); ++i) {
    std::memcpy(&t.symbols[i], symbols[i].data(), symbols[i].size());
    t.lengths[i] = static_cast<uint8_t>(symbols[i].size());
  }
  std::string out(kFsstSymbolTableBytes, '\0');
  SerializeFsstSymbolTable(t, reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

FsstSymbolTable Parse(const std::string& t) {
  return ParseFsstSymbolTable(reinterpret_cast<const uint8_t*>(t.data()),
                              static_cast<int64_t>(t.size()))
      .value();
}

TEST(Fsst, LanceTableLayout) {
  const std::string t = Table(true, {"ab", "hello", "x"});
  uint64_t header;
  std::memcpy(&header, t.data(), 8);
  EXPECT_EQ(header, (uint64_t{0x46535354} << 32) | (1u << 24) | 3u);
  EXPECT_EQ(t.substr(8, 2), "ab");
  EXPECT_EQ(t.substr(16, 5), "hello");
  EXPECT_EQ(t.substr(24, 1), "x");
  EXPECT_EQ(t[32], 2);  // lengths right after the three symbols
  EXPECT_EQ(t[33], 5);
  EXPECT_EQ(t[34], 1);
  EXPECT_EQ(t.find_first_not_of('\0', 35), std::string::npos);
}

TEST(Fsst, DecoderRules) {
  const FsstSymbolTable t = Parse(Table(true, {"ab", "hello", "x"}));
  // Codes, an escape, and an undeclared code (7) that expands to nothing.
  auto r = FsstDecompress(
      t, testing::MakeVariable(32, {0, 4, 6}, std::string("\x01\xff!\x07\x00\x02", 6)),
      1 << 20);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(testing::Values(*r), (std::vector<std::string>{"hello!", "abx"}));
  // An escape whose literal is in the next value is corrupt, as is a trailing escape.
  EXPECT_EQ(FsstDecompress(t, testing::MakeVariable(32, {0, 1, 2}, "\xff!"), 1 << 20)
                .status()
                .code(),
            StatusCode::kCorrupt);
  EXPECT_FALSE(
      FsstDecompress(t, testing::MakeVariable(32, {0, 2}, "\x01\xff"), 1 << 20).ok());
  // Offsets decreasing or past the data.
  EXPECT_FALSE(
      FsstDecompress(t, testing::MakeVariable(32, {0, 3, 2}, "\x01\x01\x01"), 1 << 20)
          .ok());
  EXPECT_FALSE(
      FsstDecompress(t, testing::MakeVariable(32, {0, 9}, "\x01"), 1 << 20).ok());
  // A cap on the decoded size.
  EXPECT_FALSE(
      FsstDecompress(t, testing::MakeVariable(32, {0, 3}, "\x01\x01\x01"), 10).ok());
  // Offsets need not start at 0.
  auto s = FsstDecompress(t, testing::MakeVariable(32, {2, 3}, "zz\x02"), 1 << 20);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(testing::Values(*s), std::vector<std::string>{"x"});
}

TEST(Fsst, SwitchedOffTableKeepsValues) {
  const FsstSymbolTable t = Parse(Table(false, {}));
  const DataBlock in = testing::MakeVariable(32, {0, 3, 3, 5}, "abc\xff\xff");
  auto r = FsstDecompress(t, in, 1 << 20);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(testing::Values(*r), (std::vector<std::string>{"abc", "", "\xff\xff"}));
  EXPECT_FALSE(FsstDecompress(t, testing::MakeVariable(32, {0, 7}, "abc"), 1 << 20).ok());
  EXPECT_FALSE(FsstCompressor::MakeUncompressedTable().encoder_switch);
}

TEST(Fsst, RejectsBadTables) {
  std::string t = Table(true, {"ab"});
  EXPECT_FALSE(
      ParseFsstSymbolTable(reinterpret_cast<const uint8_t*>(t.data()), 2311).ok());
  std::string bad_magic = t;
  bad_magic[7] = 0;
  EXPECT_FALSE(ParseFsstSymbolTable(reinterpret_cast<const uint8_t*>(bad_magic.data()),
                                    kFsstSymbolTableBytes)
                   .ok());
  for (char len : {'\0', '\x09'}) {
    std::string bad_len = t;
    bad_len[16] = len;
    EXPECT_EQ(ParseFsstSymbolTable(reinterpret_cast<const uint8_t*>(bad_len.data()),
                                   kFsstSymbolTableBytes)
                  .status()
                  .code(),
              StatusCode::kCorrupt);
  }
  // 255 declared symbols with their lengths is the largest table.
  std::vector<std::string> many(255, "q");
  EXPECT_TRUE(
      ParseFsstSymbolTable(reinterpret_cast<const uint8_t*>(Table(true, many).data()),
                           kFsstSymbolTableBytes)
          .ok());
}

}  // namespace
}  // namespace lance::format::codecs

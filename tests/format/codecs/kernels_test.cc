// SPDX-License-Identifier: Apache-2.0
// RLE, byte stream split, general compression and variable-width chunks: round trips
// through the kernels and the codec entry points, and their edge cases.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "format/codecs/byte_stream_split.h"
#include "format/codecs/codecs.h"
#include "format/codecs/general.h"
#include "format/codecs/rle.h"
#include "format/codecs/variable.h"
#include "tests/format/codecs/codec_test_util.h"

namespace lance::format::codecs {
namespace {

using testing::Buf;
using testing::Flat;
using testing::Str;

pb21::CompressiveEncoding Rle(int value_bits, int length_bits = 8) {
  pb21::CompressiveEncoding e;
  *e.mutable_rle()->mutable_values() = Flat(value_bits);
  *e.mutable_rle()->mutable_run_lengths() = Flat(length_bits);
  return e;
}

template <typename T>
std::string Bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// --- RLE -------------------------------------------------------------------------------

template <typename T>
void RleRoundTrip(const std::vector<T>& values) {
  const int vb = sizeof(T);
  const auto* data = reinterpret_cast<const uint8_t*>(values.data());
  const int64_t n = static_cast<int64_t>(values.size());
  // Mini-block: chunk by chunk, as Lance cuts them.
  BufferBuilder vals, lens;
  std::vector<RleChunk> chunks;
  ASSERT_TRUE(RleEncodeMiniBlock(vb, data, n, &vals, &lens, &chunks).ok());
  const std::string all_vals = vals.length() ? Str(vals.Finish().value()) : "";
  const std::string all_lens = lens.length() ? Str(lens.Finish().value()) : "";
  int64_t v_off = 0, l_off = 0, seen = 0;
  std::string decoded;
  for (size_t i = 0; i < chunks.size(); ++i) {
    const RleChunk& c = chunks[i];
    EXPECT_LE(c.values_bytes + c.lengths_bytes, 8186);
    EXPECT_LE(c.num_values, 4096);
    if (i + 1 < chunks.size()) {
      EXPECT_EQ(int64_t{1} << c.log_num_values, c.num_values);
    } else {
      EXPECT_EQ(c.log_num_values, 0);
    }
    auto r = DecodeMiniBlock(Rle(vb * 8),
                             {Buf(all_vals.substr(v_off, c.values_bytes)),
                              Buf(all_lens.substr(l_off, c.lengths_bytes))},
                             c.num_values);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    decoded += Str(r->data).substr(0, static_cast<size_t>(c.num_values * vb));
    v_off += c.values_bytes;
    l_off += c.lengths_bytes;
    seen += c.num_values;
  }
  EXPECT_EQ(seen, n);
  EXPECT_EQ(decoded, Bytes(values));
  // Block: one frame.
  auto block = RleEncodeBlock(vb, data, n);
  ASSERT_TRUE(block.ok());
  auto b = DecodeBlock(Rle(vb * 8), *block, n);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(Str(b->data).substr(0, static_cast<size_t>(n * vb)), Bytes(values));
  // Wider run lengths (newer Lance) decode too.
  for (int lb : {2, 4}) {
    auto wide = RleEncodeBlock(vb, data, n, lb);
    ASSERT_TRUE(wide.ok());
    auto w = DecodeBlock(Rle(vb * 8, lb * 8), *wide, n);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    EXPECT_EQ(Str(w->data).substr(0, static_cast<size_t>(n * vb)), Bytes(values));
  }
}

TEST(Rle, RoundTripsEveryWidth) {
  std::mt19937 rng(5);
  std::vector<uint8_t> a;
  std::vector<int16_t> b;
  std::vector<int32_t> c;
  std::vector<int64_t> d;
  for (int i = 0; i < 20000; ++i) {
    a.push_back(static_cast<uint8_t>(i / 37));
    b.push_back(static_cast<int16_t>(-(i / 300)));
    c.push_back(rng() % 10 == 0 ? static_cast<int32_t>(rng()) : -5);
    d.push_back(static_cast<int64_t>(i / 1000) * -1000000000000ll);
  }
  RleRoundTrip(a);
  RleRoundTrip(b);
  RleRoundTrip(c);
  RleRoundTrip(d);
}

TEST(Rle, EdgeCounts) {
  RleRoundTrip(std::vector<uint32_t>{});
  RleRoundTrip(std::vector<uint32_t>{7});
  RleRoundTrip(std::vector<uint64_t>(1023, 1));
  RleRoundTrip(std::vector<uint16_t>(1024, 2));
  RleRoundTrip(std::vector<uint8_t>(1025, 3));
  std::vector<uint32_t> alternating;
  for (int i = 0; i < 9000; ++i) alternating.push_back(i % 2);
  RleRoundTrip(alternating);  // every run has length 1: many small chunks
}

TEST(Rle, HugeRunsAreSplit) {
  std::vector<uint32_t> v(100000, 42);
  BufferBuilder vals, lens;
  ASSERT_TRUE(
      RleEncode(4, reinterpret_cast<const uint8_t*>(v.data()), 100000, 1, &vals, &lens)
          .ok());
  EXPECT_EQ(lens.length(), 393);  // 392 runs of 255 and one of 40
  EXPECT_EQ(lens.data()[392], 40);
  EXPECT_EQ(RleEncodedSize(4, reinterpret_cast<const uint8_t*>(v.data()), 100000),
            393 * 5);
  RleRoundTrip(v);
  // With u16 lengths: one run of 65535 and one of 34465.
  BufferBuilder v2, l2;
  ASSERT_TRUE(
      RleEncode(4, reinterpret_cast<const uint8_t*>(v.data()), 100000, 2, &v2, &l2).ok());
  EXPECT_EQ(l2.length(), 4);
}

TEST(Rle, MiniBlockClampsAndBlockIsStrict) {
  // Runs 5 + 5 over a chunk of 7 values: the mini-block reader cuts the overshoot.
  const std::string values("\x01\x02", 2), lengths("\x05\x05", 2);
  auto r = DecodeMiniBlock(Rle(8), {Buf(values), Buf(lengths)}, 7);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Str(r->data).substr(0, 7), std::string("\x01\x01\x01\x01\x01\x02\x02", 7));
  std::string frame(8, '\0');
  frame[0] = 2;
  frame += values + lengths;
  EXPECT_EQ(DecodeBlock(Rle(8), Buf(frame), 7).status().code(), StatusCode::kCorrupt);
  EXPECT_TRUE(DecodeBlock(Rle(8), Buf(frame), 10).ok());
  // Too few values, a zero run, mismatched buffers, a lying frame.
  EXPECT_FALSE(DecodeMiniBlock(Rle(8), {Buf(values), Buf(lengths)}, 11).ok());
  EXPECT_FALSE(
      DecodeMiniBlock(Rle(8), {Buf(values), Buf(std::string("\x05\x00", 2))}, 5).ok());
  EXPECT_FALSE(DecodeMiniBlock(Rle(16), {Buf(values), Buf(lengths)}, 5).ok());
  std::string lying = frame;
  lying[0] = 100;
  EXPECT_FALSE(DecodeBlock(Rle(8), Buf(lying), 10).ok());
  EXPECT_FALSE(DecodeBlock(Rle(8), Buf(frame), int64_t{1} << 36).ok());
  // Only flat children belong to the stable grammar.
  pb21::CompressiveEncoding nested = Rle(8);
  nested.mutable_rle()
      ->mutable_values()
      ->mutable_inline_bitpacking()
      ->set_uncompressed_bits_per_value(8);
  EXPECT_EQ(DecodeMiniBlock(nested, {Buf(values), Buf(lengths)}, 7).status().code(),
            StatusCode::kNotImplemented);
  // Zero values need no runs.
  EXPECT_TRUE(DecodeMiniBlock(Rle(32), {Buf(std::string()), Buf(std::string())}, 0).ok());
}

// --- byte stream split -----------------------------------------------------------------

pb21::CompressiveEncoding Bss(int bits) {
  pb21::CompressiveEncoding e;
  *e.mutable_byte_stream_split()->mutable_values() = Flat(bits);
  return e;
}

TEST(ByteStreamSplit, RoundTrips) {
  for (int width : {2, 4, 8, 3}) {
    for (int64_t n : {0, 1, 2, 511, 512, 1024}) {
      std::string in(static_cast<size_t>(n * width), '\0');
      for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<char>(i * 31 + width);
      std::string split(in.size(), '\0'), back(in.size(), '\0');
      ByteStreamSplitEncode(width, reinterpret_cast<const uint8_t*>(in.data()), n,
                            reinterpret_cast<uint8_t*>(split.data()));
      if (n > 1) {
        EXPECT_EQ(split[1], in[static_cast<size_t>(width)]);  // byte 0 of value 1
      }
      ByteStreamSplitDecode(width, reinterpret_cast<const uint8_t*>(split.data()), n,
                            reinterpret_cast<uint8_t*>(back.data()));
      EXPECT_EQ(back, in);
      if (width == 4 || width == 8) {
        auto r = DecodeMiniBlock(Bss(width * 8), {Buf(split)}, n);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        EXPECT_EQ(Str(r->data).substr(0, in.size()), in);
      }
    }
  }
  EXPECT_FALSE(DecodeMiniBlock(Bss(32), {Buf(std::string(12, 'a'))}, 4).ok());
  EXPECT_EQ(DecodeMiniBlock(Bss(16), {Buf(std::string(8, 'a'))}, 4).status().code(),
            StatusCode::kNotImplemented);
}

// --- general ---------------------------------------------------------------------------

TEST(General, LanceFraming) {
  const std::string text = std::string(5000, 'a') + "tail";
  for (auto scheme :
       {pb21::COMPRESSION_ALGORITHM_ZSTD, pb21::COMPRESSION_ALGORITHM_LZ4}) {
    BufferBuilder out;
    ASSERT_TRUE(GeneralCompress(scheme, std::nullopt,
                                reinterpret_cast<const uint8_t*>(text.data()),
                                static_cast<int64_t>(text.size()), &out)
                    .ok());
    const std::string framed = Str(out.Finish().value());
    if (scheme == pb21::COMPRESSION_ALGORITHM_ZSTD) {
      uint64_t n;
      std::memcpy(&n, framed.data(), 8);
      EXPECT_EQ(n, text.size());
      EXPECT_EQ(framed.substr(8, 4), std::string("\x28\xb5\x2f\xfd", 4));
    } else {
      uint32_t n;
      std::memcpy(&n, framed.data(), 4);
      EXPECT_EQ(n, text.size());
    }
    EXPECT_LT(framed.size(), 100u);
    auto r = GeneralDecompress(scheme, reinterpret_cast<const uint8_t*>(framed.data()),
                               static_cast<int64_t>(framed.size()), -1, 1 << 20);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(Str(*r), text);
    EXPECT_TRUE(GeneralDecompress(scheme, reinterpret_cast<const uint8_t*>(framed.data()),
                                  static_cast<int64_t>(framed.size()),
                                  static_cast<int64_t>(text.size()), 0)
                    .ok());
    EXPECT_FALSE(GeneralDecompress(scheme,
                                   reinterpret_cast<const uint8_t*>(framed.data()),
                                   static_cast<int64_t>(framed.size()), 7, 1 << 20)
                     .ok());
    EXPECT_FALSE(GeneralDecompress(scheme,
                                   reinterpret_cast<const uint8_t*>(framed.data()),
                                   static_cast<int64_t>(framed.size()), -1, 100)
                     .ok());
    EXPECT_FALSE(GeneralDecompress(scheme,
                                   reinterpret_cast<const uint8_t*>(framed.data()),
                                   static_cast<int64_t>(framed.size()) - 3, -1, 1 << 20)
                     .ok());
    // Empty input.
    BufferBuilder empty;
    ASSERT_TRUE(GeneralCompress(scheme, 3, nullptr, 0, &empty).ok());
    const std::string e = Str(empty.Finish().value());
    auto z = GeneralDecompress(scheme, reinterpret_cast<const uint8_t*>(e.data()),
                               static_cast<int64_t>(e.size()), 0, 0);
    ASSERT_TRUE(z.ok()) << z.status().ToString();
    EXPECT_EQ((*z)->size(), 0);
  }
  // A bare zstd frame (no length prefix) as older writers stored it, and nothing at all.
  BufferBuilder out;
  ASSERT_TRUE(GeneralCompress(pb21::COMPRESSION_ALGORITHM_ZSTD, 1,
                              reinterpret_cast<const uint8_t*>(text.data()),
                              static_cast<int64_t>(text.size()), &out)
                  .ok());
  const std::string bare = Str(out.Finish().value()).substr(8);
  auto r = GeneralDecompress(pb21::COMPRESSION_ALGORITHM_ZSTD,
                             reinterpret_cast<const uint8_t*>(bare.data()),
                             static_cast<int64_t>(bare.size()), -1, 1 << 20);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Str(*r), text);
  EXPECT_FALSE(GeneralDecompress(pb21::COMPRESSION_ALGORITHM_ZSTD,
                                 reinterpret_cast<const uint8_t*>(bare.data()),
                                 static_cast<int64_t>(bare.size()), -1, 100)
                   .ok());
  EXPECT_TRUE(
      GeneralDecompress(pb21::COMPRESSION_ALGORITHM_ZSTD, nullptr, 0, -1, 0).ok());
  EXPECT_FALSE(GeneralDecompress(pb21::COMPRESSION_ALGORITHM_LZ4,
                                 reinterpret_cast<const uint8_t*>("ab"), 2, -1, 10)
                   .ok());
  EXPECT_EQ(GeneralDecompress(static_cast<pb21::CompressionScheme>(7),
                              reinterpret_cast<const uint8_t*>("ab"), 2, -1, 10)
                .status()
                .code(),
            StatusCode::kNotImplemented);
}

pb21::CompressiveEncoding General(pb21::CompressionScheme scheme,
                                  const pb21::CompressiveEncoding& inner) {
  pb21::CompressiveEncoding e;
  e.mutable_general()->mutable_compression()->set_scheme(scheme);
  *e.mutable_general()->mutable_values() = inner;
  return e;
}

TEST(General, MiniBlockCompressesTheFirstBufferOnly) {
  // RLE under general: buffer 0 (run values) compressed, buffer 1 (lengths) raw.
  const std::string values("\x07\x08", 2), lengths("\x03\x02", 2);
  BufferBuilder out;
  ASSERT_TRUE(GeneralCompress(pb21::COMPRESSION_ALGORITHM_LZ4, std::nullopt,
                              reinterpret_cast<const uint8_t*>(values.data()), 2, &out)
                  .ok());
  auto r = DecodeMiniBlock(General(pb21::COMPRESSION_ALGORITHM_LZ4, Rle(8)),
                           {out.Finish().value(), Buf(lengths)}, 5);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Str(r->data).substr(0, 5), std::string("\x07\x07\x07\x08\x08", 5));
  EXPECT_EQ(
      MiniBlockBufferCount(General(pb21::COMPRESSION_ALGORITHM_LZ4, Rle(8))).value(), 2);
}

// --- variable-width chunks and blocks --------------------------------------------------

template <typename O>
void VariableChunksRoundTrip(const std::vector<std::string>& values, uint64_t base) {
  std::vector<O> offsets{static_cast<O>(base)};
  std::string data(base, '#');
  for (const auto& v : values) {
    data += v;
    offsets.push_back(static_cast<O>(data.size()));
  }
  const int64_t n = static_cast<int64_t>(values.size());
  const auto chunks = PlanVariableChunks(offsets.data(), n);
  int64_t covered = 0;
  pb21::CompressiveEncoding e;
  *e.mutable_variable()->mutable_offsets() = Flat(sizeof(O) * 8);
  std::vector<std::string> decoded;
  for (size_t i = 0; i < chunks.size(); ++i) {
    const auto& c = chunks[i];
    EXPECT_EQ(c.first, covered);
    if (i + 1 < chunks.size()) {
      EXPECT_GE(c.num_values, 2);
      EXPECT_EQ(int64_t{1} << c.log_num_values, c.num_values);
      EXPECT_LE(c.num_values, 2048);
    } else {
      EXPECT_EQ(c.log_num_values, 0);
    }
    BufferBuilder out;
    ASSERT_TRUE(WriteVariableChunk(offsets.data(),
                                   reinterpret_cast<const uint8_t*>(data.data()), c.first,
                                   c.num_values, &out)
                    .ok());
    EXPECT_EQ(out.length(), c.padded_bytes);
    EXPECT_EQ(out.length() % static_cast<int64_t>(sizeof(O)), 0);
    auto r = DecodeMiniBlock(e, {out.Finish().value()}, c.num_values);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (auto& v : testing::Values(*r)) decoded.push_back(v);
    covered += c.num_values;
  }
  EXPECT_EQ(covered, n);
  EXPECT_EQ(decoded, values);
  // The block layout.
  auto block = WriteVariableBlock(offsets.data(),
                                  reinterpret_cast<const uint8_t*>(data.data()), n);
  ASSERT_TRUE(block.ok());
  auto b = DecodeBlock(e, *block, n);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(testing::Values(*b), values);
}

TEST(Variable, ChunksAndBlocks) {
  std::mt19937 rng(3);
  std::vector<std::string> values;
  for (int i = 0; i < 5000; ++i)
    values.push_back(std::string(rng() % 30, static_cast<char>('a' + i % 26)));
  VariableChunksRoundTrip<uint32_t>(values, 0);
  VariableChunksRoundTrip<uint64_t>(values, 17);
  VariableChunksRoundTrip<uint32_t>({}, 0);
  VariableChunksRoundTrip<uint32_t>({""}, 0);
  VariableChunksRoundTrip<uint32_t>({"", "", ""}, 3);
  VariableChunksRoundTrip<uint32_t>(std::vector<std::string>(5000, ""), 0);
  // A value over 64 KiB still makes a chunk of at least two values.
  VariableChunksRoundTrip<uint32_t>(
      {std::string(70000, 'x'), "a", "b", std::string(66000, 'y')}, 0);
}

TEST(Variable, MatchesLanceChunking) {
  // 4-byte values: (n + 1) * 4 + 4n <= 4096 holds up to n = 511, so the first chunk
  // (a power of two) has 256 values; the remaining 344 fit one last chunk.
  std::vector<uint32_t> offsets;
  for (uint32_t i = 0; i <= 600; ++i) offsets.push_back(4 * i);
  const auto chunks = PlanVariableChunks(offsets.data(), 600);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].num_values, 256);
  EXPECT_EQ(chunks[0].log_num_values, 8);
  EXPECT_EQ(chunks[1].num_values, 344);
  EXPECT_EQ(chunks[1].padded_bytes, 345 * 4 + 344 * 4);
}

TEST(Variable, ReadsTheOldBlockLayout) {
  // u8 bits (32), u32 value count, u32 bytes_start, offsets, bytes.
  std::string old;
  old.push_back(32);
  const uint32_t count = 2, start = 9 + 12;
  old.append(reinterpret_cast<const char*>(&count), 4);
  old.append(reinterpret_cast<const char*>(&start), 4);
  for (uint32_t o : {0u, 3u, 5u}) old.append(reinterpret_cast<const char*>(&o), 4);
  old += "abcde";
  auto r = ReadVariableBlock(Buf(old), 2);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(testing::Values(*r), (std::vector<std::string>{"abc", "de"}));
  EXPECT_FALSE(ReadVariableBlock(Buf(old), 3).ok());
}

TEST(Variable, RejectsDamage) {
  pb21::CompressiveEncoding e;
  *e.mutable_variable()->mutable_offsets() = Flat(32);
  auto chunk = [](std::vector<uint32_t> offs, std::string bytes) {
    std::string s;
    for (uint32_t o : offs) s.append(reinterpret_cast<const char*>(&o), 4);
    return Buf(s + bytes);
  };
  EXPECT_TRUE(DecodeMiniBlock(e, {chunk({12, 13, 14}, "ab\x48\x48")}, 2).ok());
  EXPECT_FALSE(
      DecodeMiniBlock(e, {chunk({12, 13, 14}, "ab\x48\x48")}, 4).ok());  // too many
  EXPECT_FALSE(
      DecodeMiniBlock(e, {chunk({4, 13, 14}, "ab\x48\x48")}, 2).ok());  // overlap
  EXPECT_FALSE(
      DecodeMiniBlock(e, {chunk({12, 14, 13}, "ab\x48\x48")}, 2).ok());  // decreasing
  EXPECT_FALSE(
      DecodeMiniBlock(e, {chunk({12, 13, 99}, "ab\x48\x48")}, 2).ok());   // past end
  EXPECT_FALSE(DecodeMiniBlock(e, {Buf(std::string("abcde"))}, 1).ok());  // not /4
  // Generic (non-flat) offsets are Lance 2.3.
  pb21::CompressiveEncoding generic;
  generic.mutable_variable()
      ->mutable_offsets()
      ->mutable_inline_bitpacking()
      ->set_uncompressed_bits_per_value(32);
  EXPECT_EQ(
      DecodeMiniBlock(generic, {chunk({12, 13, 14}, "ab\x48\x48")}, 2).status().code(),
      StatusCode::kNotImplemented);
  // Blocks: first offset not 0, wrong offsets size, short header.
  std::string blk;
  for (uint32_t v : {32u, 20u, 1u, 2u, 3u})
    blk.append(reinterpret_cast<const char*>(&v), 4);
  EXPECT_FALSE(DecodeBlock(e, Buf(blk + "abc"), 2).ok());
  EXPECT_FALSE(DecodeBlock(e, Buf(blk + "abc"), 5).ok());
  EXPECT_FALSE(DecodeBlock(e, Buf(std::string("\x20\x00", 2)), 0).ok());
}

}  // namespace
}  // namespace lance::format::codecs

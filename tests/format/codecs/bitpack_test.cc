// SPDX-License-Identifier: Apache-2.0
// FastLanes bit-packing: the kernels against a bit-by-bit model of the layout, for every
// type and width, and the inline / out-of-line forms through the codec entry points.

#include "format/codecs/bitpack.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "format/codecs/codecs.h"
#include "tests/format/codecs/codec_test_util.h"

namespace lance::format::codecs {
namespace {

using testing::Buf;

// The layout written out literally (bitpack.h): value idx(row, lane) owns bits
// [row * W, row * W + W) of lane `lane`'s stream, whose bit b is bit b % T of word
// LANES * (b / T) + lane.
template <typename T>
std::vector<T> ModelPack(int width, const std::vector<T>& in) {
  const int t = sizeof(T) * 8, lanes = 1024 / t;
  std::vector<T> out(static_cast<size_t>(PackedWords<T>(width)), 0);
  for (int lane = 0; lane < lanes; ++lane) {
    for (int row = 0; row < t; ++row) {
      const int idx = kFastLanesOrder[row / 8] * 16 + (row % 8) * 128 + lane;
      for (int bit = 0; bit < width; ++bit) {
        if (!((static_cast<uint64_t>(in[idx]) >> bit) & 1)) continue;
        const int b = row * width + bit;
        out[static_cast<size_t>(lanes * (b / t) + lane)] |=
            static_cast<T>(T{1} << (b % t));
      }
    }
  }
  return out;
}

template <typename T>
std::vector<T> RandomValues(int width, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(1024);
  for (auto& x : v) {
    const uint64_t r = rng();
    x = static_cast<T>(width >= 64 ? r : r & ((uint64_t{1} << width) - 1));
  }
  return v;
}

template <typename T>
void CheckAllWidths() {
  constexpr int kT = sizeof(T) * 8;
  for (int w = 0; w <= kT; ++w) {
    SCOPED_TRACE("T=" + std::to_string(kT) + " W=" + std::to_string(w));
    const std::vector<T> in = RandomValues<T>(w, 7u * w + kT);
    std::vector<T> packed(static_cast<size_t>(PackedWords<T>(w)) + 1, T{0x5A});
    FastLanesPack<T>(w, in.data(), packed.data());
    EXPECT_EQ(packed.back(), T{0x5A}) << "packing wrote past PackedWords";
    packed.pop_back();
    EXPECT_EQ(packed, ModelPack<T>(w, in));
    std::vector<T> out(1024, T{0x77});
    FastLanesUnpack<T>(w, packed.data(), out.data());
    EXPECT_EQ(out, in);
    EXPECT_EQ(BitWidth(in.data(), 1024) <= w, true);
  }
}

TEST(FastLanes, EveryWidthMatchesTheLayoutModel) {
  CheckAllWidths<uint8_t>();
  CheckAllWidths<uint16_t>();
  CheckAllWidths<uint32_t>();
  CheckAllWidths<uint64_t>();
}

TEST(FastLanes, PackingKeepsOnlyTheLowBits) {
  std::vector<uint32_t> in(1024, 0xFFFFFFFFu);
  std::vector<uint32_t> packed(static_cast<size_t>(PackedWords<uint32_t>(3)));
  FastLanesPack<uint32_t>(3, in.data(), packed.data());
  std::vector<uint32_t> out(1024);
  FastLanesUnpack<uint32_t>(3, packed.data(), out.data());
  for (uint32_t v : out) ASSERT_EQ(v, 7u);
}

TEST(FastLanes, BitWidth) {
  const uint16_t zeros[3] = {0, 0, 0};
  EXPECT_EQ(BitWidth(zeros, 3), 0);
  const uint16_t v[3] = {1, 0, 0x400};
  EXPECT_EQ(BitWidth(v, 3), 11);
  const uint64_t big[1] = {~uint64_t{0}};
  EXPECT_EQ(BitWidth(big, 1), 64);
  EXPECT_EQ(BitWidth(big, 0), 0);
}

// --- inline bit-packing through the decoders -------------------------------------------

pb21::CompressiveEncoding Inline(int bits) {
  pb21::CompressiveEncoding e;
  e.mutable_inline_bitpacking()->set_uncompressed_bits_per_value(bits);
  return e;
}

template <typename T>
std::vector<T> Ramp(int64_t n, uint64_t mul, uint64_t add) {
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = static_cast<T>(i * mul + add);
  return v;
}

template <typename T>
void ExpectValues(const DataBlock& b, const std::vector<T>& want) {
  ASSERT_EQ(b.kind, DataBlock::Kind::kFixed);
  ASSERT_EQ(b.bits_per_value, sizeof(T) * 8);
  ASSERT_EQ(b.num_values, static_cast<int64_t>(want.size()));
  ASSERT_GE(b.data->size(), static_cast<int64_t>(want.size() * sizeof(T)));
  std::vector<T> got(want.size());
  if (!want.empty()) std::memcpy(got.data(), b.data->data(), want.size() * sizeof(T));
  EXPECT_EQ(got, want);
}

template <typename T>
int OrWidth(const std::vector<T>& values) {
  uint64_t acc = 0;
  for (T v : values) acc |= v;
  return acc == 0 ? 0 : 64 - __builtin_clzll(acc);
}

template <typename T>
void InlineRoundTrip(const std::vector<T>& values, int expect_width = -1) {
  if (expect_width < 0) expect_width = OrWidth(values);
  BufferBuilder out;
  ASSERT_TRUE(
      AppendInlineBitpacked(values.data(), static_cast<int64_t>(values.size()), &out)
          .ok());
  auto buf = out.Finish().value();
  T width;
  std::memcpy(&width, buf->data(), sizeof(T));
  EXPECT_EQ(width, static_cast<T>(expect_width));
  EXPECT_EQ(buf->size(),
            static_cast<int64_t>(sizeof(T) * (1 + PackedWords<T>(expect_width))));
  auto r =
      DecodeMiniBlock(Inline(sizeof(T) * 8), {buf}, static_cast<int64_t>(values.size()));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectValues(*r, values);
  auto b = DecodeBlock(Inline(sizeof(T) * 8), buf, static_cast<int64_t>(values.size()));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ExpectValues(*b, values);
}

TEST(InlineBitpacking, RoundTripsEdgeCounts) {
  for (int64_t n : {1, 2, 1023, 1024}) {
    SCOPED_TRACE(n);
    InlineRoundTrip(Ramp<uint8_t>(n, 1, 0));
    InlineRoundTrip(Ramp<uint16_t>(n, 3, 0));
    InlineRoundTrip(Ramp<uint32_t>(n, 1, 5));
    InlineRoundTrip(Ramp<uint64_t>(n, 1ull << 40, 0));
  }
}

TEST(InlineBitpacking, ZeroWidthFullWidthAndNegatives) {
  InlineRoundTrip(std::vector<uint32_t>(700, 0), 0);
  InlineRoundTrip(std::vector<uint8_t>(1024, 0xFF), 8);
  InlineRoundTrip(std::vector<uint64_t>(5, ~uint64_t{0}), 64);
  std::vector<uint32_t> negatives;
  for (int i = 0; i < 1000; ++i) negatives.push_back(static_cast<uint32_t>(i % 7 - 3));
  InlineRoundTrip(negatives, 32);
}

TEST(InlineBitpacking, ZeroValuesNeedNoHeader) {
  auto r = DecodeMiniBlock(Inline(16), {Buf(std::string())}, 0);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->num_values, 0);
  auto b = DecodeBlock(Inline(64), Buf(std::string()), 0);
  ASSERT_TRUE(b.ok());
}

TEST(InlineBitpacking, BlockReadsConsecutiveChunks) {
  const auto values = Ramp<uint16_t>(2500, 7, 1);
  BufferBuilder out;
  for (size_t i = 0; i < values.size(); i += 1024) {
    const size_t n = std::min<size_t>(1024, values.size() - i);
    ASSERT_TRUE(
        AppendInlineBitpacked(values.data() + i, static_cast<int64_t>(n), &out).ok());
  }
  auto buf = out.Finish().value();
  auto b = DecodeBlock(Inline(16), buf, 2500);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ExpectValues(*b, values);
  // A mini-block chunk is one FastLanes block.
  EXPECT_FALSE(DecodeMiniBlock(Inline(16), {buf}, 2500).ok());
}

TEST(InlineBitpacking, RejectsDamage) {
  const auto values = Ramp<uint32_t>(1000, 1, 0);
  BufferBuilder out;
  ASSERT_TRUE(AppendInlineBitpacked(values.data(), 1000, &out).ok());
  const std::string bytes = testing::Str(out.Finish().value());
  // Truncated payload, payload with extra bytes, width above T, no header.
  EXPECT_EQ(DecodeMiniBlock(Inline(32), {Buf(bytes.substr(0, bytes.size() - 4))}, 1000)
                .status()
                .code(),
            StatusCode::kCorrupt);
  EXPECT_FALSE(DecodeMiniBlock(Inline(32), {Buf(bytes + "1234")}, 1000).ok());
  std::string wide = bytes;
  wide[0] = 33;
  EXPECT_FALSE(DecodeMiniBlock(Inline(32), {Buf(wide)}, 1000).ok());
  EXPECT_FALSE(DecodeMiniBlock(Inline(32), {Buf(std::string("ab"))}, 3).ok());
  EXPECT_FALSE(DecodeMiniBlock(Inline(32), {Buf(bytes)}, 1025).ok());
  EXPECT_EQ(DecodeMiniBlock(Inline(12), {Buf(bytes)}, 10).status().code(),
            StatusCode::kNotImplemented);
  // A block claiming far more values than its bytes can hold.
  EXPECT_FALSE(DecodeBlock(Inline(32), Buf(bytes), int64_t{1} << 38).ok());
}

// --- out-of-line bit-packing -----------------------------------------------------------

pb21::CompressiveEncoding OutOfLine(int bits, int width) {
  pb21::CompressiveEncoding e;
  e.mutable_out_of_line_bitpacking()->set_uncompressed_bits_per_value(bits);
  e.mutable_out_of_line_bitpacking()
      ->mutable_values()
      ->mutable_flat()
      ->set_bits_per_value(width);
  return e;
}

template <typename T>
void OutOfLineRoundTrip(int64_t n, int width) {
  SCOPED_TRACE("T=" + std::to_string(sizeof(T) * 8) + " n=" + std::to_string(n) +
               " W=" + std::to_string(width));
  std::vector<T> values(static_cast<size_t>(n));
  std::mt19937_64 rng(static_cast<uint64_t>(n * 131 + width));
  for (auto& v : values) {
    v = static_cast<T>(width >= 64 ? rng() : rng() & ((uint64_t{1} << width) - 1));
  }
  BufferBuilder out;
  ASSERT_TRUE(AppendOutOfLineBitpacked(values.data(), n, width, &out).ok());
  BufferPtr buf = out.length() > 0 ? out.Finish().value() : Buf(std::string());
  auto r = DecodeBlock(OutOfLine(sizeof(T) * 8, width), buf, n);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectValues(*r, values);
}

TEST(OutOfLineBitpacking, RoundTripsBothTailForms) {
  for (int64_t n : {0, 1, 5, 1023, 1024, 1025, 2047, 5000}) {
    for (int w : {0, 1, 2, 3, 7, 8, 9, 15, 16}) {
      OutOfLineRoundTrip<uint16_t>(n, w);
    }
    OutOfLineRoundTrip<uint8_t>(n, 5);
    OutOfLineRoundTrip<uint32_t>(n, 17);
    OutOfLineRoundTrip<uint64_t>(n, 33);
    OutOfLineRoundTrip<uint64_t>(n, 64);
  }
}

TEST(OutOfLineBitpacking, TailFormFollowsLance) {
  // 1030 values at 1 bit: the 6-value tail costs 1018 padding bits but saves 90: raw.
  std::vector<uint16_t> v(1030, 1);
  BufferBuilder out;
  ASSERT_TRUE(AppendOutOfLineBitpacked(v.data(), 1030, 1, &out).ok());
  EXPECT_EQ(out.length(), 128 + 6 * 2);
  // 2000 values at 1 bit: the 976-value tail is packed.
  std::vector<uint16_t> w(2000, 1);
  BufferBuilder out2;
  ASSERT_TRUE(AppendOutOfLineBitpacked(w.data(), 2000, 1, &out2).ok());
  EXPECT_EQ(out2.length(), 256);
}

TEST(OutOfLineBitpacking, RejectsDamage) {
  std::vector<uint16_t> v(3000, 3);
  BufferBuilder out;
  ASSERT_TRUE(AppendOutOfLineBitpacked(v.data(), 3000, 2, &out).ok());
  const std::string bytes = testing::Str(out.Finish().value());
  EXPECT_EQ(DecodeBlock(OutOfLine(16, 2), Buf(bytes.substr(1)), 3000).status().code(),
            StatusCode::kCorrupt);
  EXPECT_FALSE(DecodeBlock(OutOfLine(16, 2), Buf(bytes), 2047).ok());
  EXPECT_FALSE(DecodeBlock(OutOfLine(16, 17), Buf(bytes), 3000).ok());
  EXPECT_FALSE(DecodeBlock(OutOfLine(16, 2), Buf(bytes), int64_t{1} << 45).ok());
  pb21::CompressiveEncoding e = OutOfLine(16, 2);
  e.mutable_out_of_line_bitpacking()->mutable_values()->mutable_constant();
  EXPECT_EQ(DecodeBlock(e, Buf(bytes), 3000).status().code(),
            StatusCode::kNotImplemented);
  // Out-of-line bit-packing is a block encoding only.
  EXPECT_EQ(DecodeMiniBlock(OutOfLine(16, 2), {Buf(bytes)}, 3000).status().code(),
            StatusCode::kNotImplemented);
}

}  // namespace
}  // namespace lance::format::codecs

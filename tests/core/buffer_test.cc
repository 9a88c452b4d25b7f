// SPDX-License-Identifier: Apache-2.0
#include "lance/core/buffer.h"

#include <gtest/gtest.h>

#include <cstring>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "lance/core/array_data.h"
#include "tests/testing/matchers.h"

namespace lance {
namespace {

using ::lance::testing::IsError;

bool IsAligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; }

void ExpectZeroPadding(const Buffer& buffer) {
  for (int64_t i = buffer.size(); i < buffer.capacity(); ++i) {
    ASSERT_EQ(buffer.data()[i], 0) << "padding byte " << i;
  }
}

TEST(BufferTest, AllocateIsAlignedZeroedAndRoundedUp) {
  for (int64_t size : {0, 1, 63, 64, 65, 1000}) {
    ASSERT_OK_AND_ASSIGN(auto buffer, Buffer::Allocate(size));
    EXPECT_EQ(buffer->size(), size);
    EXPECT_NE(buffer->data(), nullptr);
    EXPECT_TRUE(IsAligned(buffer->data()));
    EXPECT_EQ(buffer->capacity() % 64, 0);
    EXPECT_GE(buffer->capacity(), std::max<int64_t>(size, 64));
    EXPECT_LT(buffer->capacity(), size + 64 + 1);
    EXPECT_TRUE(buffer->is_mutable());
    for (int64_t i = 0; i < buffer->capacity(); ++i) ASSERT_EQ(buffer->data()[i], 0);
  }
}

TEST(BufferTest, AllocateRejectsNegativeSize) {
  EXPECT_THAT(Buffer::Allocate(-1), IsError(StatusCode::kInvalid));
}

TEST(BufferTest, CopyFromCopies) {
  const std::string text = "hello, buffer";
  ASSERT_OK_AND_ASSIGN(auto buffer, Buffer::CopyFrom(text.data(), text.size()));
  EXPECT_EQ(buffer->ToStringView(), text);
  EXPECT_NE(static_cast<const void*>(buffer->data()),
            static_cast<const void*>(text.data()));
  EXPECT_TRUE(IsAligned(buffer->data()));
  ExpectZeroPadding(*buffer);
}

TEST(BufferTest, FromStringKeepsBytes) {
  std::string text(1000, 'x');
  text[10] = 'y';
  const char* original = text.data();
  auto buffer = Buffer::FromString(std::move(text));
  EXPECT_EQ(buffer->size(), 1000);
  EXPECT_EQ(buffer->data()[10], 'y');
  EXPECT_EQ(static_cast<const void*>(buffer->data()), static_cast<const void*>(original));
  EXPECT_FALSE(buffer->is_mutable());
  EXPECT_EQ(buffer->capacity(), 1000);

  auto small = Buffer::FromString("ab");
  EXPECT_EQ(small->ToStringView(), "ab");
}

TEST(BufferTest, SliceKeepsParentAlive) {
  BufferPtr slice;
  {
    ASSERT_OK_AND_ASSIGN(auto parent, Buffer::CopyFrom("0123456789", 10));
    slice = Buffer::Slice(parent, 3, 4);
  }
  EXPECT_EQ(slice->ToStringView(), "3456");
  EXPECT_EQ(slice->size(), 4);
  EXPECT_FALSE(slice->is_mutable());
}

TEST(BufferTest, SliceIsClamped) {
  auto parent = Buffer::FromString("abcdef");
  EXPECT_EQ(Buffer::Slice(parent, 4, 100)->ToStringView(), "ef");
  EXPECT_EQ(Buffer::Slice(parent, 10, 3)->size(), 0);
}

TEST(BufferTest, ViewWithOwner) {
  auto owner = std::make_shared<std::vector<uint8_t>>(std::vector<uint8_t>{1, 2, 3});
  Buffer view(owner->data(), 3, owner);
  std::weak_ptr<std::vector<uint8_t>> weak = owner;
  owner.reset();
  EXPECT_FALSE(weak.expired());
  EXPECT_EQ(view.data()[2], 3);
}

TEST(BufferTest, Equals) {
  auto a = Buffer::FromString("abc");
  auto b = Buffer::FromString("abc");
  auto c = Buffer::FromString("abd");
  auto d = Buffer::FromString("ab");
  EXPECT_TRUE(a->Equals(*b));
  EXPECT_FALSE(a->Equals(*c));
  EXPECT_FALSE(a->Equals(*d));
}

TEST(BufferBuilderTest, GrowsAndKeepsContents) {
  BufferBuilder builder;
  EXPECT_EQ(builder.length(), 0);
  for (int32_t i = 0; i < 10000; ++i) ASSERT_OK(builder.AppendValue(i));
  ASSERT_OK(builder.Append("xyz", 3));
  ASSERT_OK(builder.AppendZeros(5));
  EXPECT_EQ(builder.length(), 40000 + 8);
  ASSERT_OK_AND_ASSIGN(auto buffer, builder.Finish());
  EXPECT_EQ(buffer->size(), 40008);
  EXPECT_TRUE(IsAligned(buffer->data()));
  const auto* ints = buffer->data_as<int32_t>();
  for (int32_t i = 0; i < 10000; ++i) ASSERT_EQ(ints[i], i);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(buffer->data()) + 40000, 3), "xyz");
  for (int i = 40003; i < 40008; ++i) EXPECT_EQ(buffer->data()[i], 0);
  ExpectZeroPadding(*buffer);
  // Finish resets the builder.
  EXPECT_EQ(builder.length(), 0);
  EXPECT_EQ(builder.data(), nullptr);
}

TEST(BufferBuilderTest, ReserveDoesNotChangeLength) {
  BufferBuilder builder;
  ASSERT_OK(builder.Reserve(1000));
  EXPECT_EQ(builder.length(), 0);
  const uint8_t* before = builder.data();
  ASSERT_NE(before, nullptr);
  for (int i = 0; i < 1000; ++i) ASSERT_OK(builder.AppendValue<uint8_t>(1));
  EXPECT_EQ(builder.data(), before) << "no reallocation within the reserved capacity";
  EXPECT_THAT(builder.Reserve(-1), IsError(StatusCode::kInvalid));
}

TEST(BufferBuilderTest, PaddingZeroedEvenIfTouchedPastLength) {
  BufferBuilder builder;
  ASSERT_OK(builder.Append("abc", 3));
  builder.mutable_data()[5] = 0xff;  // scribble past length()
  ASSERT_OK_AND_ASSIGN(auto buffer, builder.Finish());
  EXPECT_EQ(buffer->size(), 3);
  ExpectZeroPadding(*buffer);
}

TEST(BufferBuilderTest, EmptyFinishGivesEmptyAlignedBuffer) {
  BufferBuilder builder;
  ASSERT_OK_AND_ASSIGN(auto buffer, builder.Finish());
  EXPECT_EQ(buffer->size(), 0);
  EXPECT_NE(buffer->data(), nullptr);
  EXPECT_TRUE(IsAligned(buffer->data()));
}

TEST(BufferBuilderTest, ExtendHandsOutZeroedRoomThatSurvivesGrowth) {
  BufferBuilder builder;
  ASSERT_OK(builder.Append("ab", 2));
  ASSERT_OK_AND_ASSIGN(uint8_t * room, builder.Extend(6));
  EXPECT_EQ(builder.length(), 8);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(room[i], 0) << i;
  std::memcpy(room, "cdefgh", 6);
  // Growing copies what was written and leaves zeros after it (builders rely on that).
  ASSERT_OK_AND_ASSIGN(uint8_t * more, builder.Extend(5000));
  EXPECT_EQ(builder.length(), 5008);
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(more[i], 0) << i;
  ASSERT_OK(builder.Reserve(100000));
  for (int64_t i = builder.length(); i < builder.length() + 100000; ++i) {
    ASSERT_EQ(builder.mutable_data()[i], 0) << i;
  }
  EXPECT_THAT(builder.Extend(-1), IsError(StatusCode::kInvalid));
  ASSERT_OK_AND_ASSIGN(auto buffer, builder.Finish());
  EXPECT_EQ(buffer->ToStringView().substr(0, 8), "abcdefgh");
  ExpectZeroPadding(*buffer);
}

TEST(BufferBuilderTest, ResetDiscards) {
  BufferBuilder builder;
  ASSERT_OK(builder.Append("abc", 3));
  builder.Reset();
  EXPECT_EQ(builder.length(), 0);
  ASSERT_OK(builder.Append("z", 1));
  ASSERT_OK_AND_ASSIGN(auto buffer, builder.Finish());
  EXPECT_EQ(buffer->ToStringView(), "z");
}

// ---------------------------------------------------------------------------------------
// bit_util

std::vector<uint8_t> RandomBits(std::mt19937* rng, size_t bytes) {
  std::vector<uint8_t> out(bytes);
  for (auto& b : out) b = static_cast<uint8_t>((*rng)());
  return out;
}

TEST(BitUtilTest, GetSetClear) {
  uint8_t bits[2] = {0, 0};
  bit_util::SetBit(bits, 0);
  bit_util::SetBit(bits, 9);
  EXPECT_EQ(bits[0], 0x01);
  EXPECT_EQ(bits[1], 0x02);
  EXPECT_TRUE(bit_util::GetBit(bits, 9));
  bit_util::ClearBit(bits, 9);
  EXPECT_EQ(bits[1], 0);
  bit_util::SetBitTo(bits, 7, true);
  EXPECT_EQ(bits[0], 0x81);
  EXPECT_EQ(bit_util::BytesForBits(0), 0);
  EXPECT_EQ(bit_util::BytesForBits(1), 1);
  EXPECT_EQ(bit_util::BytesForBits(8), 1);
  EXPECT_EQ(bit_util::BytesForBits(9), 2);
}

TEST(BitUtilTest, CountSetBitsMatchesNaive) {
  std::mt19937 rng(42);
  auto bits = RandomBits(&rng, 64);
  for (int64_t offset = 0; offset < 70; offset += 3) {
    for (int64_t length = 0; offset + length <= 512; length += 7) {
      int64_t expected = 0;
      for (int64_t i = offset; i < offset + length; ++i)
        expected += bit_util::GetBit(bits.data(), i);
      ASSERT_EQ(bit_util::CountSetBits(bits.data(), offset, length), expected)
          << "offset " << offset << " length " << length;
    }
  }
  const uint8_t ones[2] = {0xff, 0xff};
  EXPECT_EQ(bit_util::CountSetBits(ones, 3, 10), 10);
  EXPECT_EQ(bit_util::CountSetBits(ones, 0, 0), 0);
}

TEST(BitUtilTest, CopyBitsMatchesNaiveAndPreservesNeighbours) {
  std::mt19937 rng(7);
  auto src = RandomBits(&rng, 40);
  for (int64_t src_offset : {0, 1, 3, 8, 13}) {
    for (int64_t dst_offset : {0, 2, 5, 8, 11}) {
      for (int64_t length : {0, 1, 7, 8, 9, 31, 64, 100, 250}) {
        if (src_offset + length > 320) continue;
        auto dst = RandomBits(&rng, 40);
        auto expected = dst;
        for (int64_t i = 0; i < length; ++i) {
          bit_util::SetBitTo(expected.data(), dst_offset + i,
                             bit_util::GetBit(src.data(), src_offset + i));
        }
        bit_util::CopyBits(src.data(), src_offset, length, dst.data(), dst_offset);
        ASSERT_EQ(dst, expected) << "src_offset " << src_offset << " dst_offset "
                                 << dst_offset << " length " << length;
      }
    }
  }
}

}  // namespace
}  // namespace lance

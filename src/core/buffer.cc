// SPDX-License-Identifier: Apache-2.0

#include "lance/core/buffer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "lance/macros.h"

namespace lance {

namespace {

// Every allocation is a whole number of 64-byte blocks, and at least one, so that data()
// is never null and SIMD readers may touch the padding.
int64_t RoundUpToAlignment(int64_t size) {
  const int64_t rounded =
      (size + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  return std::max<int64_t>(rounded, kBufferAlignment);
}

}  // namespace

Buffer::Buffer(const uint8_t* data, int64_t size, std::shared_ptr<const void> owner)
    : data_(data), size_(size), capacity_(size), owner_(std::move(owner)) {}

Buffer::~Buffer() {
  if (owns_allocation_) std::free(const_cast<uint8_t*>(data_));
}

Result<BufferPtr> Buffer::AllocateForOverwrite(int64_t size) {
  if (size < 0) {
    return Status::Invalid("allocating a buffer of negative size " +
                           std::to_string(size));
  }
  if (size > std::numeric_limits<int64_t>::max() - kBufferAlignment) {
    return Status::IOError("out of memory allocating " + std::to_string(size) + " bytes");
  }
  const int64_t capacity = RoundUpToAlignment(size);
  void* memory = std::aligned_alloc(static_cast<size_t>(kBufferAlignment),
                                    static_cast<size_t>(capacity));
  if (memory == nullptr) {
    return Status::IOError("out of memory allocating " + std::to_string(size) + " bytes");
  }
  // The padding is always zeroed, so no uninitialised byte is ever exported or written.
  std::memset(static_cast<uint8_t*>(memory) + size, 0, static_cast<size_t>(capacity - size));
  auto buffer = std::make_shared<Buffer>(static_cast<const uint8_t*>(memory), size);
  buffer->capacity_ = capacity;
  buffer->is_mutable_ = true;
  buffer->owns_allocation_ = true;
  return buffer;
}

Result<BufferPtr> Buffer::Allocate(int64_t size) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr buffer, AllocateForOverwrite(size));
  // Zeroing everything makes builders' "append zeros" free.
  if (size > 0) std::memset(buffer->mutable_data(), 0, static_cast<size_t>(size));
  return buffer;
}

Result<BufferPtr> Buffer::CopyFrom(const void* bytes, int64_t size) {
  auto result = AllocateForOverwrite(size);
  if (!result.ok()) return result.status();
  BufferPtr buffer = std::move(result).MoveValueUnsafe();
  if (size > 0) std::memcpy(buffer->mutable_data(), bytes, static_cast<size_t>(size));
  return buffer;
}

BufferPtr Buffer::FromString(std::string bytes) {
  // The string lives on the heap behind the owner pointer, so its data pointer (even for
  // a short, inline string) stays put for the Buffer's lifetime.
  auto holder = std::make_shared<std::string>(std::move(bytes));
  const auto* data = reinterpret_cast<const uint8_t*>(holder->data());
  const auto size = static_cast<int64_t>(holder->size());
  return std::make_shared<Buffer>(data, size, std::move(holder));
}

BufferPtr Buffer::Slice(const BufferPtr& parent, int64_t offset, int64_t length) {
  // Out-of-range requests are clamped rather than reported: a view can never reach past
  // its parent, which is the property callers rely on.
  offset = std::clamp<int64_t>(offset, 0, parent->size());
  length = std::clamp<int64_t>(length, 0, parent->size() - offset);
  return std::make_shared<Buffer>(parent->data() + offset, length, parent);
}

// ---------------------------------------------------------------------------------------
// BufferBuilder

Status BufferBuilder::Reserve(int64_t additional_bytes) {
  if (additional_bytes < 0) {
    return Status::Invalid("reserving a negative number of bytes in a buffer builder");
  }
  const int64_t needed = length_ + additional_bytes;
  const int64_t capacity = buffer_ ? buffer_->capacity() : 0;
  if (needed <= capacity) return Status::OK();
  // Doubling keeps appends amortised O(1).
  const int64_t new_capacity = std::max(needed, capacity * 2);
  auto result = Buffer::AllocateForOverwrite(new_capacity);
  if (!result.ok()) {
    return result.status().WithContext("growing a buffer builder to " +
                                       std::to_string(new_capacity) + " bytes");
  }
  BufferPtr grown = std::move(result).MoveValueUnsafe();
  // Only the bytes past the copied ones are zeroed (builders rely on zeros past
  // length()); zeroing all of it first, as Allocate does, wrote the prefix twice.
  if (length_ > 0) std::memcpy(grown->mutable_data(), buffer_->data(), length_);
  std::memset(grown->mutable_data() + length_, 0, static_cast<size_t>(new_capacity - length_));
  buffer_ = std::move(grown);
  return Status::OK();
}

Status BufferBuilder::Append(const void* bytes, int64_t size) {
  if (size <= 0)
    return size == 0 ? Status::OK() : Status::Invalid("appending a negative byte count");
  Status st = Reserve(size);
  if (!st.ok()) return st;
  std::memcpy(buffer_->mutable_data() + length_, bytes, static_cast<size_t>(size));
  length_ += size;
  return Status::OK();
}

Result<uint8_t*> BufferBuilder::Extend(int64_t size) {
  if (size < 0) return Status::Invalid("extending a buffer builder by a negative size");
  LANCE_RETURN_NOT_OK(Reserve(size));
  uint8_t* at = buffer_ ? buffer_->mutable_data() + length_ : nullptr;
  length_ += size;
  return at;
}

Status BufferBuilder::AppendZeros(int64_t count) {
  if (count <= 0)
    return count == 0 ? Status::OK() : Status::Invalid("appending a negative byte count");
  Status st = Reserve(count);
  if (!st.ok()) return st;
  std::memset(buffer_->mutable_data() + length_, 0, static_cast<size_t>(count));
  length_ += count;
  return Status::OK();
}

Result<BufferPtr> BufferBuilder::Finish() {
  if (!buffer_) {
    Reset();
    return Buffer::Allocate(0);
  }
  // Callers may have poked bytes just past length() through mutable_data() (bitmap
  // builders touch whole bytes); re-zero up to the alignment boundary so the padding
  // that readers may see is deterministic.
  const int64_t padded = std::min(buffer_->capacity(), RoundUpToAlignment(length_));
  std::memset(buffer_->mutable_data() + length_, 0,
              static_cast<size_t>(padded - length_));
  buffer_->Resize(length_);
  BufferPtr out = std::move(buffer_);
  Reset();
  return out;
}

void BufferBuilder::Reset() {
  buffer_.reset();
  length_ = 0;
}

}  // namespace lance

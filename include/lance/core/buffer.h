// SPDX-License-Identifier: Apache-2.0
/// \file buffer.h
/// \brief Immutable byte buffers, 64-byte aligned when allocated here.
///
/// A Buffer either owns memory it allocated (64-byte aligned, size rounded up to a multiple
/// of 64 with zeroed padding, as Arrow recommends) or views memory kept alive by an opaque
/// owner (a parent buffer, a C Data Interface release guard, a mapped file). Buffers are
/// shared through `std::shared_ptr` and safe to read from many threads.

#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "lance/result.h"

namespace lance {

/// \brief Alignment of every buffer allocated by lance.
inline constexpr int64_t kBufferAlignment = 64;

class Buffer;
using BufferPtr = std::shared_ptr<Buffer>;

class Buffer {
 public:
  /// \brief Views `size` bytes at `data`, kept alive by `owner` (may be null for static
  /// or caller-managed memory).
  Buffer(const uint8_t* data, int64_t size, std::shared_ptr<const void> owner = nullptr);
  ~Buffer();

  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  /// \brief A zero-filled, 64-byte aligned, mutable buffer of `size` bytes.
  /// \return IOError("out of memory ...") if allocation fails.
  static Result<BufferPtr> Allocate(int64_t size);
  /// \brief As Allocate, but only the padding past `size` is zeroed: for buffers the
  /// caller fills completely right away (reads, copies), where zeroing is wasted work.
  static Result<BufferPtr> AllocateForOverwrite(int64_t size);
  /// \brief A 64-byte aligned copy of `bytes`.
  static Result<BufferPtr> CopyFrom(const void* bytes, int64_t size);
  /// \brief Takes ownership of a string's bytes without copying them.
  static BufferPtr FromString(std::string bytes);
  /// \brief A view of `parent[offset, offset + length)` that keeps `parent` alive.
  static BufferPtr Slice(const BufferPtr& parent, int64_t offset, int64_t length);

  const uint8_t* data() const { return data_; }
  /// \brief Writable pointer. REQUIRES: is_mutable().
  uint8_t* mutable_data() { return const_cast<uint8_t*>(data_); }
  int64_t size() const { return size_; }
  /// \brief Allocated bytes (>= size) for buffers allocated here; size() otherwise.
  int64_t capacity() const { return capacity_; }
  bool is_mutable() const { return is_mutable_; }

  template <typename T>
  const T* data_as() const {
    return reinterpret_cast<const T*>(data_);
  }
  template <typename T>
  T* mutable_data_as() {
    return reinterpret_cast<T*>(mutable_data());
  }
  std::string_view ToStringView() const {
    return {reinterpret_cast<const char*>(data_), static_cast<size_t>(size_)};
  }

  /// \brief Shrinks the logical size of a buffer allocated here (capacity is kept).
  /// REQUIRES: new_size <= capacity().
  void Resize(int64_t new_size) { size_ = new_size; }

  bool Equals(const Buffer& other) const {
    return size_ == other.size_ &&
           (data_ == other.data_ || std::memcmp(data_, other.data_, size_) == 0);
  }

 private:
  struct Owned;
  const uint8_t* data_;
  int64_t size_;
  int64_t capacity_;
  bool is_mutable_ = false;
  bool owns_allocation_ = false;
  std::shared_ptr<const void> owner_;
};

/// \brief Growable, 64-byte aligned byte sink used by builders and encoders.
class BufferBuilder {
 public:
  BufferBuilder() = default;

  Status Reserve(int64_t additional_bytes);
  Status Append(const void* bytes, int64_t size);
  template <typename T>
  Status AppendValue(const T& value) {
    return Append(&value, sizeof(T));
  }
  /// \brief Appends `count` zero bytes.
  Status AppendZeros(int64_t count);
  /// \brief Grows the builder by `size` bytes (zero until written) and returns where
  /// they start, for bulk loops that fill many values without a call per value.
  Result<uint8_t*> Extend(int64_t size);
  int64_t length() const { return length_; }
  uint8_t* mutable_data() { return buffer_ ? buffer_->mutable_data() : nullptr; }
  const uint8_t* data() const { return buffer_ ? buffer_->data() : nullptr; }
  /// \brief Hands over the bytes written so far and resets the builder.
  Result<BufferPtr> Finish();
  void Reset();

 private:
  BufferPtr buffer_;
  int64_t length_ = 0;
};

}  // namespace lance

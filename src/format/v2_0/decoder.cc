// SPDX-License-Identifier: Apache-2.0
// Decoding of Lance file format v2.0 pages.

#include "format/v2_0/decoder.h"

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include "format/v2_container.h"
#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/macros.h"

namespace lance::format::internal {

namespace pb = lance::encodings;

struct PageDecoder::Fixed {
  BufferPtr validity;  // `count` bits from bit 0; null when every slot is valid
  int64_t null_count = 0;
  BufferPtr values;  // `count` values of `bits` bits from slot 0
};

struct PageDecoder::Binary {
  BufferPtr validity;
  int64_t null_count = 0;
  std::vector<int64_t> offsets;  // count + 1, relative to the start of `data`
  BufferPtr data;
};

// End offsets as v2.0 stores them: a null's end is shifted up by the page's null
// adjustment (when that is non-zero), or the index encoding itself marks it null.
struct PageDecoder::EncodedEnds {
  std::vector<uint64_t> ends;
  BufferPtr index_validity;
  uint64_t adjustment = 0;
  // Position of slot `start` in `ends`: 1 when the previous slot's end leads.
  int64_t base = 0;

  // The end offset ends[k] stands for.
  uint64_t End(int64_t k) const {
    return adjustment > 0 && ends[k] >= adjustment ? ends[k] - adjustment : ends[k];
  }
  bool IsNull(int64_t k) const {
    return (adjustment > 0 && ends[k] >= adjustment) ||
           (index_validity && !bit_util::GetBit(index_validity->data(), k));
  }
  // Where slot `start` begins.
  uint64_t Begin() const { return base > 0 ? End(0) : 0; }
};

namespace {

// The validity of decoded slots, built only once a null is seen, so that a slice without
// nulls gets no bitmap.
class LazyValidity {
 public:
  Status Append(int64_t i, bool null) {
    if (null) {
      if (bits_.length() == 0) LANCE_RETURN_NOT_OK(bits_.AppendN(i, true));
      return bits_.Append(false);
    }
    if (bits_.length() > 0) return bits_.Append(true);
    return Status::OK();
  }

  Status Finish(BufferPtr* validity, int64_t* null_count) {
    *null_count = bits_.false_count();
    if (bits_.length() > 0) {
      LANCE_ASSIGN_OR_RAISE(*validity, bits_.Finish());
    }
    return Status::OK();
  }

 private:
  BitmapBuilder bits_;
};

// Lengths in damaged files can be anything; no count we use may exceed this, which
// keeps every product of a count and a width far from int64 overflow.
constexpr int64_t kMaxCount = int64_t{1} << 50;

bool MulOverflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_mul_overflow(a, b, out) || *out > kMaxCount * 64;
}

// The name of the encoding's oneof field (the .proto is the one list of them); the
// fields after `constant` hold v2.1 building blocks, not v2.0 encodings.
std::string EncodingName(const pb::ArrayEncoding& e) {
  const int number = e.array_encoding_case();
  if (number == pb::ArrayEncoding::ARRAY_ENCODING_NOT_SET) return "(none)";
  if (number > pb::ArrayEncoding::kConstant) return "a v2.1 building block";
  return pb::ArrayEncoding::descriptor()->FindFieldByNumber(number)->name();
}

bool IsUnsupportedKnown(const pb::ArrayEncoding& e) {
  switch (e.array_encoding_case()) {
    case pb::ArrayEncoding::kBitpacked:
    case pb::ArrayEncoding::kBitpackedForNonNeg:
    case pb::ArrayEncoding::kFsst:
    case pb::ArrayEncoding::kPackedStruct:
      return true;
    default:
      return false;
  }
}

Result<BufferPtr> AllocateZeroed(int64_t bytes, int64_t limit = kMaxDecodedBytes) {
  if (bytes < 0 || bytes > limit) {
    return Status::Invalid("decoding would allocate ", bytes,
                           " bytes at once; read with a smaller batch_size");
  }
  return Buffer::Allocate(bytes);
}

// Zeroed bits for `count` slots the page does not store (all-null pages), within the
// limit of what decoding synthesizes.
Result<BufferPtr> SynthesizedBits(int64_t count) {
  return AllocateZeroed(bit_util::BytesForBits(count), kMaxSynthesizedBytes);
}

Result<BufferPtr> SliceBits(const BufferPtr& src, int64_t start, int64_t count) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, AllocateZeroed(bit_util::BytesForBits(count)));
  if (count > 0) bit_util::CopyBits(src->data(), start, count, out->mutable_data(), 0);
  return out;
}

/// A zero-copy view when the bytes are suitably aligned for their value width (typed
/// access to misaligned memory is undefined behaviour), else a copy.
Result<BufferPtr> SliceBytes(const BufferPtr& src, int64_t offset, int64_t length,
                             int64_t width) {
  const int64_t align = (width == 2 || width == 4 || width == 8) ? width : 1;
  const uint8_t* p = src->data() + offset;
  if (reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(align) == 0) {
    return Buffer::Slice(src, offset, length);
  }
  return Buffer::CopyFrom(p, length);
}

/// a AND b over `count` bits (either may be null = all valid).
Result<BufferPtr> AndBitmaps(const BufferPtr& a, const BufferPtr& b, int64_t count) {
  if (!a) return b;
  if (!b) return a;
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, AllocateZeroed(bit_util::BytesForBits(count)));
  const int64_t n = bit_util::BytesForBits(count);
  for (int64_t i = 0; i < n; ++i) out->mutable_data()[i] = a->data()[i] & b->data()[i];
  return out;
}

int64_t CountNulls(const BufferPtr& validity, int64_t count) {
  if (!validity) return 0;
  return count - bit_util::CountSetBits(validity->data(), 0, count);
}

/// Bits per value of the innermost flat/constant of an integer encoding (indices,
/// offsets), so that any integer width real writers chose can be widened.
int PeekIntegerBits(const pb::ArrayEncoding& e) {
  switch (e.array_encoding_case()) {
    case pb::ArrayEncoding::kFlat:
      return static_cast<int>(std::min<uint64_t>(e.flat().bits_per_value(), 1024));
    case pb::ArrayEncoding::kConstant:
      return static_cast<int>(std::min<size_t>(e.constant().value().size(), 128) * 8);
    case pb::ArrayEncoding::kNullable:
      if (e.nullable().has_no_nulls())
        return PeekIntegerBits(e.nullable().no_nulls().values());
      if (e.nullable().has_some_nulls()) {
        return PeekIntegerBits(e.nullable().some_nulls().values());
      }
      return 64;
    default:
      return 64;
  }
}

}  // namespace

Status PageDecoder::Corrupt(const std::string& message) const {
  return Status::Corrupt(context_, ": ", message);
}

Result<BufferPtr> PageDecoder::PageBuffer(const pb::Buffer& buffer) const {
  if (buffer.buffer_type() != pb::Buffer::page) {
    return Status::NotImplemented(
        context_,
        ": column- and file-level buffers in v2.0 pages are not "
        "supported");
  }
  if (buffer.buffer_index() >= page_->buffers.size()) {
    return Corrupt("buffer index " + std::to_string(buffer.buffer_index()) +
                   " but the page has " + std::to_string(page_->buffers.size()) +
                   " buffers");
  }
  return page_->buffers[buffer.buffer_index()];
}

Result<BufferPtr> PageDecoder::FlatBuffer(const pb::Flat& flat, int64_t page_length) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr raw, PageBuffer(flat.buffer()));
  if (!flat.has_compression() || flat.compression().scheme().empty()) return raw;
  auto cached = page_->decompressed.find(&flat);
  if (cached != page_->decompressed.end()) return cached->second;

  int64_t expected = -1;
  if (page_length >= 0) {
    int64_t bits = 0;
    if (MulOverflows(page_length, static_cast<int64_t>(flat.bits_per_value()), &bits)) {
      return Corrupt("page too large");
    }
    expected = bit_util::BytesForBits(bits);
  }
  const std::string& scheme = flat.compression().scheme();
  const uint8_t* src = raw->data();
  const int64_t size = raw->size();
  BufferPtr out;
  if (scheme == "zstd") {
    // Lance writes a u64 length prefix before the zstd stream; old files have a bare
    // zstd stream, recognized by its magic number and a clear reserved header bit.
    const bool raw_stream =
        size < 8 || (LoadLE<uint32_t>(src) == 0xFD2FB528u && (src[4] & 0x10) == 0);
    if (size == 0) {
      out = Buffer::FromString("");
    } else if (raw_stream) {
      const int64_t limit = expected >= 0 ? expected : kMaxDecodedBytes;
      BufferBuilder builder;
      ZSTD_DStream* stream = ZSTD_createDStream();
      if (stream == nullptr)
        return Status::IOError("out of memory creating a zstd stream");
      ZSTD_inBuffer in{src, static_cast<size_t>(size), 0};
      std::vector<uint8_t> chunk(ZSTD_DStreamOutSize());
      Status st;
      while (st.ok()) {
        ZSTD_outBuffer o{chunk.data(), chunk.size(), 0};
        const size_t r = ZSTD_decompressStream(stream, &o, &in);
        if (ZSTD_isError(r)) {
          st = Corrupt(std::string("zstd: ") + ZSTD_getErrorName(r));
          break;
        }
        if (builder.length() + static_cast<int64_t>(o.pos) > limit) {
          st = Corrupt("zstd data decompresses past the expected size");
          break;
        }
        st = builder.Append(chunk.data(), static_cast<int64_t>(o.pos));
        if (in.pos == in.size && o.pos < o.size) {
          if (r != 0) st = Corrupt("truncated zstd data");
          break;
        }
      }
      ZSTD_freeDStream(stream);
      LANCE_RETURN_NOT_OK(st);
      LANCE_ASSIGN_OR_RAISE(out, builder.Finish());
      if (!out) out = Buffer::FromString("");
    } else {
      const uint64_t n = LoadLE<uint64_t>(src);
      if (n > static_cast<uint64_t>(kMaxDecodedBytes) ||
          (expected >= 0 && n != static_cast<uint64_t>(expected))) {
        return Corrupt("zstd length prefix " + std::to_string(n) +
                       " does not fit the page");
      }
      LANCE_ASSIGN_OR_RAISE(BufferPtr dst, AllocateZeroed(static_cast<int64_t>(n)));
      const size_t r =
          ZSTD_decompress(dst->mutable_data(), n, src + 8, static_cast<size_t>(size - 8));
      if (ZSTD_isError(r) || r != n) return Corrupt("zstd data does not decompress");
      out = dst;
    }
  } else if (scheme == "lz4") {
    // lz4 block with a u32 little-endian uncompressed size in front.
    if (size < 4) return Corrupt("lz4 buffer too short");
    const uint32_t n = LoadLE<uint32_t>(src);
    if (static_cast<int64_t>(n) > kMaxDecodedBytes ||
        (expected >= 0 && static_cast<int64_t>(n) != expected) ||
        size - 4 > std::numeric_limits<int>::max()) {
      return Corrupt("lz4 size prefix " + std::to_string(n) + " does not fit the page");
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr dst, AllocateZeroed(n));
    const int r = LZ4_decompress_safe(reinterpret_cast<const char*>(src + 4),
                                      reinterpret_cast<char*>(dst->mutable_data()),
                                      static_cast<int>(size - 4), static_cast<int>(n));
    if (r < 0 || static_cast<uint32_t>(r) != n)
      return Corrupt("lz4 data does not decompress");
    out = dst;
  } else {
    return Status::NotImplemented(context_, ": compression scheme '", scheme,
                                  "' is not supported");
  }
  page_->decompressed[&flat] = out;
  return out;
}

Result<PageDecoder::Fixed> PageDecoder::DecodeFixed(const pb::ArrayEncoding& e,
                                                    int64_t page_length, int64_t start,
                                                    int64_t count, int bits) {
  switch (e.array_encoding_case()) {
    case pb::ArrayEncoding::kNullable: {
      const pb::Nullable& n = e.nullable();
      switch (n.nullability_case()) {
        case pb::Nullable::kNoNulls:
          return DecodeFixed(n.no_nulls().values(), page_length, start, count, bits);
        case pb::Nullable::kSomeNulls: {
          LANCE_ASSIGN_OR_RAISE(Fixed valid, DecodeFixed(n.some_nulls().validity(),
                                                         page_length, start, count, 1));
          LANCE_ASSIGN_OR_RAISE(Fixed out, DecodeFixed(n.some_nulls().values(),
                                                       page_length, start, count, bits));
          LANCE_ASSIGN_OR_RAISE(BufferPtr bits_valid,
                                AndBitmaps(valid.values, valid.validity, count));
          LANCE_ASSIGN_OR_RAISE(out.validity,
                                AndBitmaps(bits_valid, out.validity, count));
          out.null_count = CountNulls(out.validity, count);
          return out;
        }
        case pb::Nullable::kAllNulls: {
          Fixed out;
          int64_t total_bits = 0;
          if (MulOverflows(count, bits, &total_bits)) return Corrupt("page too large");
          LANCE_ASSIGN_OR_RAISE(out.validity, SynthesizedBits(count));
          LANCE_ASSIGN_OR_RAISE(out.values, SynthesizedBits(total_bits));
          out.null_count = count;
          return out;
        }
        default:
          return Corrupt("nullable encoding without a case");
      }
    }
    case pb::ArrayEncoding::kFlat: {
      const pb::Flat& flat = e.flat();
      if (flat.bits_per_value() != static_cast<uint64_t>(bits)) {
        return Corrupt("flat encoding with " + std::to_string(flat.bits_per_value()) +
                       " bits per value where " + std::to_string(bits) + " are expected");
      }
      if (bits != 1 && bits % 8 != 0) {
        return Status::NotImplemented(context_, ": flat encoding with ", bits,
                                      " bits per value");
      }
      LANCE_ASSIGN_OR_RAISE(BufferPtr buffer, FlatBuffer(flat, page_length));
      int64_t end_bits = 0;
      if (MulOverflows(start + count, bits, &end_bits) ||
          bit_util::BytesForBits(end_bits) > buffer->size()) {
        return Corrupt("flat buffer of " + std::to_string(buffer->size()) +
                       " bytes is too small for values up to slot " +
                       std::to_string(start + count));
      }
      Fixed out;
      if (bits == 1) {
        LANCE_ASSIGN_OR_RAISE(out.values, SliceBits(buffer, start, count));
      } else {
        const int64_t width = bits / 8;
        LANCE_ASSIGN_OR_RAISE(out.values,
                              SliceBytes(buffer, start * width, count * width, width));
      }
      return out;
    }
    case pb::ArrayEncoding::kConstant: {
      const std::string& value = e.constant().value();
      if (bits % 8 != 0 || value.size() != static_cast<size_t>(bits / 8)) {
        return Status::NotImplemented(context_, ": constant encoding of ", value.size(),
                                      " bytes for ", bits, "-bit values");
      }
      Fixed out;
      int64_t total = 0;
      if (MulOverflows(count, bits / 8, &total)) return Corrupt("page too large");
      LANCE_ASSIGN_OR_RAISE(out.values, AllocateZeroed(total));
      for (int64_t i = 0; i < count; ++i) {
        std::memcpy(out.values->mutable_data() + i * (bits / 8), value.data(),
                    value.size());
      }
      return out;
    }
    default:
      if (IsUnsupportedKnown(e)) {
        return Status::NotImplemented(context_, ": the v2.0 '", EncodingName(e),
                                      "' encoding is not supported by this build");
      }
      return Corrupt(std::string("unexpected '") + EncodingName(e) +
                     "' encoding for fixed-width values");
  }
}

Result<std::vector<uint64_t>> PageDecoder::DecodeIntegers(const pb::ArrayEncoding& e,
                                                          int64_t page_length,
                                                          int64_t start, int64_t count,
                                                          BufferPtr* validity) {
  const int bits = PeekIntegerBits(e);
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
    return Corrupt("integer encoding with " + std::to_string(bits) + " bits per value");
  }
  LANCE_ASSIGN_OR_RAISE(Fixed f, DecodeFixed(e, page_length, start, count, bits));
  *validity = f.null_count > 0 ? f.validity : nullptr;
  std::vector<uint64_t> out(static_cast<size_t>(count));
  const uint8_t* p = f.values->data();
  for (int64_t i = 0; i < count; ++i) {
    switch (bits) {
      case 8:
        out[i] = p[i];
        break;
      case 16:
        out[i] = LoadLE<uint16_t>(p + 2 * i);
        break;
      case 32:
        out[i] = LoadLE<uint32_t>(p + 4 * i);
        break;
      default:
        out[i] = LoadLE<uint64_t>(p + 8 * i);
        break;
    }
  }
  return out;
}

Result<PageDecoder::Binary> PageDecoder::DecodeNullableBinary(const pb::Nullable& n,
                                                              int64_t page_length,
                                                              int64_t start,
                                                              int64_t count) {
  switch (n.nullability_case()) {
    case pb::Nullable::kNoNulls:
      return DecodeBinary(n.no_nulls().values(), page_length, start, count);
    case pb::Nullable::kSomeNulls: {
      LANCE_ASSIGN_OR_RAISE(Fixed valid, DecodeFixed(n.some_nulls().validity(),
                                                     page_length, start, count, 1));
      LANCE_ASSIGN_OR_RAISE(
          Binary out, DecodeBinary(n.some_nulls().values(), page_length, start, count));
      LANCE_ASSIGN_OR_RAISE(out.validity, AndBitmaps(valid.values, out.validity, count));
      out.null_count = CountNulls(out.validity, count);
      return out;
    }
    case pb::Nullable::kAllNulls: {
      Binary out;
      out.offsets.assign(static_cast<size_t>(count) + 1, 0);
      LANCE_ASSIGN_OR_RAISE(out.validity, SynthesizedBits(count));
      out.null_count = count;
      out.data = Buffer::FromString("");
      return out;
    }
    default:
      return Corrupt("nullable encoding without a case");
  }
}

Result<PageDecoder::EncodedEnds> PageDecoder::DecodeEnds(const pb::ArrayEncoding& e,
                                                         uint64_t null_adjustment,
                                                         int64_t page_length,
                                                         int64_t start, int64_t count) {
  EncodedEnds out;
  out.adjustment = null_adjustment;
  out.base = start > 0 ? 1 : 0;
  LANCE_ASSIGN_OR_RAISE(out.ends, DecodeIntegers(e, page_length, start - out.base,
                                                 count + out.base, &out.index_validity));
  return out;
}

Result<PageDecoder::Binary> PageDecoder::DecodeOffsetsBinary(const pb::Binary& b,
                                                             int64_t page_length,
                                                             int64_t start,
                                                             int64_t count) {
  LANCE_ASSIGN_OR_RAISE(EncodedEnds ends, DecodeEnds(b.indices(), b.null_adjustment(),
                                                     page_length, start, count));
  Binary out;
  out.offsets.resize(static_cast<size_t>(count) + 1);
  const uint64_t data_start = ends.Begin();
  if (data_start > static_cast<uint64_t>(kMaxCount)) {
    return Corrupt("binary offset " + std::to_string(data_start) + " out of range");
  }
  uint64_t prev = data_start;
  LazyValidity validity;
  out.offsets[0] = 0;
  for (int64_t i = 0; i < count; ++i) {
    const bool null = ends.IsNull(ends.base + i);
    const uint64_t end = ends.End(ends.base + i);
    if (end < prev || end > static_cast<uint64_t>(kMaxCount)) {
      return Corrupt("binary offsets are not increasing at slot " +
                     std::to_string(start + i));
    }
    prev = end;
    out.offsets[i + 1] = static_cast<int64_t>(end - data_start);
    LANCE_RETURN_NOT_OK(validity.Append(i, null));
  }
  LANCE_RETURN_NOT_OK(validity.Finish(&out.validity, &out.null_count));
  const int64_t bytes = static_cast<int64_t>(prev - data_start);
  if (bytes > kMaxDecodedBytes) return Corrupt("binary slice too large");
  LANCE_ASSIGN_OR_RAISE(
      Fixed data, DecodeFixed(b.bytes(), -1, static_cast<int64_t>(data_start), bytes, 8));
  out.data = data.values;
  return out;
}

Result<ArrayDataPtr> PageDecoder::DictionaryItems(const pb::Dictionary& d,
                                                  int64_t num_items) {
  auto cached = page_->dictionaries.find(&d);
  if (cached != page_->dictionaries.end()) return cached->second;
  LANCE_ASSIGN_OR_RAISE(Binary items, DecodeBinary(d.items(), num_items, 0, num_items));
  LANCE_ASSIGN_OR_RAISE(BufferPtr offsets,
                        Buffer::CopyFrom(items.offsets.data(),
                                         static_cast<int64_t>(items.offsets.size() * 8)));
  ArrayDataPtr dict = ArrayData::Make(
      large_binary(), num_items, {items.validity, offsets, items.data}, items.null_count);
  page_->dictionaries[&d] = dict;
  return dict;
}

Result<PageDecoder::Binary> PageDecoder::DecodeDictionaryBinary(const pb::Dictionary& d,
                                                                int64_t page_length,
                                                                int64_t start,
                                                                int64_t count) {
  const int64_t num_items = d.num_dictionary_items();
  // A page's dictionary holds its distinct values (one null item when it has none).
  if (page_length < 0 || num_items > std::max<int64_t>(page_length, 1)) {
    return Corrupt("dictionary of " + std::to_string(num_items) +
                   " items for a page of " + std::to_string(page_length) + " values");
  }
  LANCE_ASSIGN_OR_RAISE(ArrayDataPtr dict, DictionaryItems(d, num_items));
  BufferPtr index_validity;
  LANCE_ASSIGN_OR_RAISE(
      std::vector<uint64_t> indices,
      DecodeIntegers(d.indices(), page_length, start, count, &index_validity));
  const auto* item_offsets = dict->buffers[1]->data_as<int64_t>();
  const uint8_t* item_validity = dict->buffers[0] ? dict->buffers[0]->data() : nullptr;
  // Index 0 is null; index k > 0 is item k - 1.
  auto item_of = [&](int64_t i) -> int64_t {
    if (index_validity && !bit_util::GetBit(index_validity->data(), i)) return -1;
    if (indices[i] == 0) return -1;
    const int64_t item = static_cast<int64_t>(indices[i] - 1);
    if (item_validity && !bit_util::GetBit(item_validity, item)) return -1;
    return item;
  };
  Binary out;
  out.offsets.resize(static_cast<size_t>(count) + 1);
  int64_t total = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (indices[i] > static_cast<uint64_t>(num_items)) {
      return Corrupt("dictionary index " + std::to_string(indices[i]) + " but only " +
                     std::to_string(num_items) + " items");
    }
    const int64_t item = item_of(i);
    if (item >= 0) total += item_offsets[item + 1] - item_offsets[item];
    if (total > kMaxDecodedBytes) return Corrupt("dictionary slice too large");
    out.offsets[i + 1] = total;
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr data, AllocateZeroed(total));
  BitmapBuilder validity;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t item = item_of(i);
    if (item >= 0) {
      const int64_t len = item_offsets[item + 1] - item_offsets[item];
      if (len > 0) {
        std::memcpy(data->mutable_data() + out.offsets[i],
                    dict->buffers[2]->data() + item_offsets[item],
                    static_cast<size_t>(len));
      }
    }
    LANCE_RETURN_NOT_OK(validity.Append(item >= 0));
  }
  out.null_count = validity.false_count();
  LANCE_ASSIGN_OR_RAISE(BufferPtr bits, validity.Finish());
  if (out.null_count > 0) out.validity = bits;
  out.data = data;
  return out;
}

Result<PageDecoder::Binary> PageDecoder::DecodeFixedSizeBinary(
    const pb::FixedSizeBinary& f, int64_t page_length, int64_t start, int64_t count) {
  const int64_t width = f.byte_width();
  int64_t page_bytes = -1, first = 0, bytes = 0;
  if (width <= 0 || (page_length >= 0 && MulOverflows(page_length, width, &page_bytes)) ||
      MulOverflows(start, width, &first) || MulOverflows(count, width, &bytes)) {
    return Corrupt("bad fixed_size_binary width " + std::to_string(width));
  }
  LANCE_ASSIGN_OR_RAISE(Fixed data, DecodeFixed(f.bytes(), page_bytes, first, bytes, 8));
  Binary out;
  out.offsets.resize(static_cast<size_t>(count) + 1);
  for (int64_t i = 0; i <= count; ++i) out.offsets[i] = i * width;
  out.validity = data.null_count > 0 ? data.validity : nullptr;
  out.null_count = 0;
  out.data = data.values;
  return out;
}

Result<PageDecoder::Binary> PageDecoder::DecodeBinary(const pb::ArrayEncoding& e,
                                                      int64_t page_length, int64_t start,
                                                      int64_t count) {
  switch (e.array_encoding_case()) {
    case pb::ArrayEncoding::kNullable:
      return DecodeNullableBinary(e.nullable(), page_length, start, count);
    case pb::ArrayEncoding::kBinary:
      return DecodeOffsetsBinary(e.binary(), page_length, start, count);
    case pb::ArrayEncoding::kDictionary:
      return DecodeDictionaryBinary(e.dictionary(), page_length, start, count);
    case pb::ArrayEncoding::kFixedSizeBinary:
      return DecodeFixedSizeBinary(e.fixed_size_binary(), page_length, start, count);
    default:
      if (IsUnsupportedKnown(e)) {
        return Status::NotImplemented(context_, ": the v2.0 '", EncodingName(e),
                                      "' encoding is not supported by this build");
      }
      return Corrupt(std::string("unexpected '") + EncodingName(e) +
                     "' encoding for variable-width values");
  }
}

// `count` null fixed-size lists (of any nesting) over zeroed, null items.
Result<ArrayDataPtr> PageDecoder::AllNullFixedSizeLists(const DataTypePtr& type,
                                                        int64_t count) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr valid, SynthesizedBits(count));
  if (type->id() != TypeId::kFixedSizeList) {
    const int bits = type->id() == TypeId::kBool ? 1 : type->bit_width();
    int64_t total = 0;
    if (bits <= 0 || MulOverflows(count, bits, &total)) return Corrupt("page too large");
    LANCE_ASSIGN_OR_RAISE(BufferPtr values, SynthesizedBits(total));
    return ArrayData::Make(type, count, {valid, values}, count);
  }
  int64_t items = 0;
  if (MulOverflows(count, type->fixed_size(), &items)) return Corrupt("page too large");
  LANCE_ASSIGN_OR_RAISE(ArrayDataPtr child,
                        AllNullFixedSizeLists(type->value_type(), items));
  return ArrayData::Make(type, count, {valid}, count, 0, {std::move(child)});
}

Result<ArrayDataPtr> PageDecoder::DecodeFixedSizeList(const pb::ArrayEncoding& e,
                                                      const DataTypePtr& type,
                                                      int64_t page_length, int64_t start,
                                                      int64_t count) {
  const int64_t dim = type->fixed_size();
  const DataTypePtr& item_type = type->value_type();
  const int item_bits = item_type->id() == TypeId::kBool ? 1 : item_type->bit_width();
  int64_t items = 0, first_item = 0, page_items = 0;
  if (MulOverflows(count, dim, &items) || MulOverflows(start, dim, &first_item) ||
      MulOverflows(page_length, dim, &page_items)) {
    return Corrupt("fixed_size_list page too large");
  }
  switch (e.array_encoding_case()) {
    case pb::ArrayEncoding::kNullable: {
      const pb::Nullable& n = e.nullable();
      switch (n.nullability_case()) {
        case pb::Nullable::kNoNulls:
          return DecodeFixedSizeList(n.no_nulls().values(), type, page_length, start,
                                     count);
        case pb::Nullable::kSomeNulls: {
          LANCE_ASSIGN_OR_RAISE(Fixed valid, DecodeFixed(n.some_nulls().validity(),
                                                         page_length, start, count, 1));
          LANCE_ASSIGN_OR_RAISE(ArrayDataPtr out,
                                DecodeFixedSizeList(n.some_nulls().values(), type,
                                                    page_length, start, count));
          LANCE_ASSIGN_OR_RAISE(out->buffers[0],
                                AndBitmaps(valid.values, out->buffers[0], count));
          out->null_count = CountNulls(out->buffers[0], count);
          return out;
        }
        case pb::Nullable::kAllNulls: {
          if (item_type->id() == TypeId::kFixedSizeList) {
            return AllNullFixedSizeLists(type, count);
          }
          int64_t bits = 0;
          if (MulOverflows(items, item_bits, &bits)) return Corrupt("page too large");
          LANCE_ASSIGN_OR_RAISE(BufferPtr child_valid, SynthesizedBits(items));
          LANCE_ASSIGN_OR_RAISE(BufferPtr child_values, SynthesizedBits(bits));
          LANCE_ASSIGN_OR_RAISE(BufferPtr valid, SynthesizedBits(count));
          auto child =
              ArrayData::Make(item_type, items, {child_valid, child_values}, items);
          return ArrayData::Make(type, count, {valid}, count, 0, {child});
        }
        default:
          return Corrupt("nullable encoding without a case");
      }
    }
    case pb::ArrayEncoding::kFixedSizeList: {
      const pb::FixedSizeList& fsl = e.fixed_size_list();
      if (fsl.dimension() != static_cast<uint64_t>(dim)) {
        return Corrupt("fixed_size_list of dimension " + std::to_string(fsl.dimension()) +
                       " for a column of dimension " + std::to_string(dim));
      }
      if (fsl.has_validity()) {
        return Status::NotImplemented(
            context_, ": fixed_size_list with inline validity is not supported");
      }
      if (item_type->id() == TypeId::kFixedSizeList) {
        // Nested fixed-size lists: the items are lists encoded the same way.
        LANCE_ASSIGN_OR_RAISE(
            ArrayDataPtr child,
            DecodeFixedSizeList(fsl.items(), item_type, page_items, first_item, items));
        return ArrayData::Make(type, count, {nullptr}, 0, 0, {std::move(child)});
      }
      LANCE_ASSIGN_OR_RAISE(Fixed values, DecodeFixed(fsl.items(), page_items, first_item,
                                                      items, item_bits));
      auto child = ArrayData::Make(
          item_type, items,
          {values.null_count > 0 ? values.validity : nullptr, values.values},
          values.null_count);
      return ArrayData::Make(type, count, {nullptr}, 0, 0, {child});
    }
    default:
      return Corrupt(std::string("unexpected '") + EncodingName(e) +
                     "' encoding for a fixed_size_list column");
  }
}

Result<ArrayDataPtr> PageDecoder::DecodeLeaf(const pb::ArrayEncoding& e,
                                             const DataTypePtr& type, int64_t page_length,
                                             int64_t start, int64_t count) {
  if (start < 0 || count < 0 || start + count > page_length) {
    return Corrupt("slice [" + std::to_string(start) + ", +" + std::to_string(count) +
                   ") outside a page of " + std::to_string(page_length));
  }
  switch (type->id()) {
    case TypeId::kUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: {
      LANCE_ASSIGN_OR_RAISE(Binary b, DecodeBinary(e, page_length, start, count));
      const bool large =
          type->id() == TypeId::kLargeUtf8 || type->id() == TypeId::kLargeBinary;
      BufferPtr offsets;
      if (large) {
        LANCE_ASSIGN_OR_RAISE(
            offsets, Buffer::CopyFrom(b.offsets.data(),
                                      static_cast<int64_t>(b.offsets.size()) * 8));
      } else {
        if (b.offsets.back() > std::numeric_limits<int32_t>::max()) {
          return Status::Invalid(context_, ": ", b.offsets.back(),
                                 " bytes do not fit 32-bit offsets; read with a smaller "
                                 "batch_size");
        }
        LANCE_ASSIGN_OR_RAISE(offsets,
                              AllocateZeroed(static_cast<int64_t>(b.offsets.size()) * 4));
        auto* o = offsets->mutable_data_as<int32_t>();
        for (size_t i = 0; i < b.offsets.size(); ++i)
          o[i] = static_cast<int32_t>(b.offsets[i]);
      }
      return ArrayData::Make(type, count,
                             {b.null_count > 0 ? b.validity : nullptr, offsets, b.data},
                             b.null_count);
    }
    case TypeId::kFixedSizeList:
      return DecodeFixedSizeList(e, type, page_length, start, count);
    case TypeId::kNull:
      // Lance writes null columns as nullable{all_nulls}: nothing to read.
      return ArrayData::Make(type, count, {nullptr}, count);
    case TypeId::kDictionary: {
      ArrayDataPtr values;
      if (e.array_encoding_case() == pb::ArrayEncoding::kDictionary) {
        // An Arrow dictionary array as Lance 2.0 writes it: 0-based indices into items
        // that carry the nulls (unlike the 1-based string dictionary of plain columns).
        const pb::Dictionary& d = e.dictionary();
        const int64_t num_items = d.num_dictionary_items();
        if (num_items < 0 || num_items > std::max<int64_t>(page_length, 1) + 1) {
          return Corrupt("dictionary of " + std::to_string(num_items) +
                         " items for a page of " + std::to_string(page_length) +
                         " values");
        }
        LANCE_ASSIGN_OR_RAISE(
            ArrayDataPtr items,
            DecodeLeaf(d.items(), type->value_type(), num_items, 0, num_items));
        BufferPtr index_validity;
        LANCE_ASSIGN_OR_RAISE(
            std::vector<uint64_t> indices,
            DecodeIntegers(d.indices(), page_length, start, count, &index_validity));
        LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(type->value_type()));
        LANCE_RETURN_NOT_OK(builder->Reserve(count));
        for (int64_t i = 0; i < count; ++i) {
          const bool valid =
              !index_validity || bit_util::GetBit(index_validity->data(), i);
          if (!valid) {
            LANCE_RETURN_NOT_OK(builder->AppendNull());
          } else if (indices[i] >= static_cast<uint64_t>(num_items)) {
            return Corrupt("dictionary index " + std::to_string(indices[i]) +
                           " but only " + std::to_string(num_items) + " items");
          } else {
            LANCE_RETURN_NOT_OK(
                builder->AppendArraySlice(*items, static_cast<int64_t>(indices[i]), 1));
          }
        }
        LANCE_ASSIGN_OR_RAISE(values, builder->FinishData());
      } else {
        // Plain values of the dictionary's value type.
        LANCE_ASSIGN_OR_RAISE(
            values, DecodeLeaf(e, type->value_type(), page_length, start, count));
      }
      DictionaryBuilder builder(type);
      LANCE_RETURN_NOT_OK(builder.AppendValues(*MakeArray(values)));
      return builder.FinishData();
    }
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap:
      return Corrupt("internal: nested type decoded as a leaf");
    default: {
      const int bits = type->id() == TypeId::kBool ? 1 : type->bit_width();
      LANCE_ASSIGN_OR_RAISE(Fixed f, DecodeFixed(e, page_length, start, count, bits));
      return ArrayData::Make(
          type, count, {f.null_count > 0 ? f.validity : nullptr, f.values}, f.null_count);
    }
  }
}

Result<ListSlice> PageDecoder::DecodeListOffsets(const pb::ArrayEncoding& e,
                                                 int64_t page_length, int64_t start,
                                                 int64_t count) {
  if (e.array_encoding_case() != pb::ArrayEncoding::kList) {
    return Corrupt(std::string("expected a 'list' offsets encoding, found '") +
                   EncodingName(e) + "'");
  }
  if (start < 0 || count < 0 || start + count > page_length) {
    return Corrupt("slice outside the page");
  }
  const pb::List& l = e.list();
  const uint64_t num_items = l.num_items();
  LANCE_ASSIGN_OR_RAISE(
      EncodedEnds ends,
      DecodeEnds(l.offsets(), l.null_offset_adjustment(), page_length, start, count));
  ListSlice out;
  out.offsets.resize(static_cast<size_t>(count) + 1);
  uint64_t prev = ends.Begin();
  if (prev > num_items) {
    return Corrupt("list offset " + std::to_string(prev) + " beyond the page's " +
                   std::to_string(num_items) + " items");
  }
  out.offsets[0] = static_cast<int64_t>(prev);
  LazyValidity validity;
  for (int64_t i = 0; i < count; ++i) {
    const bool null = ends.IsNull(ends.base + i);
    const uint64_t end = ends.End(ends.base + i);
    if (end < prev || end > num_items) {
      return Corrupt("list offsets are not increasing within " +
                     std::to_string(num_items) + " items at row " +
                     std::to_string(start + i));
    }
    prev = end;
    out.offsets[i + 1] = static_cast<int64_t>(end);
    LANCE_RETURN_NOT_OK(validity.Append(i, null));
  }
  LANCE_RETURN_NOT_OK(validity.Finish(&out.validity, &out.null_count));
  return out;
}

}  // namespace lance::format::internal

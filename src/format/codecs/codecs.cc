// SPDX-License-Identifier: Apache-2.0
// Decoding of the Lance 2.1/2.2 compressive encodings in their four contexts; see
// codecs.h for which encoding Lance accepts where.

#include "format/codecs/codecs.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "format/codecs/bitpack.h"
#include "format/codecs/byte_stream_split.h"
#include "format/codecs/codec_util.h"
#include "format/codecs/fsst.h"
#include "format/codecs/general.h"
#include "format/codecs/rle.h"
#include "format/codecs/variable.h"
#include "lance/macros.h"

namespace lance::format::codecs {

using CE = pb21::CompressiveEncoding;
using internal::BytesForBits;
using internal::Corrupt;
using internal::LoadLE;

DataBlock DataBlock::Fixed(uint64_t bits_per_value, int64_t num_values, BufferPtr data) {
  DataBlock b;
  b.kind = Kind::kFixed;
  b.bits_per_value = bits_per_value;
  b.num_values = num_values;
  b.data = std::move(data);
  return b;
}

DataBlock DataBlock::Variable(int offset_bits, int64_t num_values, BufferPtr offsets,
                              BufferPtr data) {
  DataBlock b;
  b.kind = Kind::kVariable;
  b.offset_bits = offset_bits;
  b.num_values = num_values;
  b.offsets = std::move(offsets);
  b.data = std::move(data);
  return b;
}

DataBlock DataBlock::AllNull(int64_t num_values) {
  DataBlock b;
  b.kind = Kind::kAllNull;
  b.num_values = num_values;
  return b;
}

// ---------------------------------------------------------------------------------------
// Describe

namespace {

std::string DescribeChild(const CE* e) { return e == nullptr ? "?" : Describe(*e); }

std::string DescribeBufferCompression(const pb21::BufferCompression& c) {
  std::string s = SchemeName(c.scheme());
  if (c.has_level()) s += ":" + std::to_string(c.level());
  return s;
}

}  // namespace

std::string Describe(const CE& e) {
  switch (e.compression_case()) {
    case CE::kFlat: {
      std::string s = "flat(" + std::to_string(e.flat().bits_per_value());
      if (e.flat().has_data()) s += ", " + DescribeBufferCompression(e.flat().data());
      return s + ")";
    }
    case CE::kVariable: {
      std::string s =
          "variable(" +
          DescribeChild(e.variable().has_offsets() ? &e.variable().offsets() : nullptr);
      if (e.variable().has_values()) {
        s += ", " + DescribeBufferCompression(e.variable().values());
      }
      return s + ")";
    }
    case CE::kConstant:
      return "constant(" + std::to_string(e.constant().value().size()) + " bytes)";
    case CE::kOutOfLineBitpacking:
      return "out_of_line_bitpacking(" +
             std::to_string(e.out_of_line_bitpacking().uncompressed_bits_per_value()) +
             ", " +
             DescribeChild(e.out_of_line_bitpacking().has_values()
                               ? &e.out_of_line_bitpacking().values()
                               : nullptr) +
             ")";
    case CE::kInlineBitpacking: {
      std::string s = "inline_bitpacking(" +
                      std::to_string(e.inline_bitpacking().uncompressed_bits_per_value());
      if (e.inline_bitpacking().has_values()) {
        s += ", " + DescribeBufferCompression(e.inline_bitpacking().values());
      }
      return s + ")";
    }
    case CE::kFsst:
      return "fsst(" +
             DescribeChild(e.fsst().has_values() ? &e.fsst().values() : nullptr) + ")";
    case CE::kDictionary:
      return "dictionary(" +
             DescribeChild(e.dictionary().has_indices() ? &e.dictionary().indices()
                                                        : nullptr) +
             ", " +
             DescribeChild(e.dictionary().has_items() ? &e.dictionary().items()
                                                      : nullptr) +
             ")";
    case CE::kRle:
      return "rle(" + DescribeChild(e.rle().has_values() ? &e.rle().values() : nullptr) +
             ", " +
             DescribeChild(e.rle().has_run_lengths() ? &e.rle().run_lengths() : nullptr) +
             ")";
    case CE::kByteStreamSplit:
      return "byte_stream_split(" +
             DescribeChild(e.byte_stream_split().has_values()
                               ? &e.byte_stream_split().values()
                               : nullptr) +
             ")";
    case CE::kGeneral:
      return "general(" + DescribeBufferCompression(e.general().compression()) + ", " +
             DescribeChild(e.general().has_values() ? &e.general().values() : nullptr) +
             ")";
    case CE::kFixedSizeList:
      return "fixed_size_list(" + std::to_string(e.fixed_size_list().items_per_value()) +
             (e.fixed_size_list().has_validity() ? ", validity, " : ", ") +
             DescribeChild(e.fixed_size_list().has_values()
                               ? &e.fixed_size_list().values()
                               : nullptr) +
             ")";
    case CE::kPackedStruct: {
      std::string s = "packed_struct([";
      for (int i = 0; i < e.packed_struct().bits_per_value_size(); ++i) {
        if (i > 0) s += ",";
        s += std::to_string(e.packed_struct().bits_per_value(i));
      }
      return s + "], " +
             DescribeChild(e.packed_struct().has_values() ? &e.packed_struct().values()
                                                          : nullptr) +
             ")";
    }
    case CE::kVariablePackedStruct: {
      std::string s = "variable_packed_struct(";
      for (int i = 0; i < e.variable_packed_struct().fields_size(); ++i) {
        const auto& f = e.variable_packed_struct().fields(i);
        if (i > 0) s += ", ";
        s += DescribeChild(f.has_value() ? &f.value() : nullptr);
        if (f.has_bits_per_value()) s += ":" + std::to_string(f.bits_per_value());
        if (f.has_bits_per_length()) s += ":len" + std::to_string(f.bits_per_length());
      }
      return s + ")";
    }
    case CE::COMPRESSION_NOT_SET:
      return "(no compression set)";
  }
  return "(unknown compression " +
         std::to_string(static_cast<int>(e.compression_case())) + ")";
}

namespace {

Status NotInContext(const CE& e, const char* context) {
  return Status::NotImplemented("the " + Describe(e) + " encoding in the " + context +
                                " context (Lance 14.0.2 does not read it there)");
}

Status Missing(const CE& e, const char* what) {
  return Corrupt("the " + Describe(e) + " encoding has no " + what);
}

// The most bytes `compressed` bytes of `scheme` can plausibly decode to: LZ4 expands at
// most about 255x, zstd at most 32768x (an RLE block of 128 KiB in 4 bytes).
int64_t DecompressCap(pb21::CompressionScheme scheme, int64_t compressed, int64_t cap) {
  const int64_t ratio = scheme == pb21::COMPRESSION_ALGORITHM_LZ4 ? 256 : 32768;
  int64_t bound;
  if (__builtin_mul_overflow(compressed, ratio, &bound)) return cap;
  return std::min(cap, bound + 1024);
}

Result<BufferPtr> Decompress(const pb21::BufferCompression& c, const BufferPtr& in,
                             int64_t expected, int64_t cap) {
  const int64_t limit = DecompressCap(c.scheme(), in->size(), cap);
  return GeneralDecompress(c.scheme(), in->data(), in->size(), expected, limit);
}

bool IsFixedWordWidth(uint64_t bits) {
  return bits == 8 || bits == 16 || bits == 32 || bits == 64;
}

// Lance requires these to be the plain form: no buffer compression.
bool IsPlainFlat(const CE& e) { return e.has_flat() && !e.flat().has_data(); }

Result<BufferPtr> SliceExact(const BufferPtr& buffer, int64_t bytes,
                             const std::string& what, bool exact) {
  if (bytes < 0) return Corrupt(what + " is implausibly large");
  if (!buffer || buffer->size() < bytes || (exact && buffer->size() != bytes)) {
    return Corrupt(what + " has " + std::to_string(buffer ? buffer->size() : 0) +
                   " bytes, expected " + std::to_string(bytes));
  }
  if (buffer->size() == bytes) return buffer;
  return Buffer::Slice(buffer, 0, bytes);
}

// --- fixed_size_list -------------------------------------------------------------------

struct FslLayer {
  uint64_t dimension = 0;
  bool has_validity = false;
  uint64_t cum_dim = 0;  // items of this layer per top-level value
};

struct FslPlan {
  std::vector<FslLayer> layers;  // outermost first
  uint64_t bits_per_item = 0;    // 0: the items are all null (constant leaf)
  uint64_t cum_dim = 1;
  uint64_t validity_bytes = 0;  // per top-level value, full-zip form
  uint64_t bits_per_value = 0;  // per top-level value, full-zip form
  int validity_layers = 0;
};

// Lance's ValueDecompressor::from_fsl: nested FSL layers down to a plain flat leaf, or a
// constant leaf when every item is null.
Result<FslPlan> ParseFsl(const CE& top) {
  FslPlan plan;
  const CE* e = &top;
  constexpr uint64_t kLimit = uint64_t{1} << 40;
  while (true) {
    const auto& fsl = e->fixed_size_list();
    if (fsl.items_per_value() == 0 || fsl.items_per_value() > kLimit) {
      return Corrupt("fixed_size_list with " + std::to_string(fsl.items_per_value()) +
                     " items per value");
    }
    if (plan.cum_dim > kLimit / fsl.items_per_value()) {
      return Corrupt("fixed_size_list dimensions overflow");
    }
    plan.cum_dim *= fsl.items_per_value();
    plan.layers.push_back({fsl.items_per_value(), fsl.has_validity(), plan.cum_dim});
    if (fsl.has_validity()) {
      plan.validity_bytes += (plan.cum_dim + 7) / 8;
      ++plan.validity_layers;
    }
    if (!fsl.has_values()) return Missing(top, "values");
    const CE& inner = fsl.values();
    if (inner.has_fixed_size_list()) {
      e = &inner;
      continue;
    }
    if (inner.has_flat()) {
      if (inner.flat().bits_per_value() == 0 || inner.flat().has_data() ||
          inner.flat().bits_per_value() > 4096) {
        return Status::NotImplemented("fixed_size_list over " + Describe(inner));
      }
      plan.bits_per_item = inner.flat().bits_per_value();
    } else if (inner.has_constant()) {
      plan.bits_per_item = 0;
    } else {
      return Status::NotImplemented("fixed_size_list over " + Describe(inner));
    }
    break;
  }
  if (plan.bits_per_item > 0 && plan.cum_dim > kLimit / plan.bits_per_item) {
    return Corrupt("fixed_size_list value width overflows");
  }
  plan.bits_per_value = plan.validity_bytes * 8 + plan.bits_per_item * plan.cum_dim;
  return plan;
}

// Wraps `items` (cum_dim items per value) in the FSL layers, innermost first.
DataBlock AssembleFsl(const FslPlan& plan, int64_t num_values, DataBlock items,
                      std::vector<BufferPtr> validity) {
  DataBlock block = std::move(items);
  int v = plan.validity_layers - 1;
  for (int i = static_cast<int>(plan.layers.size()) - 1; i >= 0; --i) {
    const FslLayer& layer = plan.layers[static_cast<size_t>(i)];
    DataBlock list;
    list.kind = DataBlock::Kind::kFixedSizeList;
    list.dimension = layer.dimension;
    list.num_values = num_values * static_cast<int64_t>(layer.cum_dim / layer.dimension);
    if (layer.has_validity) list.validity = validity[static_cast<size_t>(v--)];
    list.children.push_back(std::move(block));
    block = std::move(list);
  }
  return block;
}

Result<DataBlock> FslItems(const FslPlan& plan, int64_t num_items, BufferPtr data) {
  if (plan.bits_per_item == 0) return DataBlock::AllNull(num_items);
  return DataBlock::Fixed(plan.bits_per_item, num_items, std::move(data));
}

// Appends `count` bits (from bit 0 of `src`) at bit `pos` of the zeroed bitmap `dst`.
void AppendBits(const uint8_t* src, uint64_t count, uint8_t* dst, uint64_t pos) {
  if (pos % 8 == 0) {
    std::memcpy(dst + pos / 8, src, count / 8);
    for (uint64_t i = count / 8 * 8; i < count; ++i) {
      if ((src[i / 8] >> (i % 8)) & 1)
        dst[(pos + i) / 8] |= uint8_t(1u << ((pos + i) % 8));
    }
    return;
  }
  for (uint64_t i = 0; i < count; ++i) {
    if ((src[i / 8] >> (i % 8)) & 1) dst[(pos + i) / 8] |= uint8_t(1u << ((pos + i) % 8));
  }
}

// The full-zip form: each value is [validity bytes of each validity layer][item bytes].
Result<DataBlock> DecodeFslPerValue(const FslPlan& plan, const BufferPtr& data,
                                    int64_t num_values) {
  const int64_t row_bytes = static_cast<int64_t>(plan.bits_per_value / 8);
  int64_t num_items;
  if (!internal::CheckedMul(num_values, static_cast<int64_t>(plan.cum_dim), &num_items)) {
    return Corrupt("fixed_size_list value count overflows");
  }
  if (plan.validity_layers == 0) {
    const int64_t bytes = BytesForBits(num_items, plan.bits_per_item);
    LANCE_ASSIGN_OR_RAISE(BufferPtr items,
                          SliceExact(data, bytes, "fixed_size_list values", false));
    LANCE_ASSIGN_OR_RAISE(DataBlock block, FslItems(plan, num_items, std::move(items)));
    return AssembleFsl(plan, num_values, std::move(block), {});
  }
  if (plan.bits_per_item % 8 != 0 || plan.bits_per_value % 8 != 0) {
    return Status::NotImplemented("full-zip fixed_size_list with item validity over " +
                                  std::to_string(plan.bits_per_item) + "-bit items");
  }
  int64_t total;
  if (!internal::CheckedMul(num_values, row_bytes, &total) || !data ||
      data->size() < total) {
    return Corrupt("fixed_size_list values have " +
                   std::to_string(data ? data->size() : 0) + " bytes, fewer than " +
                   std::to_string(num_values) + " values of " +
                   std::to_string(row_bytes) + " bytes");
  }
  const int64_t item_bytes = static_cast<int64_t>(plan.bits_per_item / 8);
  const int64_t data_row_bytes = item_bytes * static_cast<int64_t>(plan.cum_dim);
  LANCE_ASSIGN_OR_RAISE(BufferPtr items,
                        internal::AllocateOut(num_values * data_row_bytes));
  std::vector<BufferPtr> validity;
  std::vector<const FslLayer*> vlayers;
  for (const FslLayer& layer : plan.layers) {
    if (!layer.has_validity) continue;
    const int64_t bits = num_values * static_cast<int64_t>(layer.cum_dim);
    LANCE_ASSIGN_OR_RAISE(BufferPtr bitmap, Buffer::Allocate((bits + 7) / 8));
    validity.push_back(std::move(bitmap));
    vlayers.push_back(&layer);
  }
  const uint8_t* src = data->data();
  uint8_t* out = items->mutable_data();
  for (int64_t row = 0; row < num_values; ++row) {
    const uint8_t* p = src + row * row_bytes;
    for (size_t v = 0; v < vlayers.size(); ++v) {
      const uint64_t bits = vlayers[v]->cum_dim;
      AppendBits(p, bits, validity[v]->mutable_data(), static_cast<uint64_t>(row) * bits);
      p += (bits + 7) / 8;
    }
    if (data_row_bytes > 0) std::memcpy(out + row * data_row_bytes, p, data_row_bytes);
  }
  LANCE_ASSIGN_OR_RAISE(DataBlock block, FslItems(plan, num_items, std::move(items)));
  return AssembleFsl(plan, num_values, std::move(block), std::move(validity));
}

// The mini-block form: buffers [validity of each validity layer..., items].
Result<DataBlock> DecodeFslMiniBlock(const FslPlan& plan,
                                     const std::vector<BufferPtr>& buffers,
                                     int64_t num_values) {
  if (static_cast<int>(buffers.size()) != plan.validity_layers + 1) {
    return Corrupt("fixed_size_list chunk has " + std::to_string(buffers.size()) +
                   " buffers, expected " + std::to_string(plan.validity_layers + 1));
  }
  std::vector<BufferPtr> validity;
  size_t next = 0;
  for (const FslLayer& layer : plan.layers) {
    if (!layer.has_validity) continue;
    int64_t bits;
    if (!internal::CheckedMul(num_values, static_cast<int64_t>(layer.cum_dim), &bits)) {
      return Corrupt("fixed_size_list value count overflows");
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr v,
                          SliceExact(buffers[next++], (bits + 7) / 8,
                                     "fixed_size_list validity buffer", true));
    validity.push_back(std::move(v));
  }
  int64_t num_items;
  if (!internal::CheckedMul(num_values, static_cast<int64_t>(plan.cum_dim), &num_items)) {
    return Corrupt("fixed_size_list value count overflows");
  }
  LANCE_ASSIGN_OR_RAISE(
      BufferPtr items,
      SliceExact(buffers[next], BytesForBits(num_items, plan.bits_per_item),
                 "fixed_size_list value buffer", true));
  LANCE_ASSIGN_OR_RAISE(DataBlock block, FslItems(plan, num_items, std::move(items)));
  return AssembleFsl(plan, num_values, std::move(block), std::move(validity));
}

// --- bit-packing -----------------------------------------------------------------------

template <typename T>
Result<DataBlock> DecodeInlineChunksT(const BufferPtr& buffer, int64_t num_values,
                                      bool single_chunk) {
  constexpr int64_t kBytes = sizeof(T);
  constexpr int kT = static_cast<int>(kBytes * 8);
  if (num_values == 0) return DataBlock::Fixed(kT, 0, internal::EmptyBuffer());
  if (single_chunk && num_values > kFastLanesBlock) {
    return Corrupt("inline_bitpacking chunk claims " + std::to_string(num_values) +
                   " values, more than 1024");
  }
  const int64_t num_chunks = (num_values + kFastLanesBlock - 1) / kFastLanesBlock;
  if (num_chunks > buffer->size() / kBytes) {
    return Corrupt("inline_bitpacking buffer of " + std::to_string(buffer->size()) +
                   " bytes cannot hold " + std::to_string(num_values) + " values");
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr out,
                        internal::AllocateOut(num_chunks * kFastLanesBlock * kBytes));
  const uint8_t* p = buffer->data();
  int64_t left = buffer->size();
  T* dst = out->mutable_data_as<T>();
  alignas(64) T packed[kFastLanesBlock];
  for (int64_t c = 0; c < num_chunks; ++c) {
    if (left < kBytes) {
      return Corrupt("inline_bitpacking chunk of " + std::to_string(left) +
                     " bytes has no bit width");
    }
    const uint64_t width = LoadLE<T>(p);
    if (width > static_cast<uint64_t>(kT)) {
      return Corrupt("inline_bitpacking bit width " + std::to_string(width) +
                     " exceeds " + std::to_string(kT));
    }
    const int64_t bytes = PackedWords<T>(static_cast<int>(width)) * kBytes;
    const bool last = c == num_chunks - 1;
    if (left - kBytes < bytes || (last && left - kBytes != bytes)) {
      return Corrupt("inline_bitpacking chunk has " + std::to_string(left - kBytes) +
                     " payload bytes, expected " + std::to_string(bytes) + " for width " +
                     std::to_string(width));
    }
    // Chunks are 8-byte aligned in their page, so the words usually are too.
    const uint8_t* words = p + kBytes;
    if (reinterpret_cast<uintptr_t>(words) % alignof(T) != 0) {
      std::memcpy(packed, words, static_cast<size_t>(bytes));
      words = reinterpret_cast<const uint8_t*>(packed);
    }
    FastLanesUnpack<T>(static_cast<int>(width), reinterpret_cast<const T*>(words),
                       dst + c * kFastLanesBlock);
    p += kBytes + bytes;
    left -= kBytes + bytes;
  }
  out->Resize(num_values * kBytes);
  return DataBlock::Fixed(kT, num_values, std::move(out));
}

Result<DataBlock> DecodeInline(uint64_t bits, const BufferPtr& buffer, int64_t num_values,
                               bool single_chunk) {
  switch (bits) {
    case 8:
      return DecodeInlineChunksT<uint8_t>(buffer, num_values, single_chunk);
    case 16:
      return DecodeInlineChunksT<uint16_t>(buffer, num_values, single_chunk);
    case 32:
      return DecodeInlineChunksT<uint32_t>(buffer, num_values, single_chunk);
    case 64:
      return DecodeInlineChunksT<uint64_t>(buffer, num_values, single_chunk);
    default:
      return Status::NotImplemented("inline_bitpacking of " + std::to_string(bits) +
                                    "-bit values");
  }
}

// Out-of-line: 1024-value blocks packed to W bits back to back; a partial last block is
// either padded to 1024 values and packed, or appended raw at full width. The buffer
// length tells which (Lance writes whichever is smaller; readers accept both).
template <typename T>
Result<DataBlock> DecodeOutOfLineT(int width, const BufferPtr& buffer,
                                   int64_t num_values) {
  constexpr int64_t kBytes = sizeof(T);
  constexpr int kT = static_cast<int>(kBytes * 8);
  const int64_t block_bytes = PackedWords<T>(width) * kBytes;
  const int64_t whole = num_values / kFastLanesBlock;
  const int64_t tail = num_values % kFastLanesBlock;
  int64_t full_bytes;
  if (!internal::CheckedMul(whole, block_bytes, &full_bytes)) {
    return Corrupt("out_of_line_bitpacking value count overflows");
  }
  const int64_t raw_size = full_bytes + tail * kBytes;
  const int64_t padded_size = full_bytes + (tail > 0 ? block_bytes : 0);
  const int64_t size = buffer->size();
  if (size != raw_size && size != padded_size) {
    return Corrupt("out_of_line_bitpacking buffer has " + std::to_string(size) +
                   " bytes, expected " + std::to_string(raw_size) + " (raw tail) or " +
                   std::to_string(padded_size) + " (packed tail) for " +
                   std::to_string(num_values) + " values of " + std::to_string(width) +
                   " bits");
  }
  const bool tail_raw = tail > 0 && size == raw_size && raw_size != padded_size;
  const int64_t blocks = whole + (tail > 0 && !tail_raw ? 1 : 0);
  LANCE_ASSIGN_OR_RAISE(
      BufferPtr out,
      internal::AllocateOut(std::max(blocks * kFastLanesBlock, num_values) * kBytes));
  T* dst = out->mutable_data_as<T>();
  alignas(64) T packed[kFastLanesBlock];
  const uint8_t* p = buffer->data();
  const bool aligned = reinterpret_cast<uintptr_t>(p) % alignof(T) == 0;
  for (int64_t b = 0; b < blocks; ++b) {
    const T* words = reinterpret_cast<const T*>(p + b * block_bytes);
    if (!aligned) {
      std::memcpy(packed, p + b * block_bytes, static_cast<size_t>(block_bytes));
      words = packed;
    }
    FastLanesUnpack<T>(width, words, dst + b * kFastLanesBlock);
  }
  if (tail_raw) {
    std::memcpy(dst + whole * kFastLanesBlock, p + full_bytes,
                static_cast<size_t>(tail * kBytes));
  }
  out->Resize(num_values * kBytes);
  return DataBlock::Fixed(kT, num_values, std::move(out));
}

Result<DataBlock> DecodeOutOfLine(const CE& e, const BufferPtr& buffer,
                                  int64_t num_values) {
  const auto& o = e.out_of_line_bitpacking();
  if (!o.has_values() || !IsPlainFlat(o.values())) {
    return Status::NotImplemented("out_of_line_bitpacking over " +
                                  DescribeChild(o.has_values() ? &o.values() : nullptr));
  }
  const uint64_t bits = o.uncompressed_bits_per_value();
  const uint64_t width = o.values().flat().bits_per_value();
  if (!IsFixedWordWidth(bits)) {
    return Status::NotImplemented("out_of_line_bitpacking of " + std::to_string(bits) +
                                  "-bit values");
  }
  if (width > bits) {
    return Corrupt("out_of_line_bitpacking width " + std::to_string(width) + " exceeds " +
                   std::to_string(bits));
  }
  if (num_values > internal::kMaxCount) return Corrupt("implausible value count");
  const int w = static_cast<int>(width);
  switch (bits) {
    case 8:
      return DecodeOutOfLineT<uint8_t>(w, buffer, num_values);
    case 16:
      return DecodeOutOfLineT<uint16_t>(w, buffer, num_values);
    case 32:
      return DecodeOutOfLineT<uint32_t>(w, buffer, num_values);
    default:
      return DecodeOutOfLineT<uint64_t>(w, buffer, num_values);
  }
}

// --- rle -------------------------------------------------------------------------------

// The stable grammar: flat values of 8/16/32/64 bits and flat run lengths (u8 in 2.1 and
// 2.2; 16 and 32 are accepted too, as newer Lance reads them).
Result<std::pair<int, int>> RleWidths(const CE& e) {
  const auto& r = e.rle();
  if (!r.has_values() || !r.has_run_lengths()) return Missing(e, "values or run lengths");
  if (!IsPlainFlat(r.values()) || !IsPlainFlat(r.run_lengths())) {
    return Status::NotImplemented("the " + Describe(e) +
                                  " encoding (only flat rle children are supported)");
  }
  const uint64_t vb = r.values().flat().bits_per_value();
  const uint64_t lb = r.run_lengths().flat().bits_per_value();
  if (!IsFixedWordWidth(vb) || !(lb == 8 || lb == 16 || lb == 32)) {
    return Status::NotImplemented("the " + Describe(e) + " encoding");
  }
  return std::pair<int, int>{static_cast<int>(vb / 8), static_cast<int>(lb / 8)};
}

Result<DataBlock> DecodeRle(const CE& e, const uint8_t* values, int64_t values_size,
                            const uint8_t* lengths, int64_t lengths_size,
                            int64_t num_values, bool clamp) {
  LANCE_ASSIGN_OR_RAISE(auto widths, RleWidths(e));
  const int vb = widths.first;
  if (num_values == 0) {
    return DataBlock::Fixed(static_cast<uint64_t>(vb) * 8, 0, internal::EmptyBuffer());
  }
  if (num_values > internal::kMaxBlockBytes / vb)
    return Corrupt("implausible value count");
  // Every run holds at least one value, but runs may be up to 2^32 long: bound the
  // output by what the runs can describe before allocating.
  const int64_t max_run = widths.second == 1   ? 255
                          : widths.second == 2 ? 65535
                                               : 0xFFFFFFFFll;
  const int64_t runs = lengths_size / widths.second;
  if (num_values / max_run > runs) {
    return Corrupt("RLE with " + std::to_string(runs) + " runs cannot hold " +
                   std::to_string(num_values) + " values");
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, internal::AllocateOut(num_values * vb));
  LANCE_RETURN_NOT_OK(RleDecode(vb, values, values_size, widths.second, lengths,
                                lengths_size, num_values, clamp, out->mutable_data()));
  return DataBlock::Fixed(static_cast<uint64_t>(vb) * 8, num_values, std::move(out));
}

// --- packed struct ---------------------------------------------------------------------

Result<std::vector<uint64_t>> PackedWidths(const CE& e) {
  const auto& ps = e.packed_struct();
  if (!ps.has_values() || !IsPlainFlat(ps.values())) {
    return Status::NotImplemented(
        "packed_struct over " + DescribeChild(ps.has_values() ? &ps.values() : nullptr));
  }
  std::vector<uint64_t> widths(ps.bits_per_value().begin(), ps.bits_per_value().end());
  uint64_t sum = 0;
  for (uint64_t w : widths) {
    if (w == 0 || w % 8 != 0 || w > 1 << 20) {
      return Corrupt("packed_struct field of " + std::to_string(w) + " bits");
    }
    sum += w;
  }
  if (widths.empty() || sum != ps.values().flat().bits_per_value()) {
    return Corrupt("packed_struct field widths sum to " + std::to_string(sum) +
                   " bits, its values are " +
                   std::to_string(ps.values().flat().bits_per_value()));
  }
  return widths;
}

// Splits rows of concatenated fixed-width fields into one block per field.
Result<DataBlock> UnpackRows(const std::vector<uint64_t>& widths, const BufferPtr& rows,
                             int64_t num_values) {
  int64_t row_bytes = 0;
  for (uint64_t w : widths) row_bytes += static_cast<int64_t>(w / 8);
  int64_t total;
  if (!internal::CheckedMul(num_values, row_bytes, &total) || rows->size() < total) {
    return Corrupt("packed_struct rows have " + std::to_string(rows->size()) +
                   " bytes, fewer than " + std::to_string(num_values) + " rows of " +
                   std::to_string(row_bytes));
  }
  DataBlock out;
  out.kind = DataBlock::Kind::kStruct;
  out.num_values = num_values;
  int64_t field_offset = 0;
  const uint8_t* src = rows->data();
  for (uint64_t w : widths) {
    const int64_t fb = static_cast<int64_t>(w / 8);
    LANCE_ASSIGN_OR_RAISE(BufferPtr child, internal::AllocateOut(num_values * fb));
    uint8_t* dst = child->mutable_data();
    for (int64_t r = 0; r < num_values; ++r) {
      std::memcpy(dst + r * fb, src + r * row_bytes + field_offset,
                  static_cast<size_t>(fb));
    }
    out.children.push_back(DataBlock::Fixed(w, num_values, std::move(child)));
    field_offset += fb;
  }
  return out;
}

// --- block dictionary (the 14.0.2 generic-block form) ----------------------------------

bool BlockHasPayload(const CE& e) { return !e.has_constant(); }

Result<std::vector<uint64_t>> FixedAsU64(const DataBlock& b, const char* what) {
  if (b.kind != DataBlock::Kind::kFixed ||
      (b.bits_per_value != 32 && b.bits_per_value != 64)) {
    return Corrupt(std::string(what) + " are not 32- or 64-bit values");
  }
  std::vector<uint64_t> out(static_cast<size_t>(b.num_values));
  const uint8_t* p = b.data->data();
  for (int64_t i = 0; i < b.num_values; ++i) {
    out[static_cast<size_t>(i)] = b.bits_per_value == 32 ? LoadLE<uint32_t>(p + 4 * i)
                                                         : LoadLE<uint64_t>(p + 8 * i);
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Mini-block

Result<int> MiniBlockBufferCount(const CE& e) {
  switch (e.compression_case()) {
    case CE::kFlat:
    case CE::kInlineBitpacking:
    case CE::kVariable:
    case CE::kByteStreamSplit:
    case CE::kPackedStruct:
      return 1;
    case CE::kRle:
      return 2;
    case CE::kFixedSizeList: {
      LANCE_ASSIGN_OR_RAISE(FslPlan plan, ParseFsl(e));
      return plan.validity_layers + 1;
    }
    case CE::kFsst:
      if (!e.fsst().has_values()) return Missing(e, "values");
      return MiniBlockBufferCount(e.fsst().values());
    case CE::kGeneral:
      if (!e.general().has_values()) return Missing(e, "values");
      return MiniBlockBufferCount(e.general().values());
    default:
      return NotInContext(e, "mini-block");
  }
}

namespace {

Result<DataBlock> MiniBlock(const CE& e, const std::vector<BufferPtr>& buffers,
                            int64_t num_values, int depth);

Status ExpectBuffers(const CE& e, const std::vector<BufferPtr>& buffers, size_t n) {
  if (buffers.size() != n) {
    return Corrupt("the " + Describe(e) + " chunk has " + std::to_string(buffers.size()) +
                   " value buffers, expected " + std::to_string(n));
  }
  for (const auto& b : buffers) {
    if (!b) return Corrupt("the " + Describe(e) + " chunk is missing a buffer");
  }
  return Status::OK();
}

Result<DataBlock> MiniBlockVariable(const CE& e, const std::vector<BufferPtr>& buffers,
                                    int64_t num_values) {
  const auto& v = e.variable();
  if (!v.has_offsets() || !IsPlainFlat(v.offsets()) || v.has_values() ||
      (v.offsets().flat().bits_per_value() != 32 &&
       v.offsets().flat().bits_per_value() != 64)) {
    return Status::NotImplemented(
        "the " + Describe(e) +
        " mini-block encoding (offsets other than plain flat 32/64 "
        "are Lance 2.3)");
  }
  LANCE_RETURN_NOT_OK(ExpectBuffers(e, buffers, 1));
  return ReadVariableChunk(
      buffers[0], static_cast<int>(v.offsets().flat().bits_per_value()), num_values);
}

Result<DataBlock> MiniBlock(const CE& e, const std::vector<BufferPtr>& buffers,
                            int64_t num_values, int depth) {
  if (depth > 8) return Corrupt("compressive encodings nest too deeply");
  if (num_values < 0 || num_values > internal::kMaxCount) {
    return Corrupt("mini-block chunk claims " + std::to_string(num_values) + " values");
  }
  switch (e.compression_case()) {
    case CE::kFlat: {
      const uint64_t bits = e.flat().bits_per_value();
      if (bits == 0 || e.flat().has_data()) {
        return Status::NotImplemented(
            "the " + Describe(e) +
            " mini-block encoding (Lance requires a positive width "
            "and no buffer compression)");
      }
      LANCE_RETURN_NOT_OK(ExpectBuffers(e, buffers, 1));
      LANCE_ASSIGN_OR_RAISE(
          BufferPtr data,
          SliceExact(buffers[0], BytesForBits(num_values, bits), "flat chunk", true));
      return DataBlock::Fixed(bits, num_values, std::move(data));
    }
    case CE::kFixedSizeList: {
      LANCE_ASSIGN_OR_RAISE(FslPlan plan, ParseFsl(e));
      return DecodeFslMiniBlock(plan, buffers, num_values);
    }
    case CE::kInlineBitpacking: {
      if (e.inline_bitpacking().has_values()) {
        return Status::NotImplemented("the " + Describe(e) +
                                      " mini-block encoding (buffer compression)");
      }
      LANCE_RETURN_NOT_OK(ExpectBuffers(e, buffers, 1));
      return DecodeInline(e.inline_bitpacking().uncompressed_bits_per_value(), buffers[0],
                          num_values, true);
    }
    case CE::kVariable:
      return MiniBlockVariable(e, buffers, num_values);
    case CE::kFsst: {
      const auto& f = e.fsst();
      if (f.symbol_table().empty() || !f.has_values() || !f.values().has_variable()) {
        return Status::NotImplemented(
            "the " + Describe(e) +
            " mini-block encoding (Lance requires a symbol table "
            "and variable values)");
      }
      LANCE_ASSIGN_OR_RAISE(
          FsstSymbolTable table,
          ParseFsstSymbolTable(reinterpret_cast<const uint8_t*>(f.symbol_table().data()),
                               static_cast<int64_t>(f.symbol_table().size())));
      LANCE_ASSIGN_OR_RAISE(DataBlock compressed,
                            MiniBlockVariable(f.values(), buffers, num_values));
      return FsstDecompress(table, compressed, internal::MaxChunkBytes(num_values));
    }
    case CE::kPackedStruct: {
      LANCE_ASSIGN_OR_RAISE(auto widths, PackedWidths(e));
      LANCE_RETURN_NOT_OK(ExpectBuffers(e, buffers, 1));
      int64_t row_bytes = 0;
      for (uint64_t w : widths) row_bytes += static_cast<int64_t>(w / 8);
      int64_t total;
      if (!internal::CheckedMul(num_values, row_bytes, &total) ||
          buffers[0]->size() != total) {
        return Corrupt("packed_struct chunk has " + std::to_string(buffers[0]->size()) +
                       " bytes, expected " + std::to_string(num_values) + " rows of " +
                       std::to_string(row_bytes));
      }
      return UnpackRows(widths, buffers[0], num_values);
    }
    case CE::kRle: {
      LANCE_ASSIGN_OR_RAISE(auto widths, RleWidths(e));
      (void)widths;
      LANCE_RETURN_NOT_OK(ExpectBuffers(e, buffers, 2));
      return DecodeRle(e, buffers[0]->data(), buffers[0]->size(), buffers[1]->data(),
                       buffers[1]->size(), num_values, /*clamp=*/true);
    }
    case CE::kByteStreamSplit: {
      const auto& b = e.byte_stream_split();
      if (!b.has_values() || !IsPlainFlat(b.values()) ||
          (b.values().flat().bits_per_value() != 32 &&
           b.values().flat().bits_per_value() != 64)) {
        return Status::NotImplemented("the " + Describe(e) +
                                      " encoding (Lance splits plain 32/64-bit values)");
      }
      LANCE_RETURN_NOT_OK(ExpectBuffers(e, buffers, 1));
      const uint64_t bits = b.values().flat().bits_per_value();
      if (num_values == 0) return DataBlock::Fixed(bits, 0, internal::EmptyBuffer());
      const int width = static_cast<int>(bits / 8);
      LANCE_ASSIGN_OR_RAISE(BufferPtr in,
                            SliceExact(buffers[0], BytesForBits(num_values, bits),
                                       "byte_stream_split chunk", true));
      LANCE_ASSIGN_OR_RAISE(BufferPtr out, internal::AllocateOut(in->size()));
      ByteStreamSplitDecode(width, in->data(), num_values, out->mutable_data());
      return DataBlock::Fixed(bits, num_values, std::move(out));
    }
    case CE::kGeneral: {
      const auto& g = e.general();
      if (!g.has_values()) return Missing(e, "values");
      LANCE_ASSIGN_OR_RAISE(int count, MiniBlockBufferCount(g.values()));
      LANCE_RETURN_NOT_OK(ExpectBuffers(e, buffers, static_cast<size_t>(count)));
      if (buffers.empty()) return Corrupt("general chunk has no buffers");
      // Lance compresses only the chunk's first value buffer.
      std::vector<BufferPtr> inner = buffers;
      LANCE_ASSIGN_OR_RAISE(inner[0], Decompress(g.compression(), buffers[0], -1,
                                                 internal::MaxChunkBytes(num_values)));
      return MiniBlock(g.values(), inner, num_values, depth + 1);
    }
    default:
      return NotInContext(e, "mini-block");
  }
}

}  // namespace

Result<DataBlock> DecodeMiniBlock(const CE& encoding,
                                  const std::vector<BufferPtr>& buffers,
                                  int64_t num_values) {
  return MiniBlock(encoding, buffers, num_values, 0);
}

namespace {

/// The values at `positions` of a kVariable block (offsets validated), as a new
/// kVariable block of the same offset width.
template <typename OffsetT>
Result<DataBlock> PickVariable(const DataBlock& in, const std::vector<int64_t>& positions) {
  constexpr int64_t w = sizeof(OffsetT);
  const uint8_t* offsets = in.offsets->data();
  const int64_t n = static_cast<int64_t>(positions.size());
  int64_t bytes = 0;
  for (int64_t p : positions) {
    if (p < 0 || p >= in.num_values) {
      return Corrupt("picking value " + std::to_string(p) + " of a chunk of " +
                     std::to_string(in.num_values));
    }
    bytes += static_cast<int64_t>(LoadLE<OffsetT>(offsets + (p + 1) * w) -
                                  LoadLE<OffsetT>(offsets + p * w));
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr out_offsets, internal::AllocateOut((n + 1) * w));
  LANCE_ASSIGN_OR_RAISE(BufferPtr out_data, internal::AllocateOut(bytes));
  uint8_t* oo = out_offsets->mutable_data();
  uint8_t* od = out_data->mutable_data();
  uint64_t at = 0;
  internal::StoreLE<OffsetT>(oo, 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t p = positions[static_cast<size_t>(i)];
    const uint64_t begin = LoadLE<OffsetT>(offsets + p * w);
    const uint64_t len = LoadLE<OffsetT>(offsets + (p + 1) * w) - begin;
    if (len > 0) std::memcpy(od + at, in.data->data() + begin, static_cast<size_t>(len));
    at += len;
    internal::StoreLE<OffsetT>(oo + (i + 1) * w, static_cast<OffsetT>(at));
  }
  return DataBlock::Variable(in.offset_bits, n, std::move(out_offsets), std::move(out_data));
}

}  // namespace

Result<std::optional<DataBlock>> DecodeMiniBlockPicked(const CE& encoding,
                                                       const std::vector<BufferPtr>& buffers,
                                                       int64_t num_values,
                                                       const std::vector<int64_t>& positions) {
  if (encoding.compression_case() != CE::kFsst) return std::optional<DataBlock>();
  const auto& f = encoding.fsst();
  if (f.symbol_table().empty() || !f.has_values() || !f.values().has_variable()) {
    return std::optional<DataBlock>();  // DecodeMiniBlock reports it
  }
  if (num_values < 0 || num_values > internal::kMaxCount) {
    return Corrupt("mini-block chunk claims " + std::to_string(num_values) + " values");
  }
  LANCE_ASSIGN_OR_RAISE(
      FsstSymbolTable table,
      ParseFsstSymbolTable(reinterpret_cast<const uint8_t*>(f.symbol_table().data()),
                           static_cast<int64_t>(f.symbol_table().size())));
  // The compressed strings keep their boundaries (FSST compresses value by value), so
  // the picked ones are gathered first and only they are decompressed.
  LANCE_ASSIGN_OR_RAISE(DataBlock compressed,
                        MiniBlockVariable(f.values(), buffers, num_values));
  Result<DataBlock> picked = compressed.offset_bits == 64
                                 ? PickVariable<uint64_t>(compressed, positions)
                                 : PickVariable<uint32_t>(compressed, positions);
  LANCE_RETURN_NOT_OK(picked.status());
  LANCE_ASSIGN_OR_RAISE(DataBlock out,
                        FsstDecompress(table, *picked, internal::MaxChunkBytes(num_values)));
  return std::optional<DataBlock>(std::move(out));
}

// ---------------------------------------------------------------------------------------
// Block

namespace {

Result<DataBlock> Block(const CE& e, const BufferPtr& buffer, int64_t num_values,
                        int depth);

Result<DataBlock> ConstantValues(const CE& e, int64_t num_values) {
  const std::string& value = e.constant().value();
  if (value.empty()) return DataBlock::AllNull(num_values);
  const int64_t width = static_cast<int64_t>(value.size());
  int64_t total;
  if (!internal::CheckedMul(num_values, width, &total) ||
      total > internal::kMaxBlockBytes) {
    return Corrupt("constant of " + std::to_string(num_values) + " values is too large");
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, internal::AllocateOut(total));
  uint8_t* p = out->mutable_data();
  if (width == 1) {
    std::memset(p, static_cast<unsigned char>(value[0]), static_cast<size_t>(total));
  } else {
    for (int64_t i = 0; i < num_values; ++i)
      std::memcpy(p + i * width, value.data(), width);
  }
  return DataBlock::Fixed(static_cast<uint64_t>(width) * 8, num_values, std::move(out));
}

Result<DataBlock> BlockDictionary(const CE& e, const BufferPtr& buffer,
                                  int64_t num_values, int depth) {
  const auto& d = e.dictionary();
  if (!d.has_indices() || !d.has_items()) return Missing(e, "indices or items");
  const uint64_t num_items = d.num_dictionary_items();
  if (num_items < 1 || num_items > 4096) {
    return Corrupt("block dictionary of " + std::to_string(num_items) + " items");
  }
  const bool ip = BlockHasPayload(d.indices()), tp = BlockHasPayload(d.items());
  BufferPtr indices_buf, items_buf;
  if (ip || tp) {
    if (!buffer || buffer->size() < 16)
      return Corrupt("block dictionary frame is truncated");
    const uint64_t a = LoadLE<uint64_t>(buffer->data());
    const uint64_t b = LoadLE<uint64_t>(buffer->data() + 8);
    const uint64_t rest = static_cast<uint64_t>(buffer->size() - 16);
    if (a > rest || b != rest - a || (!ip && a != 0) || (!tp && b != 0)) {
      return Corrupt("block dictionary frame sizes " + std::to_string(a) + " + " +
                     std::to_string(b) + " do not match its " + std::to_string(rest) +
                     " bytes");
    }
    indices_buf = Buffer::Slice(buffer, 16, static_cast<int64_t>(a));
    items_buf =
        Buffer::Slice(buffer, 16 + static_cast<int64_t>(a), static_cast<int64_t>(b));
  } else if (buffer && buffer->size() != 0) {
    return Corrupt("metadata-only block dictionary has a payload");
  }
  LANCE_ASSIGN_OR_RAISE(DataBlock indices,
                        Block(d.indices(), indices_buf, num_values, depth + 1));
  LANCE_ASSIGN_OR_RAISE(
      DataBlock items,
      Block(d.items(), items_buf, static_cast<int64_t>(num_items), depth + 1));
  if (indices.kind != DataBlock::Kind::kFixed || indices.bits_per_value != 32) {
    return Corrupt("block dictionary indices are not 32-bit values");
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> values,
                        FixedAsU64(items, "dictionary items"));
  const int64_t width = static_cast<int64_t>(items.bits_per_value / 8);
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, internal::AllocateOut(num_values * width));
  const uint8_t* idx = indices.data->data();
  uint8_t* dst = out->mutable_data();
  for (int64_t i = 0; i < num_values; ++i) {
    const uint32_t k = LoadLE<uint32_t>(idx + 4 * i);
    if (k >= values.size()) {
      return Corrupt("dictionary index " + std::to_string(k) + " is out of range for " +
                     std::to_string(values.size()) + " items");
    }
    std::memcpy(dst + i * width, &values[k], static_cast<size_t>(width));
  }
  return DataBlock::Fixed(items.bits_per_value, num_values, std::move(out));
}

Result<DataBlock> Block(const CE& e, const BufferPtr& buffer_in, int64_t num_values,
                        int depth) {
  if (depth > 8) return Corrupt("compressive encodings nest too deeply");
  if (num_values < 0 || num_values > internal::kMaxCount) {
    return Corrupt("block claims " + std::to_string(num_values) + " values");
  }
  if (e.has_constant()) {
    if (buffer_in && buffer_in->size() != 0)
      return Corrupt("constant block has a payload");
    return ConstantValues(e, num_values);
  }
  if (e.has_dictionary()) return BlockDictionary(e, buffer_in, num_values, depth);
  const BufferPtr buffer = buffer_in ? buffer_in : internal::EmptyBuffer();
  switch (e.compression_case()) {
    case CE::kInlineBitpacking: {
      if (e.inline_bitpacking().has_values()) {
        return Status::NotImplemented("the " + Describe(e) +
                                      " block encoding (buffer compression)");
      }
      // Lance writes one chunk (it uses inline bit-packing for at most 1024 values);
      // consecutive chunks are read as well.
      return DecodeInline(e.inline_bitpacking().uncompressed_bits_per_value(), buffer,
                          num_values, false);
    }
    case CE::kFlat: {
      const uint64_t bits = e.flat().bits_per_value();
      if (bits == 0) return Corrupt("flat block of 0-bit values");
      const int64_t bytes = BytesForBits(num_values, bits);
      BufferPtr data = buffer;
      // Lance 14.0.2 never writes buffer compression on flat; when present it is read
      // with Lance's general framing.
      if (e.flat().has_data()) {
        LANCE_ASSIGN_OR_RAISE(
            data, Decompress(e.flat().data(), buffer, bytes, internal::kMaxBlockBytes));
      }
      LANCE_ASSIGN_OR_RAISE(data, SliceExact(data, bytes, "flat block", false));
      return DataBlock::Fixed(bits, num_values, std::move(data));
    }
    case CE::kVariable: {
      BufferPtr data = buffer;
      if (e.variable().has_values()) {
        LANCE_ASSIGN_OR_RAISE(data, Decompress(e.variable().values(), buffer, -1,
                                               internal::kMaxBlockBytes));
      }
      return ReadVariableBlock(data, num_values);
    }
    case CE::kFixedSizeList: {
      LANCE_ASSIGN_OR_RAISE(FslPlan plan, ParseFsl(e));
      const int64_t bytes = BytesForBits(num_values, plan.bits_per_value);
      LANCE_ASSIGN_OR_RAISE(BufferPtr data,
                            SliceExact(buffer, bytes, "fixed_size_list block", true));
      return DecodeFslPerValue(plan, data, num_values);
    }
    case CE::kOutOfLineBitpacking:
      return DecodeOutOfLine(e, buffer, num_values);
    case CE::kGeneral: {
      const auto& g = e.general();
      if (!g.has_values()) return Missing(e, "values");
      int64_t expected = -1;
      if (g.values().has_fixed_size_list()) {
        LANCE_ASSIGN_OR_RAISE(FslPlan plan, ParseFsl(g.values()));
        expected = BytesForBits(num_values, plan.bits_per_value);
        if (expected < 0) return Corrupt("general block value count overflows");
      }
      LANCE_ASSIGN_OR_RAISE(BufferPtr inner, Decompress(g.compression(), buffer, expected,
                                                        internal::kMaxBlockBytes));
      return Block(g.values(), inner, num_values, depth + 1);
    }
    case CE::kRle: {
      LANCE_ASSIGN_OR_RAISE(auto widths, RleWidths(e));
      (void)widths;
      // [u64 values_size][run values][run lengths]
      if (buffer->size() < 8)
        return Corrupt("RLE block of " + std::to_string(buffer->size()) + " bytes");
      const uint64_t vs = LoadLE<uint64_t>(buffer->data());
      if (vs > static_cast<uint64_t>(buffer->size() - 8)) {
        return Corrupt("RLE block values size " + std::to_string(vs) + " passes its end");
      }
      const uint8_t* values = buffer->data() + 8;
      const int64_t lengths_size = buffer->size() - 8 - static_cast<int64_t>(vs);
      return DecodeRle(e, values, static_cast<int64_t>(vs), values + vs, lengths_size,
                       num_values, /*clamp=*/false);
    }
    default:
      return NotInContext(e, "block");
  }
}

}  // namespace

Result<DataBlock> DecodeBlock(const CE& encoding, const BufferPtr& buffer,
                              int64_t num_values) {
  return Block(encoding, buffer, num_values, 0);
}

// ---------------------------------------------------------------------------------------
// Fixed per-value

Result<uint64_t> FixedPerValueBits(const CE& e) {
  switch (e.compression_case()) {
    case CE::kFlat:
      return e.flat().bits_per_value();
    case CE::kConstant:
      return static_cast<uint64_t>(e.constant().value().size()) * 8;
    case CE::kFixedSizeList: {
      LANCE_ASSIGN_OR_RAISE(FslPlan plan, ParseFsl(e));
      return plan.bits_per_value;
    }
    case CE::kPackedStruct: {
      LANCE_ASSIGN_OR_RAISE(auto widths, PackedWidths(e));
      uint64_t sum = 0;
      for (uint64_t w : widths) sum += w;
      return sum;
    }
    default:
      return NotInContext(e, "fixed per-value");
  }
}

Result<DataBlock> DecodeFixedPerValue(const CE& e, const BufferPtr& data_in,
                                      int64_t num_values) {
  if (num_values < 0 || num_values > internal::kMaxCount) {
    return Corrupt("full-zip page claims " + std::to_string(num_values) + " values");
  }
  const BufferPtr data = data_in ? data_in : internal::EmptyBuffer();
  switch (e.compression_case()) {
    case CE::kFlat: {
      const uint64_t bits = e.flat().bits_per_value();
      if (bits == 0 || e.flat().has_data()) {
        return Status::NotImplemented("the " + Describe(e) + " fixed per-value encoding");
      }
      LANCE_ASSIGN_OR_RAISE(
          BufferPtr values,
          SliceExact(data, BytesForBits(num_values, bits), "full-zip values", false));
      return DataBlock::Fixed(bits, num_values, std::move(values));
    }
    case CE::kConstant:
      return ConstantValues(e, num_values);
    case CE::kFixedSizeList: {
      LANCE_ASSIGN_OR_RAISE(FslPlan plan, ParseFsl(e));
      return DecodeFslPerValue(plan, data, num_values);
    }
    case CE::kPackedStruct: {
      LANCE_ASSIGN_OR_RAISE(auto widths, PackedWidths(e));
      return UnpackRows(widths, data, num_values);
    }
    default:
      return NotInContext(e, "fixed per-value");
  }
}

namespace {

// Offsets of a kVariable block as u64, validated non-decreasing and inside data.
Result<std::vector<uint64_t>> ReadOffsets(const DataBlock& v) {
  if (v.kind != DataBlock::Kind::kVariable ||
      (v.offset_bits != 32 && v.offset_bits != 64)) {
    return Status::Invalid("variable per-value input is not a 32/64-bit variable block");
  }
  const int64_t w = v.offset_bits / 8;
  if (v.num_values < 0 || v.num_values > internal::kMaxCount || !v.offsets || !v.data ||
      v.offsets->size() < (v.num_values + 1) * w) {
    return Corrupt("variable per-value input has too few offsets");
  }
  std::vector<uint64_t> out(static_cast<size_t>(v.num_values) + 1);
  const uint8_t* p = v.offsets->data();
  for (int64_t i = 0; i <= v.num_values; ++i) {
    out[static_cast<size_t>(i)] =
        w == 4 ? LoadLE<uint32_t>(p + 4 * i) : LoadLE<uint64_t>(p + 8 * i);
    if ((i > 0 && out[static_cast<size_t>(i)] < out[static_cast<size_t>(i) - 1]) ||
        out[static_cast<size_t>(i)] > static_cast<uint64_t>(v.data->size())) {
      return Corrupt("variable per-value offsets decrease or pass the end of the values");
    }
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Page dictionaries

Result<DataBlock> TakeFromDictionary(const DataBlock& dictionary,
                                     const DataBlock& indices) {
  if (indices.kind != DataBlock::Kind::kFixed ||
      !IsFixedWordWidth(indices.bits_per_value) || !indices.data ||
      indices.data->size() <
          indices.num_values * static_cast<int64_t>(indices.bits_per_value / 8)) {
    return Corrupt("dictionary indices are not 8/16/32/64-bit integers");
  }
  const int64_t n = indices.num_values;
  const int iw = static_cast<int>(indices.bits_per_value / 8);
  const uint8_t* ip = indices.data->data();
  auto index = [&](int64_t i) -> uint64_t {
    switch (iw) {
      case 1:
        return ip[i];
      case 2:
        return LoadLE<uint16_t>(ip + 2 * i);
      case 4:
        return LoadLE<uint32_t>(ip + 4 * i);
      default:
        return LoadLE<uint64_t>(ip + 8 * i);
    }
  };
  const uint64_t size = static_cast<uint64_t>(dictionary.num_values);
  for (int64_t i = 0; i < n; ++i) {
    if (index(i) >= size) {
      return Corrupt("dictionary index " + std::to_string(index(i)) + " is past the " +
                     std::to_string(size) + " dictionary values");
    }
  }
  if (dictionary.kind == DataBlock::Kind::kFixed && dictionary.bits_per_value % 8 == 0 &&
      dictionary.bits_per_value > 0) {
    const int64_t w = static_cast<int64_t>(dictionary.bits_per_value / 8);
    if (!dictionary.data || dictionary.data->size() < dictionary.num_values * w) {
      return Corrupt("dictionary values are truncated");
    }
    int64_t total;
    if (!internal::CheckedMul(n, w, &total))
      return Corrupt("dictionary output overflows");
    LANCE_ASSIGN_OR_RAISE(BufferPtr out, internal::AllocateOut(total));
    const uint8_t* src = dictionary.data->data();
    uint8_t* dst = out->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(dst + i * w, src + static_cast<int64_t>(index(i)) * w,
                  static_cast<size_t>(w));
    }
    return DataBlock::Fixed(dictionary.bits_per_value, n, std::move(out));
  }
  if (dictionary.kind == DataBlock::Kind::kVariable) {
    LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> offsets, ReadOffsets(dictionary));
    const int64_t w = dictionary.offset_bits / 8;
    const int64_t limit = w == 4 ? int64_t{0x7FFFFFFF} : internal::kMaxBlockBytes;
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t k = index(i);
      total += static_cast<int64_t>(offsets[k + 1] - offsets[k]);
      if (total > limit)
        return Corrupt("dictionary output exceeds " + std::to_string(limit));
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr data, internal::AllocateOut(total));
    LANCE_ASSIGN_OR_RAISE(BufferPtr out_offsets, internal::AllocateOut((n + 1) * w));
    const uint8_t* src = dictionary.data->data();
    uint8_t* dst = data->mutable_data();
    uint8_t* oo = out_offsets->mutable_data();
    int64_t pos = 0;
    for (int64_t i = 0; i <= n; ++i) {
      if (w == 4) {
        internal::StoreLE<uint32_t>(oo + 4 * i, static_cast<uint32_t>(pos));
      } else {
        internal::StoreLE<uint64_t>(oo + 8 * i, static_cast<uint64_t>(pos));
      }
      if (i == n) break;
      const uint64_t k = index(i);
      const int64_t len = static_cast<int64_t>(offsets[k + 1] - offsets[k]);
      if (len > 0) std::memcpy(dst + pos, src + offsets[k], static_cast<size_t>(len));
      pos += len;
    }
    return DataBlock::Variable(dictionary.offset_bits, n, std::move(out_offsets),
                               std::move(data));
  }
  return Status::NotImplemented("a page dictionary of this kind of values");
}

// ---------------------------------------------------------------------------------------
// Variable per-value

namespace {

Result<DataBlock> VariablePerValue(const CE& e, const DataBlock& values, int depth);

Result<DataBlock> GeneralPerValue(const CE& e, const DataBlock& values) {
  const auto& g = e.general();
  LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> offsets, ReadOffsets(values));
  const int64_t n = values.num_values;
  const int64_t w = values.offset_bits / 8;
  const int64_t limit = w == 4 ? int64_t{0x7FFFFFFF} : internal::kMaxBlockBytes;
  // Pass 1: sizes from the frames' length prefixes.
  int64_t total = 0;
  bool known = true;
  const uint8_t* src = values.data->data();
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t a = offsets[static_cast<size_t>(i)],
                   b = offsets[static_cast<size_t>(i) + 1];
    if (a == b) continue;  // a null or empty value stores nothing
    LANCE_ASSIGN_OR_RAISE(int64_t size,
                          GeneralDeclaredSize(g.compression().scheme(), src + a,
                                              static_cast<int64_t>(b - a)));
    if (size < 0) {
      known = false;  // a bare zstd stream without a content size
      continue;
    }
    if (size >
            DecompressCap(g.compression().scheme(), static_cast<int64_t>(b - a), limit) ||
        total + size > limit) {
      return Corrupt("general per-value data declares more than " +
                     std::to_string(limit) + " bytes");
    }
    total += size;
  }
  BufferBuilder data;
  if (known) LANCE_RETURN_NOT_OK(data.Reserve(total));
  LANCE_ASSIGN_OR_RAISE(BufferPtr out_offsets, internal::AllocateOut((n + 1) * w));
  uint8_t* oo = out_offsets->mutable_data();
  auto store = [&](int64_t i, int64_t v) {
    if (w == 4) {
      internal::StoreLE<uint32_t>(oo + 4 * i, static_cast<uint32_t>(v));
    } else {
      internal::StoreLE<uint64_t>(oo + 8 * i, static_cast<uint64_t>(v));
    }
  };
  store(0, 0);
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t a = offsets[static_cast<size_t>(i)],
                   b = offsets[static_cast<size_t>(i) + 1];
    const int64_t csize = static_cast<int64_t>(b - a);
    if (csize == 0) {
      store(i + 1, data.length());
      continue;
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr one,
                          GeneralDecompress(g.compression().scheme(), src + a, csize, -1,
                                            DecompressCap(g.compression().scheme(), csize,
                                                          limit - data.length())));
    LANCE_RETURN_NOT_OK(data.Append(one->data(), one->size()));
    store(i + 1, data.length());
  }
  BufferPtr bytes;
  if (data.length() == 0) {
    bytes = internal::EmptyBuffer();
  } else {
    LANCE_ASSIGN_OR_RAISE(bytes, data.Finish());
  }
  return DataBlock::Variable(values.offset_bits, n, std::move(out_offsets),
                             std::move(bytes));
}

// Lance's PackedStructVariablePerValueDecompressor: every row is the fields back to back,
// a fixed field as its bits_per_value / 8 bytes, a variable field as a length prefix of
// bits_per_length bits (32 or 64) and the bytes. An empty row (a null struct) gives every
// field an empty placeholder: zero bytes for fixed fields, an empty value otherwise.
Result<DataBlock> VariablePackedPerValue(const CE& e, const DataBlock& values,
                                         int depth) {
  const auto& vps = e.variable_packed_struct();
  LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> rows, ReadOffsets(values));
  const int64_t n = values.num_values;
  struct Field {
    const CE* encoding;
    bool fixed;
    int64_t bytes;  // fixed width, or the length prefix width
    BufferBuilder data;
    std::vector<uint64_t> offsets;
  };
  std::vector<Field> fields;
  for (const auto& f : vps.fields()) {
    if (!f.has_value()) return Missing(e, "field encoding");
    Field field{&f.value(), f.has_bits_per_value(), 0, {}, {}};
    if (f.has_bits_per_value()) {
      if (f.bits_per_value() % 8 != 0 || f.bits_per_value() > (1u << 20)) {
        return Corrupt("variable_packed_struct field of " +
                       std::to_string(f.bits_per_value()) + " bits");
      }
      field.bytes = static_cast<int64_t>(f.bits_per_value() / 8);
    } else if (f.has_bits_per_length()) {
      if (f.bits_per_length() != 32 && f.bits_per_length() != 64) {
        return Corrupt("variable_packed_struct field with a " +
                       std::to_string(f.bits_per_length()) + "-bit length");
      }
      field.bytes = static_cast<int64_t>(f.bits_per_length() / 8);
      field.offsets.push_back(0);
    } else {
      return Missing(e, "field layout");
    }
    fields.push_back(std::move(field));
  }
  if (fields.empty()) return Corrupt("variable_packed_struct without fields");
  const uint8_t* src = values.data->data();
  static const uint8_t kZeros[64] = {};
  for (int64_t r = 0; r < n; ++r) {
    uint64_t cur = rows[static_cast<size_t>(r)];
    const uint64_t end = rows[static_cast<size_t>(r) + 1];
    const bool empty = cur == end;
    for (Field& f : fields) {
      if (f.fixed) {
        if (empty) {
          for (int64_t left = f.bytes; left > 0; left -= 64) {
            LANCE_RETURN_NOT_OK(f.data.Append(kZeros, std::min<int64_t>(left, 64)));
          }
          continue;
        }
        if (end - cur < static_cast<uint64_t>(f.bytes)) {
          return Corrupt("variable_packed_struct row " + std::to_string(r) +
                         " is shorter than its fixed field");
        }
        LANCE_RETURN_NOT_OK(f.data.Append(src + cur, f.bytes));
        cur += static_cast<uint64_t>(f.bytes);
      } else {
        if (!empty) {
          if (end - cur < static_cast<uint64_t>(f.bytes)) {
            return Corrupt("variable_packed_struct row " + std::to_string(r) +
                           " is shorter than a length prefix");
          }
          const uint64_t len =
              f.bytes == 4 ? LoadLE<uint32_t>(src + cur) : LoadLE<uint64_t>(src + cur);
          cur += static_cast<uint64_t>(f.bytes);
          if (len > end - cur) {
            return Corrupt("variable_packed_struct row " + std::to_string(r) +
                           " has a field longer than the row");
          }
          LANCE_RETURN_NOT_OK(f.data.Append(src + cur, static_cast<int64_t>(len)));
          cur += len;
        }
        f.offsets.push_back(static_cast<uint64_t>(f.data.length()));
      }
    }
    if (!empty && cur != end) {
      return Corrupt("variable_packed_struct row " + std::to_string(r) +
                     " has bytes after its last field");
    }
  }
  DataBlock out;
  out.kind = DataBlock::Kind::kStruct;
  out.num_values = n;
  for (Field& f : fields) {
    BufferPtr bytes;
    if (f.data.length() == 0) {
      bytes = internal::EmptyBuffer();
    } else {
      LANCE_ASSIGN_OR_RAISE(bytes, f.data.Finish());
    }
    if (f.fixed) {
      LANCE_ASSIGN_OR_RAISE(DataBlock child, DecodeFixedPerValue(*f.encoding, bytes, n));
      out.children.push_back(std::move(child));
      continue;
    }
    const int64_t w = f.bytes;
    LANCE_ASSIGN_OR_RAISE(BufferPtr offs, internal::AllocateOut((n + 1) * w));
    for (int64_t i = 0; i <= n; ++i) {
      if (w == 4) {
        if (f.offsets[static_cast<size_t>(i)] > 0xFFFFFFFFull) {
          return Corrupt("variable_packed_struct field exceeds 32-bit offsets");
        }
        internal::StoreLE<uint32_t>(
            offs->mutable_data() + 4 * i,
            static_cast<uint32_t>(f.offsets[static_cast<size_t>(i)]));
      } else {
        internal::StoreLE<uint64_t>(offs->mutable_data() + 8 * i,
                                    f.offsets[static_cast<size_t>(i)]);
      }
    }
    LANCE_ASSIGN_OR_RAISE(
        DataBlock child,
        VariablePerValue(*f.encoding,
                         DataBlock::Variable(static_cast<int>(w * 8), n, std::move(offs),
                                             std::move(bytes)),
                         depth + 1));
    out.children.push_back(std::move(child));
  }
  return out;
}

Result<DataBlock> VariablePerValue(const CE& e, const DataBlock& values, int depth) {
  if (depth > 8) return Corrupt("compressive encodings nest too deeply");
  switch (e.compression_case()) {
    case CE::kVariable: {
      const auto& v = e.variable();
      if (!v.has_offsets() || !v.offsets().has_flat() ||
          v.offsets().flat().bits_per_value() >= 255) {
        return Status::NotImplemented("the " + Describe(e) +
                                      " variable per-value encoding (Lance requires flat "
                                      "offsets)");
      }
      LANCE_RETURN_NOT_OK(ReadOffsets(values).status());
      return values;
    }
    case CE::kFsst: {
      const auto& f = e.fsst();
      LANCE_ASSIGN_OR_RAISE(
          FsstSymbolTable table,
          ParseFsstSymbolTable(reinterpret_cast<const uint8_t*>(f.symbol_table().data()),
                               static_cast<int64_t>(f.symbol_table().size())));
      return FsstDecompress(table, values, internal::kMaxBlockBytes);
    }
    case CE::kGeneral:
      if (!e.general().has_compression()) return Missing(e, "compression");
      return GeneralPerValue(e, values);
    case CE::kVariablePackedStruct:
      return VariablePackedPerValue(e, values, depth);
    default:
      return NotInContext(e, "variable per-value");
  }
}

}  // namespace

Result<DataBlock> DecodeVariablePerValue(const CE& encoding, const DataBlock& values) {
  return VariablePerValue(encoding, values, 0);
}

}  // namespace lance::format::codecs

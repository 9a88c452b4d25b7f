// SPDX-License-Identifier: Apache-2.0
// Decoding of the Lance 2.1/2.2 compressive encodings: the data blocks, describing an
// encoding, the helpers every context shares and fixed_size_list. The contexts live in
// miniblock_decode.cc (mini-block) and block_decode.cc (block, fixed and variable
// per-value, page dictionaries); see codecs.h for which encoding Lance accepts where.

#include "format/codecs/codecs.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "format/codecs/bitpack.h"
#include "format/codecs/byte_stream_split.h"
#include "format/codecs/codec_util.h"
#include "format/codecs/decode_internal.h"
#include "format/codecs/fsst.h"
#include "format/codecs/general.h"
#include "format/codecs/rle.h"
#include "format/codecs/variable.h"
#include "lance/macros.h"

namespace lance::format::codecs {

using CE = pb21::CompressiveEncoding;
using internal::BytesForBits;

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

int64_t DataBlock::MaxValueLength() const {
  int64_t max = 0;
  for (int64_t i = 0; i < num_values; ++i) {
    max = std::max(max, static_cast<int64_t>(Offset(i + 1) - Offset(i)));
  }
  return max;
}

// ---------------------------------------------------------------------------------------
// Describe

std::string DescribeChild(const CE* e) { return e == nullptr ? "?" : Describe(*e); }

namespace {

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

Status NotInContext(const CE& e, const char* context) {
  return Status::NotImplemented("the ", Describe(e), " encoding in the ", context,
                                " context (Lance 14.0.2 does not read it there)");
}

Status Missing(const CE& e, const char* what) {
  return Status::Corrupt("the ", Describe(e), " encoding has no ", what);
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
  if (bytes < 0) return Status::Corrupt(what, " is implausibly large");
  if (!buffer || buffer->size() < bytes || (exact && buffer->size() != bytes)) {
    return Status::Corrupt(what, " has ", std::to_string(buffer ? buffer->size() : 0),
                           " bytes, expected ", bytes);
  }
  if (buffer->size() == bytes) return buffer;
  return Buffer::Slice(buffer, 0, bytes);
}

// --- fixed_size_list -------------------------------------------------------------------

// Lance's ValueDecompressor::from_fsl: nested FSL layers down to a plain flat leaf, or a
// constant leaf when every item is null.
Result<FslPlan> ParseFsl(const CE& top) {
  FslPlan plan;
  const CE* e = &top;
  constexpr uint64_t kLimit = uint64_t{1} << 40;
  while (true) {
    const auto& fsl = e->fixed_size_list();
    if (fsl.items_per_value() == 0 || fsl.items_per_value() > kLimit) {
      return Status::Corrupt("fixed_size_list with ", fsl.items_per_value(),
                             " items per value");
    }
    if (plan.cum_dim > kLimit / fsl.items_per_value()) {
      return Status::Corrupt("fixed_size_list dimensions overflow");
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
        return Status::NotImplemented("fixed_size_list over ", Describe(inner));
      }
      plan.bits_per_item = inner.flat().bits_per_value();
    } else if (inner.has_constant()) {
      plan.bits_per_item = 0;
    } else {
      return Status::NotImplemented("fixed_size_list over ", Describe(inner));
    }
    break;
  }
  if (plan.bits_per_item > 0 && plan.cum_dim > kLimit / plan.bits_per_item) {
    return Status::Corrupt("fixed_size_list value width overflows");
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
    return Status::Corrupt("fixed_size_list value count overflows");
  }
  if (plan.validity_layers == 0) {
    const int64_t bytes = BytesForBits(num_items, plan.bits_per_item);
    LANCE_ASSIGN_OR_RAISE(BufferPtr items,
                          SliceExact(data, bytes, "fixed_size_list values", false));
    LANCE_ASSIGN_OR_RAISE(DataBlock block, FslItems(plan, num_items, std::move(items)));
    return AssembleFsl(plan, num_values, std::move(block), {});
  }
  if (plan.bits_per_item % 8 != 0 || plan.bits_per_value % 8 != 0) {
    return Status::NotImplemented("full-zip fixed_size_list with item validity over ",
                                  plan.bits_per_item, "-bit items");
  }
  int64_t total;
  if (!internal::CheckedMul(num_values, row_bytes, &total) || !data ||
      data->size() < total) {
    return Status::Corrupt("fixed_size_list values have ",
                           std::to_string(data ? data->size() : 0), " bytes, fewer than ",
                           num_values, " values of ", row_bytes, " bytes");
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
    return Status::Corrupt("fixed_size_list chunk has ", buffers.size(),
                           " buffers, expected ",
                           std::to_string(plan.validity_layers + 1));
  }
  std::vector<BufferPtr> validity;
  size_t next = 0;
  for (const FslLayer& layer : plan.layers) {
    if (!layer.has_validity) continue;
    int64_t bits;
    if (!internal::CheckedMul(num_values, static_cast<int64_t>(layer.cum_dim), &bits)) {
      return Status::Corrupt("fixed_size_list value count overflows");
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr v,
                          SliceExact(buffers[next++], (bits + 7) / 8,
                                     "fixed_size_list validity buffer", true));
    validity.push_back(std::move(v));
  }
  int64_t num_items;
  if (!internal::CheckedMul(num_values, static_cast<int64_t>(plan.cum_dim), &num_items)) {
    return Status::Corrupt("fixed_size_list value count overflows");
  }
  LANCE_ASSIGN_OR_RAISE(
      BufferPtr items,
      SliceExact(buffers[next], BytesForBits(num_items, plan.bits_per_item),
                 "fixed_size_list value buffer", true));
  LANCE_ASSIGN_OR_RAISE(DataBlock block, FslItems(plan, num_items, std::move(items)));
  return AssembleFsl(plan, num_values, std::move(block), std::move(validity));
}

}  // namespace lance::format::codecs

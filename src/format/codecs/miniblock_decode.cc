// SPDX-License-Identifier: Apache-2.0
// The value layouts shared by the mini-block, block and per-value contexts (bit-packing
// inline and out of line, RLE, packed rows) and the mini-block context itself.

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
// --- bit-packing -----------------------------------------------------------------------

template <typename T>
Result<DataBlock> DecodeInlineChunksT(const BufferPtr& buffer, int64_t num_values,
                                      bool single_chunk) {
  constexpr int64_t kBytes = sizeof(T);
  constexpr int kT = static_cast<int>(kBytes * 8);
  if (num_values == 0) return DataBlock::Fixed(kT, 0, internal::EmptyBuffer());
  if (single_chunk && num_values > kFastLanesBlock) {
    return Status::Corrupt("inline_bitpacking chunk claims ", num_values,
                           " values, more than 1024");
  }
  const int64_t num_chunks = (num_values + kFastLanesBlock - 1) / kFastLanesBlock;
  if (num_chunks > buffer->size() / kBytes) {
    return Status::Corrupt("inline_bitpacking buffer of ", std::to_string(buffer->size()),
                           " bytes cannot hold ", num_values, " values");
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr out,
                        internal::AllocateOut(num_chunks * kFastLanesBlock * kBytes));
  const uint8_t* p = buffer->data();
  int64_t left = buffer->size();
  T* dst = out->mutable_data_as<T>();
  alignas(64) T packed[kFastLanesBlock];
  for (int64_t c = 0; c < num_chunks; ++c) {
    if (left < kBytes) {
      return Status::Corrupt("inline_bitpacking chunk of ", left,
                             " bytes has no bit width");
    }
    const uint64_t width = LoadLE<T>(p);
    if (width > static_cast<uint64_t>(kT)) {
      return Status::Corrupt("inline_bitpacking bit width ", width, " exceeds ", kT);
    }
    const int64_t bytes = PackedWords<T>(static_cast<int>(width)) * kBytes;
    const bool last = c == num_chunks - 1;
    if (left - kBytes < bytes || (last && left - kBytes != bytes)) {
      return Status::Corrupt("inline_bitpacking chunk has ", left - kBytes,
                             " payload bytes, expected ", bytes, " for width ", width);
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
  if (!IsFixedWordWidth(bits)) {
    return Status::NotImplemented("inline_bitpacking of ", bits, "-bit values");
  }
  return internal::DispatchUnsignedWidth(bits, [&](auto word) {
    return DecodeInlineChunksT<decltype(word)>(buffer, num_values, single_chunk);
  });
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
    return Status::Corrupt("out_of_line_bitpacking value count overflows");
  }
  const int64_t raw_size = full_bytes + tail * kBytes;
  const int64_t padded_size = full_bytes + (tail > 0 ? block_bytes : 0);
  const int64_t size = buffer->size();
  if (size != raw_size && size != padded_size) {
    return Status::Corrupt("out_of_line_bitpacking buffer has ", size,
                           " bytes, expected ", raw_size, " (raw tail) or ", padded_size,
                           " (packed tail) for ", num_values, " values of ", width,
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
    return Status::NotImplemented("out_of_line_bitpacking over ",
                                  DescribeChild(o.has_values() ? &o.values() : nullptr));
  }
  const uint64_t bits = o.uncompressed_bits_per_value();
  const uint64_t width = o.values().flat().bits_per_value();
  if (!IsFixedWordWidth(bits)) {
    return Status::NotImplemented("out_of_line_bitpacking of ", bits, "-bit values");
  }
  if (width > bits) {
    return Status::Corrupt("out_of_line_bitpacking width ", width, " exceeds ", bits);
  }
  if (num_values > internal::kMaxCount) return Status::Corrupt("implausible value count");
  const int w = static_cast<int>(width);
  return internal::DispatchUnsignedWidth(bits, [&](auto word) {
    return DecodeOutOfLineT<decltype(word)>(w, buffer, num_values);
  });
}

// --- rle -------------------------------------------------------------------------------

// The stable grammar: flat values of 8/16/32/64 bits and flat run lengths (u8 in 2.1 and
// 2.2; 16 and 32 are accepted too, as newer Lance reads them).
Result<std::pair<int, int>> RleWidths(const CE& e) {
  const auto& r = e.rle();
  if (!r.has_values() || !r.has_run_lengths()) return Missing(e, "values or run lengths");
  if (!IsPlainFlat(r.values()) || !IsPlainFlat(r.run_lengths())) {
    return Status::NotImplemented("the ", Describe(e),
                                  " encoding (only flat rle children are supported)");
  }
  const uint64_t vb = r.values().flat().bits_per_value();
  const uint64_t lb = r.run_lengths().flat().bits_per_value();
  if (!IsFixedWordWidth(vb) || !(lb == 8 || lb == 16 || lb == 32)) {
    return Status::NotImplemented("the ", Describe(e), " encoding");
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
    return Status::Corrupt("implausible value count");
  // Every run holds at least one value, but runs may be up to 2^32 long: bound the
  // output by what the runs can describe before allocating.
  const int64_t max_run = widths.second == 1   ? 255
                          : widths.second == 2 ? 65535
                                               : 0xFFFFFFFFll;
  const int64_t runs = lengths_size / widths.second;
  if (num_values / max_run > runs) {
    return Status::Corrupt("RLE with ", runs, " runs cannot hold ", num_values,
                           " values");
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
        "packed_struct over ", DescribeChild(ps.has_values() ? &ps.values() : nullptr));
  }
  std::vector<uint64_t> widths(ps.bits_per_value().begin(), ps.bits_per_value().end());
  uint64_t sum = 0;
  for (uint64_t w : widths) {
    if (w == 0 || w % 8 != 0 || w > 1 << 20) {
      return Status::Corrupt("packed_struct field of ", w, " bits");
    }
    sum += w;
  }
  if (widths.empty() || sum != ps.values().flat().bits_per_value()) {
    return Status::Corrupt("packed_struct field widths sum to ", sum,
                           " bits, its values are ", ps.values().flat().bits_per_value());
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
    return Status::Corrupt("packed_struct rows have ", std::to_string(rows->size()),
                           " bytes, fewer than ", num_values, " rows of ", row_bytes);
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
    return Status::Corrupt(what, " are not 32- or 64-bit values");
  }
  std::vector<uint64_t> out(static_cast<size_t>(b.num_values));
  const uint8_t* p = b.data->data();
  for (int64_t i = 0; i < b.num_values; ++i) {
    out[static_cast<size_t>(i)] = b.bits_per_value == 32 ? LoadLE<uint32_t>(p + 4 * i)
                                                         : LoadLE<uint64_t>(p + 8 * i);
  }
  return out;
}

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
    return Status::Corrupt("the ", Describe(e), " chunk has ", buffers.size(),
                           " value buffers, expected ", n);
  }
  for (const auto& b : buffers) {
    if (!b) return Status::Corrupt("the ", Describe(e), " chunk is missing a buffer");
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
        "the ", Describe(e),
        " mini-block encoding (offsets other than plain flat 32/64 "
        "are Lance 2.3)");
  }
  LANCE_RETURN_NOT_OK(ExpectBuffers(e, buffers, 1));
  return ReadVariableChunk(
      buffers[0], static_cast<int>(v.offsets().flat().bits_per_value()), num_values);
}

Result<DataBlock> MiniBlockFlat(const CE& e, const std::vector<BufferPtr>& buffers,
                                int64_t num_values) {
  const uint64_t bits = e.flat().bits_per_value();
  if (bits == 0 || e.flat().has_data()) {
    return Status::NotImplemented("the ", Describe(e),
                                  " mini-block encoding (Lance requires a positive width "
                                  "and no buffer compression)");
  }
  LANCE_RETURN_NOT_OK(ExpectBuffers(e, buffers, 1));
  LANCE_ASSIGN_OR_RAISE(
      BufferPtr data,
      SliceExact(buffers[0], BytesForBits(num_values, bits), "flat chunk", true));
  return DataBlock::Fixed(bits, num_values, std::move(data));
}

// Lance writes FSST mini-blocks with a symbol table over variable-width values; only
// those are decoded.
bool IsDecodableFsst(const pb21::Fsst& f) {
  return !f.symbol_table().empty() && f.has_values() && f.values().has_variable();
}

Result<FsstSymbolTable> SymbolTableOf(const pb21::Fsst& f) {
  return ParseFsstSymbolTable(reinterpret_cast<const uint8_t*>(f.symbol_table().data()),
                              static_cast<int64_t>(f.symbol_table().size()));
}

Result<DataBlock> MiniBlockFsst(const CE& e, const std::vector<BufferPtr>& buffers,
                                int64_t num_values) {
  const auto& f = e.fsst();
  if (!IsDecodableFsst(f)) {
    return Status::NotImplemented("the ", Describe(e),
                                  " mini-block encoding (Lance requires a symbol table "
                                  "and variable values)");
  }
  LANCE_ASSIGN_OR_RAISE(FsstSymbolTable table, SymbolTableOf(f));
  LANCE_ASSIGN_OR_RAISE(DataBlock compressed,
                        MiniBlockVariable(f.values(), buffers, num_values));
  return FsstDecompress(table, compressed, internal::MaxChunkBytes(num_values));
}

Result<DataBlock> MiniBlockPackedStruct(const CE& e,
                                        const std::vector<BufferPtr>& buffers,
                                        int64_t num_values) {
  LANCE_ASSIGN_OR_RAISE(auto widths, PackedWidths(e));
  LANCE_RETURN_NOT_OK(ExpectBuffers(e, buffers, 1));
  int64_t row_bytes = 0;
  for (uint64_t w : widths) row_bytes += static_cast<int64_t>(w / 8);
  int64_t total;
  if (!internal::CheckedMul(num_values, row_bytes, &total) ||
      buffers[0]->size() != total) {
    return Status::Corrupt("packed_struct chunk has ", std::to_string(buffers[0]->size()),
                           " bytes, expected ", num_values, " rows of ", row_bytes);
  }
  return UnpackRows(widths, buffers[0], num_values);
}

Result<DataBlock> MiniBlockByteStreamSplit(const CE& e,
                                           const std::vector<BufferPtr>& buffers,
                                           int64_t num_values) {
  const auto& b = e.byte_stream_split();
  if (!b.has_values() || !IsPlainFlat(b.values()) ||
      (b.values().flat().bits_per_value() != 32 &&
       b.values().flat().bits_per_value() != 64)) {
    return Status::NotImplemented("the ", Describe(e),
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

Result<DataBlock> MiniBlockGeneral(const CE& e, const std::vector<BufferPtr>& buffers,
                                   int64_t num_values, int depth) {
  const auto& g = e.general();
  if (!g.has_values()) return Missing(e, "values");
  LANCE_ASSIGN_OR_RAISE(int count, MiniBlockBufferCount(g.values()));
  LANCE_RETURN_NOT_OK(ExpectBuffers(e, buffers, static_cast<size_t>(count)));
  if (buffers.empty()) return Status::Corrupt("general chunk has no buffers");
  // Lance compresses only the chunk's first value buffer.
  std::vector<BufferPtr> inner = buffers;
  LANCE_ASSIGN_OR_RAISE(inner[0], Decompress(g.compression(), buffers[0], -1,
                                             internal::MaxChunkBytes(num_values)));
  return MiniBlock(g.values(), inner, num_values, depth + 1);
}

Result<DataBlock> MiniBlock(const CE& e, const std::vector<BufferPtr>& buffers,
                            int64_t num_values, int depth) {
  if (depth > 8) return Status::Corrupt("compressive encodings nest too deeply");
  if (num_values < 0 || num_values > internal::kMaxCount) {
    return Status::Corrupt("mini-block chunk claims ", num_values, " values");
  }
  switch (e.compression_case()) {
    case CE::kFlat:
      return MiniBlockFlat(e, buffers, num_values);
    case CE::kFixedSizeList: {
      LANCE_ASSIGN_OR_RAISE(FslPlan plan, ParseFsl(e));
      return DecodeFslMiniBlock(plan, buffers, num_values);
    }
    case CE::kInlineBitpacking: {
      if (e.inline_bitpacking().has_values()) {
        return Status::NotImplemented("the ", Describe(e),
                                      " mini-block encoding (buffer compression)");
      }
      LANCE_RETURN_NOT_OK(ExpectBuffers(e, buffers, 1));
      return DecodeInline(e.inline_bitpacking().uncompressed_bits_per_value(), buffers[0],
                          num_values, true);
    }
    case CE::kVariable:
      return MiniBlockVariable(e, buffers, num_values);
    case CE::kFsst:
      return MiniBlockFsst(e, buffers, num_values);
    case CE::kPackedStruct:
      return MiniBlockPackedStruct(e, buffers, num_values);
    case CE::kRle: {
      LANCE_ASSIGN_OR_RAISE(auto widths, RleWidths(e));
      (void)widths;
      LANCE_RETURN_NOT_OK(ExpectBuffers(e, buffers, 2));
      return DecodeRle(e, buffers[0]->data(), buffers[0]->size(), buffers[1]->data(),
                       buffers[1]->size(), num_values, /*clamp=*/true);
    }
    case CE::kByteStreamSplit:
      return MiniBlockByteStreamSplit(e, buffers, num_values);
    case CE::kGeneral:
      return MiniBlockGeneral(e, buffers, num_values, depth);
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
Result<DataBlock> PickVariable(const DataBlock& in,
                               const std::vector<int64_t>& positions) {
  constexpr int64_t w = sizeof(OffsetT);
  const uint8_t* offsets = in.offsets->data();
  const int64_t n = static_cast<int64_t>(positions.size());
  int64_t bytes = 0;
  for (int64_t p : positions) {
    if (p < 0 || p >= in.num_values) {
      return Status::Corrupt("picking value ", p, " of a chunk of ", in.num_values);
    }
    bytes += static_cast<int64_t>(LoadLE<OffsetT>(offsets + (p + 1) * w) -
                                  LoadLE<OffsetT>(offsets + p * w));
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr out_offsets, internal::AllocateOut((n + 1) * w));
  LANCE_ASSIGN_OR_RAISE(BufferPtr out_data, internal::AllocateOut(bytes));
  uint8_t* oo = out_offsets->mutable_data();
  uint8_t* od = out_data->mutable_data();
  uint64_t at = 0;
  StoreLE<OffsetT>(oo, 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t p = positions[static_cast<size_t>(i)];
    const uint64_t begin = LoadLE<OffsetT>(offsets + p * w);
    const uint64_t len = LoadLE<OffsetT>(offsets + (p + 1) * w) - begin;
    if (len > 0) std::memcpy(od + at, in.data->data() + begin, static_cast<size_t>(len));
    at += len;
    StoreLE<OffsetT>(oo + (i + 1) * w, static_cast<OffsetT>(at));
  }
  return DataBlock::Variable(in.offset_bits, n, std::move(out_offsets),
                             std::move(out_data));
}

}  // namespace

Result<std::optional<DataBlock>> DecodeMiniBlockPicked(
    const CE& encoding, const std::vector<BufferPtr>& buffers, int64_t num_values,
    const std::vector<int64_t>& positions) {
  if (encoding.compression_case() != CE::kFsst) return std::optional<DataBlock>();
  const auto& f = encoding.fsst();
  if (!IsDecodableFsst(f)) {
    return std::optional<DataBlock>();  // DecodeMiniBlock reports it
  }
  if (num_values < 0 || num_values > internal::kMaxCount) {
    return Status::Corrupt("mini-block chunk claims ", num_values, " values");
  }
  LANCE_ASSIGN_OR_RAISE(FsstSymbolTable table, SymbolTableOf(f));
  // The compressed strings keep their boundaries (FSST compresses value by value), so
  // the picked ones are gathered first and only they are decompressed.
  LANCE_ASSIGN_OR_RAISE(DataBlock compressed,
                        MiniBlockVariable(f.values(), buffers, num_values));
  Result<DataBlock> picked = compressed.offset_bits == 64
                                 ? PickVariable<uint64_t>(compressed, positions)
                                 : PickVariable<uint32_t>(compressed, positions);
  LANCE_RETURN_NOT_OK(picked.status());
  LANCE_ASSIGN_OR_RAISE(
      DataBlock out, FsstDecompress(table, *picked, internal::MaxChunkBytes(num_values)));
  return std::optional<DataBlock>(std::move(out));
}

// ---------------------------------------------------------------------------------------
// Block

}  // namespace lance::format::codecs

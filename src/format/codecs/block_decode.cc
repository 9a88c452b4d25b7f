// SPDX-License-Identifier: Apache-2.0
// The block context, the fixed and variable per-value contexts and page dictionaries.

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
    return Status::Corrupt("constant of ", num_values, " values is too large");
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, internal::AllocateOut(total));
  uint8_t* p = out->mutable_data();
  if (width == 1) {
    std::memset(p, static_cast<unsigned char>(value[0]), static_cast<size_t>(total));
  } else {
    for (int64_t i = 0; i < num_values; ++i)
      std::copy_n(value.data(), width, p + i * width);
  }
  return DataBlock::Fixed(static_cast<uint64_t>(width) * 8, num_values, std::move(out));
}

Result<DataBlock> BlockDictionary(const CE& e, const BufferPtr& buffer,
                                  int64_t num_values, int depth) {
  const auto& d = e.dictionary();
  if (!d.has_indices() || !d.has_items()) return Missing(e, "indices or items");
  const uint64_t num_items = d.num_dictionary_items();
  if (num_items < 1 || num_items > 4096) {
    return Status::Corrupt("block dictionary of ", num_items, " items");
  }
  const bool ip = BlockHasPayload(d.indices()), tp = BlockHasPayload(d.items());
  BufferPtr indices_buf, items_buf;
  if (ip || tp) {
    if (!buffer || buffer->size() < 16)
      return Status::Corrupt("block dictionary frame is truncated");
    const uint64_t a = LoadLE<uint64_t>(buffer->data());
    const uint64_t b = LoadLE<uint64_t>(buffer->data() + 8);
    const uint64_t rest = static_cast<uint64_t>(buffer->size() - 16);
    if (a > rest || b != rest - a || (!ip && a != 0) || (!tp && b != 0)) {
      return Status::Corrupt("block dictionary frame sizes ", a, " + ", b,
                             " do not match its ", rest, " bytes");
    }
    indices_buf = Buffer::Slice(buffer, 16, static_cast<int64_t>(a));
    items_buf =
        Buffer::Slice(buffer, 16 + static_cast<int64_t>(a), static_cast<int64_t>(b));
  } else if (buffer && buffer->size() != 0) {
    return Status::Corrupt("metadata-only block dictionary has a payload");
  }
  LANCE_ASSIGN_OR_RAISE(DataBlock indices,
                        Block(d.indices(), indices_buf, num_values, depth + 1));
  LANCE_ASSIGN_OR_RAISE(
      DataBlock items,
      Block(d.items(), items_buf, static_cast<int64_t>(num_items), depth + 1));
  if (indices.kind != DataBlock::Kind::kFixed || indices.bits_per_value != 32) {
    return Status::Corrupt("block dictionary indices are not 32-bit values");
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
      return Status::Corrupt("dictionary index ", k, " is out of range for ",
                             values.size(), " items");
    }
    std::memcpy(dst + i * width, &values[k], static_cast<size_t>(width));
  }
  return DataBlock::Fixed(items.bits_per_value, num_values, std::move(out));
}

Result<DataBlock> Block(const CE& e, const BufferPtr& buffer_in, int64_t num_values,
                        int depth) {
  if (depth > 8) return Status::Corrupt("compressive encodings nest too deeply");
  if (num_values < 0 || num_values > internal::kMaxCount) {
    return Status::Corrupt("block claims ", num_values, " values");
  }
  if (e.has_constant()) {
    if (buffer_in && buffer_in->size() != 0)
      return Status::Corrupt("constant block has a payload");
    return ConstantValues(e, num_values);
  }
  if (e.has_dictionary()) return BlockDictionary(e, buffer_in, num_values, depth);
  const BufferPtr buffer = buffer_in ? buffer_in : internal::EmptyBuffer();
  switch (e.compression_case()) {
    case CE::kInlineBitpacking: {
      if (e.inline_bitpacking().has_values()) {
        return Status::NotImplemented("the ", Describe(e),
                                      " block encoding (buffer compression)");
      }
      // Lance writes one chunk (it uses inline bit-packing for at most 1024 values);
      // consecutive chunks are read as well.
      return DecodeInline(e.inline_bitpacking().uncompressed_bits_per_value(), buffer,
                          num_values, false);
    }
    case CE::kFlat: {
      const uint64_t bits = e.flat().bits_per_value();
      if (bits == 0) return Status::Corrupt("flat block of 0-bit values");
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
        if (expected < 0) return Status::Corrupt("general block value count overflows");
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
        return Status::Corrupt("RLE block of ", std::to_string(buffer->size()), " bytes");
      const uint64_t vs = LoadLE<uint64_t>(buffer->data());
      if (vs > static_cast<uint64_t>(buffer->size() - 8)) {
        return Status::Corrupt("RLE block values size ", vs, " passes its end");
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
    return Status::Corrupt("full-zip page claims ", num_values, " values");
  }
  const BufferPtr data = data_in ? data_in : internal::EmptyBuffer();
  switch (e.compression_case()) {
    case CE::kFlat: {
      const uint64_t bits = e.flat().bits_per_value();
      if (bits == 0 || e.flat().has_data()) {
        return Status::NotImplemented("the ", Describe(e), " fixed per-value encoding");
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
    return Status::Corrupt("variable per-value input has too few offsets");
  }
  std::vector<uint64_t> out(static_cast<size_t>(v.num_values) + 1);
  const uint8_t* p = v.offsets->data();
  for (int64_t i = 0; i <= v.num_values; ++i) {
    out[static_cast<size_t>(i)] =
        w == 4 ? LoadLE<uint32_t>(p + 4 * i) : LoadLE<uint64_t>(p + 8 * i);
    if ((i > 0 && out[static_cast<size_t>(i)] < out[static_cast<size_t>(i) - 1]) ||
        out[static_cast<size_t>(i)] > static_cast<uint64_t>(v.data->size())) {
      return Status::Corrupt(
          "variable per-value offsets decrease or pass the end of the values");
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
    return Status::Corrupt("dictionary indices are not 8/16/32/64-bit integers");
  }
  const int64_t n = indices.num_values;
  const int iw = static_cast<int>(indices.bits_per_value / 8);
  const uint8_t* ip = indices.data->data();
  auto index = [&](int64_t i) -> uint64_t { return LoadUIntLE(ip + iw * i, iw); };
  const uint64_t size = static_cast<uint64_t>(dictionary.num_values);
  for (int64_t i = 0; i < n; ++i) {
    if (index(i) >= size) {
      return Status::Corrupt("dictionary index ", index(i), " is past the ", size,
                             " dictionary values");
    }
  }
  if (dictionary.kind == DataBlock::Kind::kFixed && dictionary.bits_per_value % 8 == 0 &&
      dictionary.bits_per_value > 0) {
    const int64_t w = static_cast<int64_t>(dictionary.bits_per_value / 8);
    if (!dictionary.data || dictionary.data->size() < dictionary.num_values * w) {
      return Status::Corrupt("dictionary values are truncated");
    }
    int64_t total;
    if (!internal::CheckedMul(n, w, &total))
      return Status::Corrupt("dictionary output overflows");
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
      if (total > limit) return Status::Corrupt("dictionary output exceeds ", limit);
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr data, internal::AllocateOut(total));
    LANCE_ASSIGN_OR_RAISE(BufferPtr out_offsets, internal::AllocateOut((n + 1) * w));
    const uint8_t* src = dictionary.data->data();
    uint8_t* dst = data->mutable_data();
    uint8_t* oo = out_offsets->mutable_data();
    int64_t pos = 0;
    for (int64_t i = 0; i <= n; ++i) {
      if (w == 4) {
        StoreLE<uint32_t>(oo + 4 * i, static_cast<uint32_t>(pos));
      } else {
        StoreLE<uint64_t>(oo + 8 * i, static_cast<uint64_t>(pos));
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
      return Status::Corrupt("general per-value data declares more than ", limit,
                             " bytes");
    }
    total += size;
  }
  BufferBuilder data;
  if (known) LANCE_RETURN_NOT_OK(data.Reserve(total));
  LANCE_ASSIGN_OR_RAISE(BufferPtr out_offsets, internal::AllocateOut((n + 1) * w));
  uint8_t* oo = out_offsets->mutable_data();
  auto store = [&](int64_t i, int64_t v) {
    if (w == 4) {
      StoreLE<uint32_t>(oo + 4 * i, static_cast<uint32_t>(v));
    } else {
      StoreLE<uint64_t>(oo + 8 * i, static_cast<uint64_t>(v));
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

// One field of a variable_packed_struct, with the bytes (and, for a variable field, the
// offsets) unpacked from the rows so far.
struct PackedField {
  const CE* encoding;
  bool fixed;
  int64_t bytes;  // fixed width, or the length prefix width
  BufferBuilder data;
  std::vector<uint64_t> offsets;
};

Result<std::vector<PackedField>> PackedFields(const CE& e) {
  std::vector<PackedField> fields;
  for (const auto& f : e.variable_packed_struct().fields()) {
    if (!f.has_value()) return Missing(e, "field encoding");
    PackedField field{&f.value(), f.has_bits_per_value(), 0, {}, {}};
    if (f.has_bits_per_value()) {
      if (f.bits_per_value() % 8 != 0 || f.bits_per_value() > (1u << 20)) {
        return Status::Corrupt("variable_packed_struct field of ", f.bits_per_value(),
                               " bits");
      }
      field.bytes = static_cast<int64_t>(f.bits_per_value() / 8);
    } else if (f.has_bits_per_length()) {
      if (f.bits_per_length() != 32 && f.bits_per_length() != 64) {
        return Status::Corrupt("variable_packed_struct field with a ",
                               f.bits_per_length(), "-bit length");
      }
      field.bytes = static_cast<int64_t>(f.bits_per_length() / 8);
      field.offsets.push_back(0);
    } else {
      return Missing(e, "field layout");
    }
    fields.push_back(std::move(field));
  }
  if (fields.empty()) return Status::Corrupt("variable_packed_struct without fields");
  return fields;
}

// Appends row `r`, bytes [cur, end) of `src`, to the fields.
Status UnpackPackedRow(const uint8_t* src, uint64_t cur, uint64_t end, int64_t r,
                       std::vector<PackedField>* fields) {
  static const uint8_t kZeros[64] = {};
  const bool empty = cur == end;
  for (PackedField& f : *fields) {
    if (f.fixed) {
      if (empty) {
        for (int64_t left = f.bytes; left > 0; left -= 64) {
          LANCE_RETURN_NOT_OK(f.data.Append(kZeros, std::min<int64_t>(left, 64)));
        }
        continue;
      }
      if (end - cur < static_cast<uint64_t>(f.bytes)) {
        return Status::Corrupt("variable_packed_struct row ", r,
                               " is shorter than its fixed field");
      }
      LANCE_RETURN_NOT_OK(f.data.Append(src + cur, f.bytes));
      cur += static_cast<uint64_t>(f.bytes);
    } else {
      if (!empty) {
        if (end - cur < static_cast<uint64_t>(f.bytes)) {
          return Status::Corrupt("variable_packed_struct row ", r,
                                 " is shorter than a length prefix");
        }
        const uint64_t len =
            f.bytes == 4 ? LoadLE<uint32_t>(src + cur) : LoadLE<uint64_t>(src + cur);
        cur += static_cast<uint64_t>(f.bytes);
        if (len > end - cur) {
          return Status::Corrupt("variable_packed_struct row ", r,
                                 " has a field longer than the row");
        }
        LANCE_RETURN_NOT_OK(f.data.Append(src + cur, static_cast<int64_t>(len)));
        cur += len;
      }
      f.offsets.push_back(static_cast<uint64_t>(f.data.length()));
    }
  }
  if (!empty && cur != end) {
    return Status::Corrupt("variable_packed_struct row ", r,
                           " has bytes after its last field");
  }
  return Status::OK();
}

// Decodes the `n` unpacked values of one field.
Result<DataBlock> DecodePackedField(PackedField& f, int64_t n, int depth) {
  BufferPtr bytes;
  if (f.data.length() == 0) {
    bytes = internal::EmptyBuffer();
  } else {
    LANCE_ASSIGN_OR_RAISE(bytes, f.data.Finish());
  }
  if (f.fixed) return DecodeFixedPerValue(*f.encoding, bytes, n);
  const int64_t w = f.bytes;
  LANCE_ASSIGN_OR_RAISE(BufferPtr offs, internal::AllocateOut((n + 1) * w));
  for (int64_t i = 0; i <= n; ++i) {
    if (w == 4) {
      if (f.offsets[static_cast<size_t>(i)] > 0xFFFFFFFFull) {
        return Status::Corrupt("variable_packed_struct field exceeds 32-bit offsets");
      }
      StoreLE<uint32_t>(offs->mutable_data() + 4 * i,
                        static_cast<uint32_t>(f.offsets[static_cast<size_t>(i)]));
    } else {
      StoreLE<uint64_t>(offs->mutable_data() + 8 * i, f.offsets[static_cast<size_t>(i)]);
    }
  }
  return VariablePerValue(
      *f.encoding,
      DataBlock::Variable(static_cast<int>(w * 8), n, std::move(offs), std::move(bytes)),
      depth + 1);
}

// Lance's PackedStructVariablePerValueDecompressor: every row is the fields back to back,
// a fixed field as its bits_per_value / 8 bytes, a variable field as a length prefix of
// bits_per_length bits (32 or 64) and the bytes. An empty row (a null struct) gives every
// field an empty placeholder: zero bytes for fixed fields, an empty value otherwise.
Result<DataBlock> VariablePackedPerValue(const CE& e, const DataBlock& values,
                                         int depth) {
  LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> rows, ReadOffsets(values));
  const int64_t n = values.num_values;
  LANCE_ASSIGN_OR_RAISE(std::vector<PackedField> fields, PackedFields(e));
  const uint8_t* src = values.data->data();
  for (int64_t r = 0; r < n; ++r) {
    LANCE_RETURN_NOT_OK(UnpackPackedRow(src, rows[static_cast<size_t>(r)],
                                        rows[static_cast<size_t>(r) + 1], r, &fields));
  }
  DataBlock out;
  out.kind = DataBlock::Kind::kStruct;
  out.num_values = n;
  for (PackedField& f : fields) {
    LANCE_ASSIGN_OR_RAISE(DataBlock child, DecodePackedField(f, n, depth));
    out.children.push_back(std::move(child));
  }
  return out;
}

Result<DataBlock> VariablePerValue(const CE& e, const DataBlock& values, int depth) {
  if (depth > 8) return Status::Corrupt("compressive encodings nest too deeply");
  switch (e.compression_case()) {
    case CE::kVariable: {
      const auto& v = e.variable();
      if (!v.has_offsets() || !v.offsets().has_flat() ||
          v.offsets().flat().bits_per_value() >= 255) {
        return Status::NotImplemented("the ", Describe(e),
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

// SPDX-License-Identifier: Apache-2.0
// The plain compression strategy: flat fixed-width values, Lance's variable-width
// mini-block chunks, flat 16-bit levels, per-value flat / variable full-zip values.
// Always valid 2.1 / 2.2; the size-optimizing choices of Lance live in the full
// strategy, which falls back to these.

#include <algorithm>
#include <cstring>
#include <limits>

#include "format/structural/compression.h"
#include "lance/core/array_data.h"
#include "lance/macros.h"

namespace lance::format::structural {

namespace {

using codecs::DataBlock;

/// Lance's budget of compressed value bytes per mini-block chunk (8 KiB less the
/// largest chunk header) and its default cap on values per chunk.
constexpr int64_t kMaxChunkBytes = 8 * 1024 - 6;
constexpr int64_t kMaxChunkValues = 4096;
/// Lance's aim for variable-width chunks.
constexpr int64_t kAimVariableChunkBytes = 4 * 1024;
constexpr uint8_t kPadByte = 0x48;

/// A fixed-size-list value shape taken apart: its layers (outermost first), each with its
/// dimension, its item count per value and its item validity (null when it has no nulls),
/// down to the fixed-width items. A plain fixed-width block is a shape without layers.
struct FslShape {
  struct Layer {
    uint64_t dimension = 0;
    uint64_t cum_dim = 0;  // items of this layer per top-level value
    BufferPtr validity;
  };
  std::vector<Layer> layers;
  const DataBlock* items = nullptr;
  uint64_t cum_dim = 1;
  int validity_layers = 0;
};

Result<FslShape> ShapeOf(const DataBlock& block) {
  FslShape shape;
  const DataBlock* b = &block;
  while (b->kind == DataBlock::Kind::kFixedSizeList) {
    if (b->children.size() != 1)
      return Status::Invalid("internal: fixed_size_list block");
    shape.cum_dim *= b->dimension;
    shape.layers.push_back({b->dimension, shape.cum_dim, b->validity});
    if (b->validity) ++shape.validity_layers;
    b = &b->children[0];
  }
  if (b->kind != DataBlock::Kind::kFixed) {
    return Status::NotImplemented("flat storage of this value shape");
  }
  shape.items = b;
  return shape;
}

/// Bits one value takes when stored flat (fixed-width, or fixed-size lists of them
/// without item nulls).
Result<uint64_t> FlatBits(const DataBlock& block) {
  LANCE_ASSIGN_OR_RAISE(FslShape shape, ShapeOf(block));
  if (shape.validity_layers > 0)
    return Status::NotImplemented("flat storage of item nulls");
  return shape.items->bits_per_value * shape.cum_dim;
}

/// The encoding of values of `block`'s shape: flat, or fixed_size_list layers around it,
/// each saying whether it carries item validity.
pb21::CompressiveEncoding FlatEncodingOf(const DataBlock& block) {
  if (block.kind != DataBlock::Kind::kFixedSizeList) return Flat(block.bits_per_value);
  pb21::CompressiveEncoding e;
  auto* fsl = e.mutable_fixed_size_list();
  fsl->set_items_per_value(block.dimension);
  if (block.validity) fsl->set_has_validity(true);
  *fsl->mutable_values() = FlatEncodingOf(block.children[0]);
  return e;
}

const BufferPtr& FlatData(const DataBlock& block) {
  return block.kind == DataBlock::Kind::kFixedSizeList ? FlatData(block.children[0])
                                                       : block.data;
}

Result<MiniBlockValues> FlatMiniBlock(const DataBlock& values) {
  LANCE_ASSIGN_OR_RAISE(uint64_t bits, FlatBits(values));
  MiniBlockValues out;
  out.encoding = FlatEncodingOf(values);
  // The largest power of two of values (at least 2 -- a 1-value chunk would look like
  // the last one) whose bytes fit the chunk budget.
  int64_t per_chunk = kMaxChunkValues;
  while (per_chunk > 2 &&
         static_cast<int64_t>((per_chunk * bits + 7) / 8) > kMaxChunkBytes) {
    per_chunk /= 2;
  }
  if (bits == 1 && per_chunk < 8) per_chunk = 8;  // whole bytes per chunk
  const BufferPtr& data = FlatData(values);
  for (int64_t start = 0; start < values.num_values; start += per_chunk) {
    const int64_t n = std::min(per_chunk, values.num_values - start);
    const int64_t begin = static_cast<int64_t>(start * bits / 8);
    const int64_t bytes = static_cast<int64_t>((n * bits + 7) / 8);
    out.chunks.push_back({{Buffer::Slice(data, begin, bytes)}, n});
  }
  return out;
}

/// Fixed-size lists (nested to any depth) whose items have nulls at some layer: per
/// chunk a bitmap of the chunk's items for each layer with validity (outermost first),
/// then the item values (Lance's mini-block FSL with validity). Rows per chunk: a power
/// of two (of 8-row words when a row is not whole bytes) within the budget.
Result<MiniBlockValues> FslWithValidityMiniBlock(const DataBlock& values) {
  LANCE_ASSIGN_OR_RAISE(FslShape shape, ShapeOf(values));
  const uint64_t item_bits = shape.items->bits_per_value;
  const uint64_t row_bits = item_bits * shape.cum_dim;
  int64_t validity_bytes_per_row = 0;
  for (const auto& layer : shape.layers) {
    if (layer.validity)
      validity_bytes_per_row += static_cast<int64_t>((layer.cum_dim + 7) / 8);
  }
  const int64_t per_word = row_bits % 8 == 0 ? 1 : 8;
  const int64_t word_bytes =
      validity_bytes_per_row * per_word +
      static_cast<int64_t>(row_bits % 8 == 0 ? row_bits / 8 : row_bits);
  int64_t rows = per_word == 1 ? 2 : 8;
  int64_t size = 2 * word_bytes;
  if (size >= kMaxChunkBytes)
    return Status::NotImplemented("values too wide for a chunk");
  while (2 * size < kMaxChunkBytes && 2 * rows <= kMaxChunkValues) {
    size *= 2;
    rows *= 2;
  }
  MiniBlockValues out;
  out.encoding = FlatEncodingOf(values);
  for (int64_t start = 0; start < values.num_values; start += rows) {
    const int64_t n = std::min(rows, values.num_values - start);
    std::vector<BufferPtr> buffers;
    for (const auto& layer : shape.layers) {
      if (!layer.validity) continue;
      const int64_t per = static_cast<int64_t>(layer.cum_dim);
      LANCE_ASSIGN_OR_RAISE(BufferPtr validity,
                            Buffer::Allocate(bit_util::BytesForBits(n * per)));
      bit_util::CopyBits(layer.validity->data(), start * per, n * per,
                         validity->mutable_data(), 0);
      buffers.push_back(std::move(validity));
    }
    const uint64_t first_bit = static_cast<uint64_t>(start) * row_bits;
    const int64_t begin = static_cast<int64_t>(first_bit / 8);
    const int64_t bytes =
        static_cast<int64_t>((static_cast<uint64_t>(n) * row_bits + 7) / 8);
    buffers.push_back(Buffer::Slice(shape.items->data, begin, bytes));
    out.chunks.push_back({std::move(buffers), n});
  }
  return out;
}

/// Full-zip values of fixed-size lists with item nulls: each value is its items'
/// validity bits for each layer with validity (whole bytes each), then its items.
Result<PerValueValues> FslWithValidityPerValue(const DataBlock& values) {
  LANCE_ASSIGN_OR_RAISE(FslShape shape, ShapeOf(values));
  const uint64_t item_bits = shape.items->bits_per_value;
  if (item_bits % 8 != 0) {
    return Status::NotImplemented("full-zip fixed_size_list with item nulls over ",
                                  item_bits, "-bit items");
  }
  int64_t vbytes = 0;
  for (const auto& layer : shape.layers) {
    if (layer.validity) vbytes += static_cast<int64_t>((layer.cum_dim + 7) / 8);
  }
  const int64_t dbytes = static_cast<int64_t>(shape.cum_dim * item_bits / 8);
  const int64_t n = values.num_values;
  LANCE_ASSIGN_OR_RAISE(BufferPtr zipped, Buffer::Allocate(n * (vbytes + dbytes)));
  uint8_t* p = zipped->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    for (const auto& layer : shape.layers) {
      if (!layer.validity) continue;
      const int64_t per = static_cast<int64_t>(layer.cum_dim);
      bit_util::CopyBits(layer.validity->data(), i * per, per, p, 0);
      p += (per + 7) / 8;
    }
    std::memcpy(p, shape.items->data->data() + i * dbytes, static_cast<size_t>(dbytes));
    p += dbytes;
  }
  PerValueValues out;
  out.values = DataBlock::Fixed(static_cast<uint64_t>((vbytes + dbytes) * 8), n,
                                std::move(zipped));
  out.encoding = FlatEncodingOf(values);
  return out;
}

/// Whether any layer of a fixed-size-list block carries item validity.
bool HasItemValidity(const DataBlock& block) {
  for (const DataBlock* b = &block; b->kind == DataBlock::Kind::kFixedSizeList;
       b = &b->children[0]) {
    if (b->validity) return true;
    if (b->children.empty()) break;
  }
  return false;
}

template <typename Offset>
Result<MiniBlockValues> VariableMiniBlock(const DataBlock& values) {
  const auto* offsets = values.offsets->data_as<Offset>();
  const uint8_t* data = values.data->data();
  const int64_t n = values.num_values;
  const int64_t width = sizeof(Offset);
  MiniBlockValues out;
  *out.encoding.mutable_variable()->mutable_offsets() = Flat(width * 8);
  int64_t start = 0;
  while (start < n) {
    // Values in this chunk: double from 2 while the chunk stays within the aim (the
    // rest of the page if it fits), as Lance chunks variable-width data.
    int64_t count;
    const int64_t remaining = n - start;
    auto size_of = [&](int64_t k) {
      return static_cast<int64_t>(offsets[start + k] - offsets[start]) + (k + 1) * width;
    };
    if (remaining <= 1) {
      count = remaining;
    } else {
      int64_t take = 2;
      while (true) {
        const int64_t next = take * 2;
        if (next >= remaining) {
          take = size_of(remaining) <= kAimVariableChunkBytes ? remaining : take;
          break;
        }
        if (size_of(next) > kAimVariableChunkBytes || next > kMaxChunkValues) break;
        take = next;
      }
      count = take;
    }
    // [count + 1 offsets relative to the chunk start][bytes][pad to the offset width]
    const int64_t head = (count + 1) * width;
    const int64_t bytes = static_cast<int64_t>(offsets[start + count] - offsets[start]);
    const int64_t padded = (head + bytes + width - 1) / width * width;
    LANCE_ASSIGN_OR_RAISE(BufferPtr chunk, Buffer::AllocateForOverwrite(padded));
    uint8_t* p = chunk->mutable_data();
    for (int64_t i = 0; i <= count; ++i) {
      const Offset v = static_cast<Offset>(offsets[start + i] - offsets[start] + head);
      std::memcpy(p + i * width, &v, width);
    }
    std::memcpy(p + head, data + offsets[start], static_cast<size_t>(bytes));
    std::memset(p + head + bytes, kPadByte, static_cast<size_t>(padded - head - bytes));
    out.chunks.push_back({{std::move(chunk)}, count});
    start += count;
  }
  return out;
}

/// A packed struct of fixed-width children as one flat value per row, the children back
/// to back (Lance's PackedStruct mini-block: row-major, `bits_per_value` per child).
Result<MiniBlockValues> PackedStructMiniBlock(const DataBlock& values) {
  uint64_t row_bits = 0;
  std::vector<int64_t> widths;
  for (const DataBlock& child : values.children) {
    if (child.kind != DataBlock::Kind::kFixed || child.bits_per_value == 0 ||
        child.bits_per_value % 8 != 0) {
      return Status::NotImplemented(
          "a packed struct mini-block holds fixed-width children of whole bytes only");
    }
    widths.push_back(static_cast<int64_t>(child.bits_per_value / 8));
    row_bits += child.bits_per_value;
  }
  if (widths.empty()) return Status::NotImplemented("a packed struct without children");
  const int64_t n = values.num_values;
  const int64_t row_bytes = static_cast<int64_t>(row_bits / 8);
  LANCE_ASSIGN_OR_RAISE(BufferPtr rows, Buffer::AllocateForOverwrite(n * row_bytes));
  int64_t at = 0;
  for (size_t c = 0; c < widths.size(); ++c) {
    const uint8_t* src = values.children[c].data->data();
    uint8_t* dst = rows->mutable_data() + at;
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(dst + i * row_bytes, src + i * widths[c],
                  static_cast<size_t>(widths[c]));
    }
    at += widths[c];
  }
  LANCE_ASSIGN_OR_RAISE(MiniBlockValues out,
                        FlatMiniBlock(DataBlock::Fixed(row_bits, n, std::move(rows))));
  pb21::CompressiveEncoding encoding;
  auto* packed = encoding.mutable_packed_struct();
  for (int64_t w : widths) packed->add_bits_per_value(static_cast<uint64_t>(w * 8));
  *packed->mutable_values() = Flat(row_bits);
  out.encoding = std::move(encoding);
  return out;
}

class BasicStrategy : public CompressionStrategy {
 public:
  Result<MiniBlockValues> MiniBlock(const DataBlock& values,
                                    const Field& field) override {
    if (values.kind == DataBlock::Kind::kVariable) {
      return values.offset_bits == 64 ? VariableMiniBlock<uint64_t>(values)
                                      : VariableMiniBlock<uint32_t>(values);
    }
    if (HasItemValidity(values)) return FslWithValidityMiniBlock(values);
    if (values.kind == DataBlock::Kind::kStruct) return PackedStructMiniBlock(values);
    return FlatMiniBlock(values);
  }

  Result<std::unique_ptr<LevelCompressor>> Levels(const std::vector<uint16_t>&) override {
    return MakePlainLevels();
  }

  Result<CompressedBlock> DictionaryItems(const DataBlock& items, const Field&) override {
    return Status::NotImplemented("the plain strategy does not dictionary-encode");
  }

  Result<PerValueValues> FullZip(const DataBlock& values, const Field& field) override {
    if (values.kind == DataBlock::Kind::kStruct)
      return ZipPackedStruct(this, values, field);
    PerValueValues out;
    if (values.kind == DataBlock::Kind::kVariable) {
      out.values = values;
      *out.encoding.mutable_variable()->mutable_offsets() = Flat(values.offset_bits);
      return out;
    }
    if (HasItemValidity(values)) return FslWithValidityPerValue(values);
    LANCE_ASSIGN_OR_RAISE(uint64_t bits, FlatBits(values));
    if (bits % 8 != 0)
      return Status::NotImplemented("full-zip values of ", bits, " bits");
    out.values = DataBlock::Fixed(bits, values.num_values, FlatData(values));
    out.encoding = FlatEncodingOf(values);
    return out;
  }

  Result<std::optional<DictionaryEncoded>> TryDictionary(const DataBlock&,
                                                         const Field&) override {
    return std::optional<DictionaryEncoded>();
  }
};

}  // namespace

pb21::CompressiveEncoding Flat(uint64_t bits) {
  pb21::CompressiveEncoding e;
  e.mutable_flat()->set_bits_per_value(bits);
  return e;
}

namespace {

class PlainLevels : public LevelCompressor {
 public:
  PlainLevels() : encoding_(Flat(16)) {}
  Result<BufferPtr> Compress(const uint16_t* levels, int64_t count) override {
    return Buffer::CopyFrom(levels, count * 2);
  }
  const pb21::CompressiveEncoding& encoding() const override { return encoding_; }

 private:
  pb21::CompressiveEncoding encoding_;
};

}  // namespace

std::unique_ptr<LevelCompressor> MakePlainLevels() {
  return std::make_unique<PlainLevels>();
}

Result<PerValueValues> ZipPackedStruct(CompressionStrategy* strategy,
                                       const DataBlock& values, const Field& field) {
  const DataType& type = *field.type();
  if (type.id() != TypeId::kStruct ||
      values.children.size() != static_cast<size_t>(type.num_fields()) ||
      values.children.empty()) {
    return Status::Invalid("internal: packed struct values do not match field '",
                           field.name(), "'");
  }
  const int64_t n = values.num_values;
  // Each child compressed per value on its own: fixed-width children (and fixed-size
  // lists of them) flat, variable-width ones as the strategy compresses full-zip values.
  struct Child {
    bool fixed = false;
    int64_t width = 0;  // fixed: bytes per value; variable: bytes of the length prefix
    DataBlock values;
  };
  std::vector<Child> children;
  pb21::CompressiveEncoding encoding;
  auto* vps = encoding.mutable_variable_packed_struct();
  for (int i = 0; i < type.num_fields(); ++i) {
    const DataBlock& block = values.children[static_cast<size_t>(i)];
    const Field& child_field = *type.fields()[i];
    auto* out = vps->add_fields();
    Child child;
    if (block.kind == DataBlock::Kind::kVariable) {
      LANCE_ASSIGN_OR_RAISE(PerValueValues compressed,
                            strategy->FullZip(block, child_field));
      if (compressed.values.kind != DataBlock::Kind::kVariable) {
        return Status::Invalid("internal: variable values compressed to fixed ones");
      }
      child.width = compressed.values.offset_bits / 8;
      child.values = std::move(compressed.values);
      *out->mutable_value() = std::move(compressed.encoding);
      out->set_bits_per_length(static_cast<uint64_t>(child.width * 8));
    } else {
      auto bits = FlatBits(block);
      if (!bits.ok() || *bits == 0 || *bits % 8 != 0) {
        return Status::NotImplemented(
            "packed struct field '" + field.name() + "': child '" + child_field.name() +
            "' of type " + child_field.type()->ToString() +
            " (Lance packs whole-byte fixed-width and variable-width "
            "children only)");
      }
      child.fixed = true;
      child.width = static_cast<int64_t>(*bits / 8);
      child.values = DataBlock::Fixed(*bits, n, FlatData(block));
      *out->mutable_value() = FlatEncodingOf(block);
      out->set_bits_per_value(*bits);
    }
    children.push_back(std::move(child));
  }
  // Every row: the children back to back, a variable child as its length then its bytes.
  std::vector<uint64_t> row_ends;
  row_ends.reserve(static_cast<size_t>(n) + 1);
  row_ends.push_back(0);
  BufferBuilder zipped;
  for (int64_t r = 0; r < n; ++r) {
    for (const Child& c : children) {
      if (c.fixed) {
        LANCE_RETURN_NOT_OK(zipped.Append(c.values.data->data() + r * c.width, c.width));
        continue;
      }
      uint64_t b, e;
      if (c.width == 8) {
        b = c.values.offsets->data_as<uint64_t>()[r];
        e = c.values.offsets->data_as<uint64_t>()[r + 1];
        const uint64_t len = e - b;
        LANCE_RETURN_NOT_OK(zipped.Append(&len, 8));
      } else {
        b = c.values.offsets->data_as<uint32_t>()[r];
        e = c.values.offsets->data_as<uint32_t>()[r + 1];
        const uint32_t len = static_cast<uint32_t>(e - b);
        LANCE_RETURN_NOT_OK(zipped.Append(&len, 4));
      }
      LANCE_RETURN_NOT_OK(
          zipped.Append(c.values.data->data() + b, static_cast<int64_t>(e - b)));
    }
    row_ends.push_back(static_cast<uint64_t>(zipped.length()));
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, zipped.Finish());
  if (!bytes) bytes = Buffer::FromString("");
  // Rows are addressed with 32-bit offsets, as Lance writes them, unless they outgrow it.
  const bool wide = row_ends.back() > std::numeric_limits<uint32_t>::max();
  BufferPtr offsets;
  if (wide) {
    LANCE_ASSIGN_OR_RAISE(offsets, Buffer::CopyFrom(row_ends.data(), (n + 1) * 8));
  } else {
    LANCE_ASSIGN_OR_RAISE(offsets, Buffer::AllocateForOverwrite((n + 1) * 4));
    for (int64_t i = 0; i <= n; ++i) {
      offsets->mutable_data_as<uint32_t>()[i] = static_cast<uint32_t>(row_ends[i]);
    }
  }
  PerValueValues out;
  out.values =
      DataBlock::Variable(wide ? 64 : 32, n, std::move(offsets), std::move(bytes));
  out.encoding = std::move(encoding);
  return out;
}

std::unique_ptr<CompressionStrategy> MakeBasicCompressionStrategy() {
  return std::make_unique<BasicStrategy>();
}

}  // namespace lance::format::structural

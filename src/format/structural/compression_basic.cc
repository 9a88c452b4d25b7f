// SPDX-License-Identifier: Apache-2.0
// The plain compression strategy: flat fixed-width values, Lance's variable-width
// mini-block chunks, flat 16-bit levels, per-value flat / variable full-zip values.
// Always valid 2.1 / 2.2; the size-optimizing choices of Lance live in the full
// strategy, which falls back to these.

#include <algorithm>
#include <cstring>

#include "lance/core/array_data.h"

#include "format/structural/compression.h"
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

pb21::CompressiveEncoding Flat(uint64_t bits) {
  pb21::CompressiveEncoding e;
  e.mutable_flat()->set_bits_per_value(bits);
  return e;
}

/// Bits one value takes when stored flat (fixed-width or fixed_size_list of them).
Result<uint64_t> FlatBits(const DataBlock& block) {
  if (block.kind == DataBlock::Kind::kFixed) return block.bits_per_value;
  if (block.kind == DataBlock::Kind::kFixedSizeList && !block.validity &&
      block.children.size() == 1 && block.children[0].kind == DataBlock::Kind::kFixed) {
    return block.children[0].bits_per_value * block.dimension;
  }
  return Status::NotImplemented("flat storage of this value shape");
}

pb21::CompressiveEncoding FlatEncodingOf(const DataBlock& block) {
  if (block.kind == DataBlock::Kind::kFixedSizeList) {
    pb21::CompressiveEncoding e;
    auto* fsl = e.mutable_fixed_size_list();
    fsl->set_items_per_value(block.dimension);
    *fsl->mutable_values() = Flat(block.children[0].bits_per_value);
    return e;
  }
  return Flat(block.bits_per_value);
}

const BufferPtr& FlatData(const DataBlock& block) {
  return block.kind == DataBlock::Kind::kFixedSizeList ? block.children[0].data : block.data;
}

Result<MiniBlockValues> FlatMiniBlock(const DataBlock& values) {
  LANCE_ASSIGN_OR_RAISE(uint64_t bits, FlatBits(values));
  MiniBlockValues out;
  out.encoding = FlatEncodingOf(values);
  // The largest power of two of values (at least 2 -- a 1-value chunk would look like
  // the last one) whose bytes fit the chunk budget.
  int64_t per_chunk = kMaxChunkValues;
  while (per_chunk > 2 && static_cast<int64_t>((per_chunk * bits + 7) / 8) > kMaxChunkBytes) {
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

/// fixed_size_list values whose items have nulls: per chunk a bitmap of the chunk's
/// items, then the item values (Lance's mini-block FSL with validity). Rows per chunk:
/// a power of two (of 8-row words when a row is not whole bytes) within the budget.
Result<MiniBlockValues> FslWithValidityMiniBlock(const DataBlock& values) {
  const DataBlock& items = values.children[0];
  if (items.kind != DataBlock::Kind::kFixed) {
    return Status::NotImplemented("fixed_size_list of non-fixed-width items");
  }
  const int64_t dim = static_cast<int64_t>(values.dimension);
  const uint64_t item_bits = items.bits_per_value;
  const uint64_t row_bits = item_bits * static_cast<uint64_t>(dim);
  const int64_t per_word = row_bits % 8 == 0 ? 1 : 8;
  const int64_t word_bytes = ((dim + 7) / 8) * per_word +
                             static_cast<int64_t>(row_bits % 8 == 0 ? row_bits / 8 : row_bits);
  int64_t rows = per_word == 1 ? 2 : 8;
  int64_t size = 2 * word_bytes;
  if (size >= kMaxChunkBytes) return Status::NotImplemented("values too wide for a chunk");
  while (2 * size < kMaxChunkBytes && 2 * rows <= kMaxChunkValues) {
    size *= 2;
    rows *= 2;
  }
  MiniBlockValues out;
  auto* fsl = out.encoding.mutable_fixed_size_list();
  fsl->set_items_per_value(values.dimension);
  fsl->set_has_validity(true);
  *fsl->mutable_values() = Flat(item_bits);
  for (int64_t start = 0; start < values.num_values; start += rows) {
    const int64_t n = std::min(rows, values.num_values - start);
    const int64_t bits = n * dim;
    LANCE_ASSIGN_OR_RAISE(BufferPtr validity, Buffer::Allocate(bit_util::BytesForBits(bits)));
    bit_util::CopyBits(values.validity->data(), start * dim, bits, validity->mutable_data(), 0);
    const int64_t begin = static_cast<int64_t>(static_cast<uint64_t>(start * dim) * item_bits / 8);
    const int64_t bytes = static_cast<int64_t>((static_cast<uint64_t>(bits) * item_bits + 7) / 8);
    out.chunks.push_back({{std::move(validity), Buffer::Slice(items.data, begin, bytes)}, n});
  }
  return out;
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

class FlatLevels : public LevelCompressor {
 public:
  FlatLevels() : encoding_(Flat(16)) {}
  Result<BufferPtr> Compress(const uint16_t* levels, int64_t count) override {
    return Buffer::CopyFrom(levels, count * 2);
  }
  const pb21::CompressiveEncoding& encoding() const override { return encoding_; }

 private:
  pb21::CompressiveEncoding encoding_;
};

class BasicStrategy : public CompressionStrategy {
 public:
  Result<MiniBlockValues> MiniBlock(const DataBlock& values, const Field& field) override {
    if (values.kind == DataBlock::Kind::kVariable) {
      return values.offset_bits == 64 ? VariableMiniBlock<uint64_t>(values)
                                      : VariableMiniBlock<uint32_t>(values);
    }
    if (values.kind == DataBlock::Kind::kFixedSizeList && values.validity) {
      return FslWithValidityMiniBlock(values);
    }
    return FlatMiniBlock(values);
  }

  Result<std::unique_ptr<LevelCompressor>> Levels(const std::vector<uint16_t>&) override {
    return std::unique_ptr<LevelCompressor>(new FlatLevels());
  }

  Result<CompressedBlock> DictionaryItems(const DataBlock& items, const Field&) override {
    return Status::NotImplemented("the plain strategy does not dictionary-encode");
  }

  Result<PerValueValues> FullZip(const DataBlock& values, const Field&) override {
    PerValueValues out;
    if (values.kind == DataBlock::Kind::kVariable) {
      out.values = values;
      *out.encoding.mutable_variable()->mutable_offsets() = Flat(values.offset_bits);
      return out;
    }
    if (values.kind == DataBlock::Kind::kFixedSizeList && values.validity &&
        values.children[0].kind == DataBlock::Kind::kFixed &&
        values.children[0].bits_per_value % 8 == 0) {
      // Each value: its items' validity bits (whole bytes), then the items.
      const int64_t dim = static_cast<int64_t>(values.dimension);
      const int64_t vbytes = (dim + 7) / 8;
      const int64_t dbytes = dim * static_cast<int64_t>(values.children[0].bits_per_value / 8);
      LANCE_ASSIGN_OR_RAISE(BufferPtr zipped,
                            Buffer::Allocate(values.num_values * (vbytes + dbytes)));
      uint8_t* p = zipped->mutable_data();
      for (int64_t i = 0; i < values.num_values; ++i) {
        bit_util::CopyBits(values.validity->data(), i * dim, dim, p, 0);
        std::memcpy(p + vbytes, values.children[0].data->data() + i * dbytes,
                    static_cast<size_t>(dbytes));
        p += vbytes + dbytes;
      }
      out.values = DataBlock::Fixed(static_cast<uint64_t>((vbytes + dbytes) * 8),
                                    values.num_values, std::move(zipped));
      auto* fsl = out.encoding.mutable_fixed_size_list();
      fsl->set_items_per_value(values.dimension);
      fsl->set_has_validity(true);
      *fsl->mutable_values() = Flat(values.children[0].bits_per_value);
      return out;
    }
    LANCE_ASSIGN_OR_RAISE(uint64_t bits, FlatBits(values));
    if (bits % 8 != 0) return Status::NotImplemented("full-zip values of " + std::to_string(bits) + " bits");
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

std::unique_ptr<CompressionStrategy> MakeBasicCompressionStrategy() {
  return std::make_unique<BasicStrategy>();
}

}  // namespace lance::format::structural

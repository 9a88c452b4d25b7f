// SPDX-License-Identifier: Apache-2.0
// Lance's compression choices for 2.1 / 2.2 pages (lance-encoding 14.0.2's
// compression.rs and the per-version strategies of lance-file), so that our files are
// about the size of pylance's:
//
//   mini-block, fixed width:  "none" -> flat; byte-stream-split (only with a general
//     compression hint and lance-encoding:bss=on); RLE with u8 run lengths when it beats
//     both raw and bit-packing; inline bit-packing (1024-value chunks) when it saves
//     space; flat. A general compression hint (lz4/zstd) wraps the result.
//   mini-block, variable:     FSST for strings (not binary) when a value has >= 5 bytes
//     and the page >= 32 KiB (or on "fsst"), else the plain chunks; lz4/zstd wrap.
//   levels (block, per chunk, chosen once per page):  2.2 also tries u8 RLE; bit-packing
//     (inline up to 1024 levels in the page, else out of line at the page's widest
//     width) unless a value needs the full 16 bits; 2.2 compresses pages of levels over
//     32 KiB with zstd; else flat.
//   dictionary items (block): 2.2 lz4 (Lance's default dictionary-values compression)
//     around the plain block; 2.1 the plain block.
//   full-zip: fixed values flat; variable values over 32 KiB (or with a general hint)
//     compressed one by one (zstd), else FSST / plain as for mini-block.
//   dictionary: 64/128-bit fixed values (2.2 only for 64) and strings / binaries of at
//     least 100 values whose sampled cardinality is low: at most half the values (and
//     100,000), dictionary + 32-bit indices at most 0.8x the plain size, items <= 8 MiB.
//
// Anything not covered (packed structs, unusual widths) falls back to the plain strategy.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "format/codecs/bitpack.h"
#include "format/codecs/byte_stream_split.h"
#include "format/codecs/codec_util.h"
#include "format/codecs/fsst.h"
#include "format/codecs/general.h"
#include "format/codecs/rle.h"
#include "format/codecs/variable.h"
#include "format/structural/compression.h"
#include "lance/core/array_data.h"
#include "lance/core/text.h"
#include "lance/macros.h"

namespace lance::format::structural {

std::unique_ptr<CompressionStrategy> MakeBasicCompressionStrategy();

namespace {

using codecs::DataBlock;

constexpr int64_t kMinBlockSizeForGeneral = 32 * 1024;
constexpr int64_t kPerValueGeneralMinLength = 32 * 1024;
constexpr int64_t kDictMinValues = 100;
constexpr int64_t kDictDivisor = 2;
constexpr int64_t kDictMaxCardinality = 100000;
constexpr double kDictSizeRatio = 0.8;
constexpr int64_t kDictMaxBytes = 8 << 20;

/// The `lance-encoding:*` hints of a field.
struct Params {
  std::optional<std::string> compression;
  std::optional<int> level;
  std::optional<double> rle_threshold;
  std::optional<std::string> bss;
  std::optional<int64_t> dict_divisor;
  std::optional<double> dict_size_ratio;
  std::optional<int64_t> dict_max_size;
  std::optional<std::string> dict_values_compression;

  static Params Of(const Field& field) {
    Params p;
    for (const auto& [key, value] : field.metadata()) {
      // Lance parses hints with Rust's strict str::parse: no spaces, no trailing text.
      const std::string& text =
          value;  // lambdas may not capture structured bindings (C++17)
      auto as_int = [&] { return ParseDecimalInteger<int64_t>(text); };
      auto as_double = [&] { return ParseDecimalDouble(text); };
      std::string lower = value;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (key == "lance-encoding:compression") p.compression = lower;
      if (key == "lance-encoding:compression-level") {
        if (auto v = as_int()) p.level = static_cast<int>(*v);
      }
      if (key == "lance-encoding:rle-threshold") p.rle_threshold = as_double();
      if (key == "lance-encoding:bss") p.bss = lower;
      if (key == "lance-encoding:dict-divisor") p.dict_divisor = as_int();
      if (key == "lance-encoding:dict-size-ratio") p.dict_size_ratio = as_double();
      if (key == "lance-encoding:dict-max-size") p.dict_max_size = as_int();
      if (key == "lance-encoding:dict-values-compression")
        p.dict_values_compression = lower;
    }
    return p;
  }

  /// The general scheme a hint asks for (lz4 / zstd), if any.
  std::optional<pb21::CompressionScheme> GeneralScheme() const {
    if (compression == "lz4") return pb21::COMPRESSION_ALGORITHM_LZ4;
    if (compression == "zstd") return pb21::COMPRESSION_ALGORITHM_ZSTD;
    return std::nullopt;
  }
};

pb21::CompressiveEncoding VariableEncoding(int offset_bits) {
  pb21::CompressiveEncoding e;
  *e.mutable_variable()->mutable_offsets() = Flat(static_cast<uint64_t>(offset_bits));
  return e;
}

pb21::CompressiveEncoding Wrap(pb21::CompressionScheme scheme, std::optional<int> level,
                               pb21::CompressiveEncoding inner) {
  pb21::CompressiveEncoding e;
  auto* g = e.mutable_general();
  g->mutable_compression()->set_scheme(scheme);
  if (level) g->mutable_compression()->set_level(*level);
  *g->mutable_values() = std::move(inner);
  return e;
}

// ---------------------------------------------------------------------------------------
// Statistics

/// Bit widths of each 1024-value chunk of unsigned T values.
template <typename T>
std::vector<int> ChunkWidths(const T* values, int64_t n) {
  std::vector<int> widths;
  for (int64_t start = 0; start < n; start += codecs::kFastLanesBlock) {
    const int64_t k = std::min<int64_t>(codecs::kFastLanesBlock, n - start);
    widths.push_back(codecs::BitWidth<T>(values + start, k));
  }
  return widths;
}

std::vector<int> ChunkWidthsOf(const DataBlock& block) {
  const uint8_t* p = block.data->data();
  switch (block.bits_per_value) {
    case 8:
      return ChunkWidths(p, block.num_values);
    case 16:
      return ChunkWidths(reinterpret_cast<const uint16_t*>(p), block.num_values);
    case 32:
      return ChunkWidths(reinterpret_cast<const uint32_t*>(p), block.num_values);
    default:
      return ChunkWidths(reinterpret_cast<const uint64_t*>(p), block.num_values);
  }
}

/// Lance's estimate of inline bit-packing: per 1024-value chunk one word for the width
/// and 1024 * W / T words; none if it does not beat the raw size.
std::optional<int64_t> InlineBitpackBytes(const DataBlock& block,
                                          const std::vector<int>& widths) {
  const int64_t bits = static_cast<int64_t>(block.bits_per_value);
  int64_t words = 0;
  for (int w : widths) words += 1 + 1024 * w / bits;
  const int64_t bytes = words * (bits / 8);
  if (bytes >= block.num_values * (bits / 8)) return std::nullopt;
  return bytes;
}

bool IsBitpackable(const DataBlock& block) {
  return block.kind == DataBlock::Kind::kFixed && block.num_values > 0 &&
         (block.bits_per_value == 8 || block.bits_per_value == 16 ||
          block.bits_per_value == 32 || block.bits_per_value == 64) &&
         block.data != nullptr;
}

/// Copies the values into an aligned buffer when the block's data is not aligned for T.
BufferPtr Aligned(const BufferPtr& data, int64_t bytes) {
  if (reinterpret_cast<uintptr_t>(data->data()) % 8 == 0) return data;
  auto copy = Buffer::CopyFrom(data->data(), bytes);
  return copy.ok() ? *copy : data;
}

// ---------------------------------------------------------------------------------------
// Level compressors

// The level compressors hold the encoding they write; `out`'s bytes are the compressed
// levels (an empty buffer rather than none when there are none).
class LevelsWithEncoding : public LevelCompressor {
 public:
  explicit LevelsWithEncoding(pb21::CompressiveEncoding encoding = {})
      : encoding_(std::move(encoding)) {}
  const pb21::CompressiveEncoding& encoding() const final { return encoding_; }

 protected:
  static Result<BufferPtr> Finish(BufferBuilder* out) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr b, out->Finish());
    return b ? b : Buffer::FromString("");
  }

  pb21::CompressiveEncoding encoding_;
};

class InlineBitpackedLevels : public LevelsWithEncoding {
 public:
  InlineBitpackedLevels() {
    encoding_.mutable_inline_bitpacking()->set_uncompressed_bits_per_value(16);
  }
  Result<BufferPtr> Compress(const uint16_t* levels, int64_t count) override {
    BufferBuilder out;
    for (int64_t start = 0; start < count; start += codecs::kFastLanesBlock) {
      const int64_t k = std::min<int64_t>(codecs::kFastLanesBlock, count - start);
      LANCE_RETURN_NOT_OK(
          codecs::AppendInlineBitpacked<uint16_t>(levels + start, k, &out));
    }
    return Finish(&out);
  }
};

class OutOfLineBitpackedLevels : public LevelsWithEncoding {
 public:
  explicit OutOfLineBitpackedLevels(int width) : width_(width) {
    auto* o = encoding_.mutable_out_of_line_bitpacking();
    o->set_uncompressed_bits_per_value(16);
    *o->mutable_values() = Flat(static_cast<uint64_t>(width));
  }
  Result<BufferPtr> Compress(const uint16_t* levels, int64_t count) override {
    BufferBuilder out;
    LANCE_RETURN_NOT_OK(
        codecs::AppendOutOfLineBitpacked<uint16_t>(levels, count, width_, &out));
    return Finish(&out);
  }

 private:
  int width_;
};

class RleLevels : public LevelsWithEncoding {
 public:
  RleLevels() {
    auto* r = encoding_.mutable_rle();
    *r->mutable_values() = Flat(16);
    *r->mutable_run_lengths() = Flat(8);
  }
  Result<BufferPtr> Compress(const uint16_t* levels, int64_t count) override {
    return codecs::RleEncodeBlock(2, reinterpret_cast<const uint8_t*>(levels), count, 1);
  }
};

class GeneralLevels : public LevelsWithEncoding {
 public:
  GeneralLevels()
      : LevelsWithEncoding(Wrap(pb21::COMPRESSION_ALGORITHM_ZSTD, 0, Flat(16))) {}
  Result<BufferPtr> Compress(const uint16_t* levels, int64_t count) override {
    BufferBuilder out;
    LANCE_RETURN_NOT_OK(codecs::GeneralCompress(pb21::COMPRESSION_ALGORITHM_ZSTD, 0,
                                                reinterpret_cast<const uint8_t*>(levels),
                                                count * 2, &out));
    return Finish(&out);
  }
};

// ---------------------------------------------------------------------------------------
// The strategy

class LanceStrategy : public CompressionStrategy {
 public:
  explicit LanceStrategy(bool v22) : v22_(v22), plain_(MakeBasicCompressionStrategy()) {}

  Result<MiniBlockValues> MiniBlock(const DataBlock& values,
                                    const Field& field) override {
    const Params params = Params::Of(field);
    if (values.kind == DataBlock::Kind::kFixed) {
      LANCE_ASSIGN_OR_RAISE(MiniBlockValues out, FixedMiniBlock(values, params, field));
      if (auto scheme = params.GeneralScheme()) {
        return WrapGeneral(std::move(out), *scheme, params.level);
      }
      return out;
    }
    if (values.kind == DataBlock::Kind::kVariable) {
      LANCE_ASSIGN_OR_RAISE(MiniBlockValues out,
                            VariableMiniBlock(values, params, field));
      if (auto scheme = params.GeneralScheme()) {
        return WrapGeneral(std::move(out), *scheme, params.level);
      }
      return out;
    }
    return plain_->MiniBlock(values, field);
  }

  Result<std::unique_ptr<LevelCompressor>> Levels(
      const std::vector<uint16_t>& levels) override {
    const int64_t n = static_cast<int64_t>(levels.size());
    const int64_t raw = 2 * n;
    if (n == 0) return MakePlainLevels();
    const std::vector<int> widths = ChunkWidths(levels.data(), n);
    const int max_width = *std::max_element(widths.begin(), widths.end());
    // Lance's block bit-packing estimate (inline for one chunk, out of line beyond).
    std::optional<int64_t> bitpack;
    if (max_width < 16) {
      const int64_t words =
          n <= 1024 ? 1 + 1024 * max_width / 16 : OutOfLineWords(n, max_width, 16);
      if (words * 2 < raw) bitpack = words * 2;
    }
    if (v22_) {
      const int64_t rle = codecs::RleEncodedSize(
                              2, reinterpret_cast<const uint8_t*>(levels.data()), n, 1) +
                          8;
      if (rle < raw && (!bitpack || *bitpack >= rle)) {
        return std::unique_ptr<LevelCompressor>(new RleLevels());
      }
    }
    if (bitpack) {
      const bool too_small = widths.size() == 1 && (max_width * 1024 / 8 + 2) >= raw;
      if (!too_small) {
        if (n <= 1024)
          return std::unique_ptr<LevelCompressor>(new InlineBitpackedLevels());
        return std::unique_ptr<LevelCompressor>(new OutOfLineBitpackedLevels(max_width));
      }
    }
    if (v22_ && raw > kMinBlockSizeForGeneral) {
      return std::unique_ptr<LevelCompressor>(new GeneralLevels());
    }
    return MakePlainLevels();
  }

  Result<CompressedBlock> DictionaryItems(const DataBlock& items,
                                          const Field& field) override {
    const Params params = Params::Of(field);
    CompressedBlock out;
    BufferPtr plain;
    if (items.kind == DataBlock::Kind::kVariable) {
      if (items.offset_bits == 64) {
        LANCE_ASSIGN_OR_RAISE(plain, codecs::WriteVariableBlock<uint64_t>(
                                         items.offsets->data_as<uint64_t>(),
                                         items.data->data(), items.num_values));
      } else {
        LANCE_ASSIGN_OR_RAISE(plain, codecs::WriteVariableBlock<uint32_t>(
                                         items.offsets->data_as<uint32_t>(),
                                         items.data->data(), items.num_values));
      }
      out.encoding = VariableEncoding(items.offset_bits);
    } else if (items.kind == DataBlock::Kind::kFixed) {
      plain = items.data;
      out.encoding = Flat(items.bits_per_value);
    } else {
      return Status::NotImplemented("dictionary of this value shape");
    }
    // 2.2: Lance's default dictionary-values compression is lz4 (a block compressor
    // with an explicit scheme); 2.1 has no general block compression.
    const std::string scheme = params.dict_values_compression.value_or("lz4");
    if (v22_ && (scheme == "lz4" || scheme == "zstd")) {
      const auto s = scheme == "lz4" ? pb21::COMPRESSION_ALGORITHM_LZ4
                                     : pb21::COMPRESSION_ALGORITHM_ZSTD;
      BufferBuilder b;
      LANCE_RETURN_NOT_OK(
          codecs::GeneralCompress(s, std::nullopt, plain->data(), plain->size(), &b));
      LANCE_ASSIGN_OR_RAISE(out.data, b.Finish());
      out.encoding = Wrap(s, std::nullopt, std::move(out.encoding));
      return out;
    }
    out.data = plain;
    return out;
  }

  Result<PerValueValues> FullZip(const DataBlock& values, const Field& field) override {
    if (values.kind == DataBlock::Kind::kStruct)
      return ZipPackedStruct(this, values, field);
    if (values.kind != DataBlock::Kind::kVariable) return plain_->FullZip(values, field);
    const Params params = Params::Of(field);
    if (params.compression == "none") return plain_->FullZip(values, field);
    const int64_t data_size = VariableBytes(values);
    const int64_t max_len = values.MaxValueLength();
    const bool general_requested = params.compression && *params.compression != "fsst";
    if ((max_len > kPerValueGeneralMinLength || general_requested) &&
        data_size >= codecs::kFsstMinInputBytes) {
      const auto scheme = params.compression == "lz4" ? pb21::COMPRESSION_ALGORITHM_LZ4
                                                      : pb21::COMPRESSION_ALGORITHM_ZSTD;
      const std::optional<int> level =
          params.compression == "zstd"
              ? params.level
              : (scheme == pb21::COMPRESSION_ALGORITHM_ZSTD ? std::optional<int>(0)
                                                            : std::nullopt);
      return PerValueGeneral(values, scheme, level);
    }
    if (UseFsst(values, params, field)) return PerValueFsst(values);
    return plain_->FullZip(values, field);
  }

  Result<std::optional<DictionaryEncoded>> TryDictionary(const DataBlock& values,
                                                         const Field& field) override {
    const Params params = Params::Of(field);
    if (values.num_values < kDictMinValues) return std::optional<DictionaryEncoded>();
    if (values.kind == DataBlock::Kind::kFixed) {
      const uint64_t bits = values.bits_per_value;
      // 2.1 (16-bit chunk sizes) leaves 64-bit values alone, as Lance.
      if (!(bits == 128 || (bits == 64 && v22_)))
        return std::optional<DictionaryEncoded>();
    } else if (values.kind != DataBlock::Kind::kVariable) {
      return std::optional<DictionaryEncoded>();
    }
    const int64_t n = values.num_values;
    const int64_t divisor =
        std::max<int64_t>(1, params.dict_divisor.value_or(kDictDivisor));
    const int64_t threshold = std::min<int64_t>(n / divisor, kDictMaxCardinality);
    if (threshold == 0) return std::optional<DictionaryEncoded>();
    double ratio = params.dict_size_ratio.value_or(kDictSizeRatio);
    if (!(ratio > 0 && ratio <= 1)) ratio = kDictSizeRatio;
    const int64_t data_size =
        values.kind == DataBlock::Kind::kVariable
            ? VariableBytes(values) + (values.num_values + 1) * (values.offset_bits / 8)
            : n * static_cast<int64_t>(values.bits_per_value / 8);
    if (data_size == 0) return std::optional<DictionaryEncoded>();
    const int64_t max_encoded =
        static_cast<int64_t>(static_cast<double>(data_size) * ratio);
    const int64_t max_dict_bytes = params.dict_max_size.value_or(kDictMaxBytes);
    // A deterministic sample of up to 4096 values in 32 blocks: near-unique pages or
    // pages whose projected cardinality is too high are not tried.
    if (auto sample = SampleUniqueRatio(values)) {
      if (*sample >= 0.98) return std::optional<DictionaryEncoded>();
      if (static_cast<int64_t>(std::ceil(*sample * static_cast<double>(n))) > threshold) {
        return std::optional<DictionaryEncoded>();
      }
    }
    return Encode(values, threshold, max_encoded, max_dict_bytes);
  }

 private:
  static int64_t OutOfLineWords(int64_t n, int width, int bits) {
    const int64_t chunks = (n + 1023) / 1024;
    const int64_t per_chunk = (1024 * width + bits - 1) / bits;
    if (n % 1024 == 0) return chunks * per_chunk;
    const int64_t whole = chunks - 1;
    const int64_t tail = n - whole * 1024;
    const int64_t padding_cost = static_cast<int64_t>(width) * (1024 - tail);
    const int64_t savings = static_cast<int64_t>(bits - width) * tail;
    return whole * per_chunk + (padding_cost < savings ? per_chunk : tail);
  }

  static int64_t VariableBytes(const DataBlock& v) {
    if (v.num_values == 0) return 0;
    return static_cast<int64_t>(v.Offset(v.num_values) - v.Offset(0));
  }

  bool UseFsst(const DataBlock& values, const Params& params, const Field& field) const {
    if (params.compression == "fsst") return true;
    if (params.compression) return false;
    const TypeId id = field.type()->id();
    if (id == TypeId::kBinary || id == TypeId::kLargeBinary) return false;
    return values.MaxValueLength() >= codecs::kFsstMinMaxLength &&
           VariableBytes(values) >= codecs::kFsstMinInputBytes;
  }

  Result<MiniBlockValues> FixedMiniBlock(const DataBlock& values, const Params& params,
                                         const Field& field) {
    if (params.compression == "none" || !IsBitpackable(values)) {
      return plain_->MiniBlock(values, field);
    }
    const int vbytes = static_cast<int>(values.bits_per_value / 8);
    const int64_t raw = values.num_values * vbytes;
    BufferPtr data = Aligned(values.data, raw);
    DataBlock aligned = values;
    aligned.data = data;
    // Byte-stream-split: only with a general compression to follow and asked for.
    if (params.GeneralScheme() && (params.bss == "on" || params.bss == "true") &&
        (vbytes == 4 || vbytes == 8)) {
      return BssMiniBlock(aligned);
    }
    const std::vector<int> widths = ChunkWidthsOf(aligned);
    const std::optional<int64_t> bitpack = InlineBitpackBytes(aligned, widths);
    // RLE when it beats raw and bit-packing (and any explicit threshold on runs).
    {
      bool passes = true;
      if (params.rle_threshold) {
        int64_t runs = 0;
        for (int64_t i = 0; i < values.num_values; ++i) {
          if (i == 0 ||
              std::memcmp(data->data() + i * vbytes, data->data() + (i - 1) * vbytes,
                          static_cast<size_t>(vbytes)) != 0) {
            ++runs;
          }
        }
        passes = static_cast<double>(runs) <
                 static_cast<double>(values.num_values) * *params.rle_threshold;
      }
      if (passes) {
        const int64_t rle =
            codecs::RleEncodedSize(vbytes, data->data(), values.num_values, 1);
        if (rle < raw && (!bitpack || *bitpack >= rle)) return RleMiniBlock(aligned);
      }
    }
    if (bitpack) return BitpackMiniBlock(aligned);
    return plain_->MiniBlock(values, field);
  }

  Result<MiniBlockValues> BitpackMiniBlock(const DataBlock& values) {
    MiniBlockValues out;
    out.encoding.mutable_inline_bitpacking()->set_uncompressed_bits_per_value(
        values.bits_per_value);
    const int64_t n = values.num_values;
    for (int64_t start = 0; start < n; start += codecs::kFastLanesBlock) {
      const int64_t k = std::min<int64_t>(codecs::kFastLanesBlock, n - start);
      BufferBuilder b;
      const uint8_t* p = values.data->data();
      LANCE_RETURN_NOT_OK(
          codecs::internal::DispatchUnsignedWidth(values.bits_per_value, [&](auto word) {
            using T = decltype(word);
            return codecs::AppendInlineBitpacked<T>(reinterpret_cast<const T*>(p) + start,
                                                    k, &b);
          }));
      LANCE_ASSIGN_OR_RAISE(BufferPtr chunk, b.Finish());
      out.chunks.push_back({{std::move(chunk)}, k});
    }
    return out;
  }

  Result<MiniBlockValues> RleMiniBlock(const DataBlock& values) {
    const int vbytes = static_cast<int>(values.bits_per_value / 8);
    BufferBuilder run_values, run_lengths;
    std::vector<codecs::RleChunk> chunks;
    LANCE_RETURN_NOT_OK(codecs::RleEncodeMiniBlock(vbytes, values.data->data(),
                                                   values.num_values, &run_values,
                                                   &run_lengths, &chunks));
    LANCE_ASSIGN_OR_RAISE(BufferPtr vbuf, run_values.Finish());
    LANCE_ASSIGN_OR_RAISE(BufferPtr lbuf, run_lengths.Finish());
    MiniBlockValues out;
    auto* r = out.encoding.mutable_rle();
    *r->mutable_values() = Flat(values.bits_per_value);
    *r->mutable_run_lengths() = Flat(8);
    int64_t voff = 0, loff = 0;
    for (const auto& c : chunks) {
      out.chunks.push_back({{Buffer::Slice(vbuf, voff, c.values_bytes),
                             Buffer::Slice(lbuf, loff, c.lengths_bytes)},
                            c.num_values});
      voff += c.values_bytes;
      loff += c.lengths_bytes;
    }
    return out;
  }

  Result<MiniBlockValues> BssMiniBlock(const DataBlock& values) {
    const int vbytes = static_cast<int>(values.bits_per_value / 8);
    // Chunks as the flat encoder cuts them, each byte-stream-split on its own.
    const Field dummy("", uint8());
    LANCE_ASSIGN_OR_RAISE(MiniBlockValues flat, plain_->MiniBlock(values, dummy));
    MiniBlockValues out;
    auto* b = out.encoding.mutable_byte_stream_split();
    *b->mutable_values() = Flat(values.bits_per_value);
    for (auto& c : flat.chunks) {
      const BufferPtr& in = c.buffers[0];
      LANCE_ASSIGN_OR_RAISE(BufferPtr split, Buffer::Allocate(in->size()));
      codecs::ByteStreamSplitEncode(vbytes, in->data(), c.num_values,
                                    split->mutable_data());
      out.chunks.push_back({{std::move(split)}, c.num_values});
    }
    return out;
  }

  Result<MiniBlockValues> VariableMiniBlock(const DataBlock& values, const Params& params,
                                            const Field& field) {
    if (!UseFsst(values, params, field)) return plain_->MiniBlock(values, field);
    // The compressed values keep the input's offset width, as Lance does: its readers
    // insist on 64-bit offsets for large_string / large_binary.
    return values.offset_bits == 64 ? FsstMiniBlock<uint64_t>(values)
                                    : FsstMiniBlock<uint32_t>(values);
  }

  /// Compresses every value with one table trained on the page, then cuts the compressed
  /// values into chunks as the plain variable layout does.
  template <typename Offset>
  Result<MiniBlockValues> FsstMiniBlock(const DataBlock& values) {
    const int64_t n = values.num_values;
    const auto* in = values.offsets->data_as<Offset>();
    std::vector<Offset> offsets;
    std::vector<uint8_t> data;
    codecs::FsstSymbolTable table;
    if (VariableBytes(values) >= codecs::kFsstMinInputBytes) {
      auto fsst = codecs::FsstCompressor::Train<Offset>(values.data->data(), in, n);
      fsst.template Compress<Offset>(values.data->data(), in, n, &offsets, &data);
      table = fsst.table();
    } else {
      table = codecs::FsstCompressor::MakeUncompressedTable();
      offsets.reserve(static_cast<size_t>(n + 1));
      for (int64_t i = 0; i <= n; ++i)
        offsets.push_back(static_cast<Offset>(in[i] - in[0]));
      data.assign(values.data->data() + in[0], values.data->data() + in[n]);
    }
    MiniBlockValues out;
    std::string symbols(static_cast<size_t>(codecs::kFsstSymbolTableBytes), '\0');
    codecs::SerializeFsstSymbolTable(table, reinterpret_cast<uint8_t*>(symbols.data()));
    auto* f = out.encoding.mutable_fsst();
    f->set_symbol_table(std::move(symbols));
    *f->mutable_values() = VariableEncoding(8 * static_cast<int>(sizeof(Offset)));
    for (const auto& c : codecs::PlanVariableChunks<Offset>(offsets.data(), n)) {
      BufferBuilder b;
      LANCE_RETURN_NOT_OK(codecs::WriteVariableChunk<Offset>(offsets.data(), data.data(),
                                                             c.first, c.num_values, &b));
      LANCE_ASSIGN_OR_RAISE(BufferPtr chunk, b.Finish());
      out.chunks.push_back({{chunk ? chunk : Buffer::FromString("")}, c.num_values});
    }
    return out;
  }

  /// Compresses the first buffer of every chunk (Lance's general mini-block).
  Result<MiniBlockValues> WrapGeneral(MiniBlockValues in, pb21::CompressionScheme scheme,
                                      std::optional<int> level) {
    for (auto& c : in.chunks) {
      BufferBuilder b;
      LANCE_RETURN_NOT_OK(codecs::GeneralCompress(scheme, level, c.buffers[0]->data(),
                                                  c.buffers[0]->size(), &b));
      LANCE_ASSIGN_OR_RAISE(c.buffers[0], b.Finish());
      if (!c.buffers[0]) c.buffers[0] = Buffer::FromString("");
    }
    in.encoding = Wrap(scheme, level, std::move(in.encoding));
    return in;
  }

  template <typename Fn>
  Result<PerValueValues> PerValue(const DataBlock& values, Fn&& compress_one,
                                  pb21::CompressiveEncoding encoding) {
    const int64_t n = values.num_values;
    std::vector<uint64_t> offsets = {0};
    BufferBuilder data;
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t b = values.Offset(i);
      const uint64_t e = values.Offset(i + 1);
      LANCE_RETURN_NOT_OK(
          compress_one(values.data->data() + b, static_cast<int64_t>(e - b), &data));
      offsets.push_back(static_cast<uint64_t>(data.length()));
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, data.Finish());
    if (!bytes) bytes = Buffer::FromString("");
    PerValueValues out;
    // The offsets keep the input's width (Lance's readers expect 64 for large types).
    const bool wide = values.offset_bits == 64;
    if (!wide && offsets.back() > std::numeric_limits<uint32_t>::max()) {
      return Status::Invalid("per-value compressed page exceeds 4 GiB of 32-bit offsets");
    }
    BufferPtr offs;
    if (wide) {
      LANCE_ASSIGN_OR_RAISE(offs, Buffer::CopyFrom(offsets.data(), (n + 1) * 8));
    } else {
      LANCE_ASSIGN_OR_RAISE(offs, Buffer::AllocateForOverwrite((n + 1) * 4));
      for (int64_t i = 0; i <= n; ++i)
        offs->mutable_data_as<uint32_t>()[i] = static_cast<uint32_t>(offsets[i]);
    }
    out.values =
        DataBlock::Variable(wide ? 64 : 32, n, std::move(offs), std::move(bytes));
    out.encoding = std::move(encoding);
    return out;
  }

  Result<PerValueValues> PerValueGeneral(const DataBlock& values,
                                         pb21::CompressionScheme scheme,
                                         std::optional<int> level) {
    return PerValue(
        values,
        [&](const uint8_t* p, int64_t size, BufferBuilder* out) {
          return codecs::GeneralCompress(scheme, level, p, size, out);
        },
        Wrap(scheme, level, VariableEncoding(values.offset_bits)));
  }

  Result<PerValueValues> PerValueFsst(const DataBlock& values) {
    const int64_t n = values.num_values;
    std::optional<codecs::FsstCompressor> fsst;
    if (values.offset_bits == 64) {
      fsst = codecs::FsstCompressor::Train<uint64_t>(
          values.data->data(), values.offsets->data_as<uint64_t>(), n);
    } else {
      fsst = codecs::FsstCompressor::Train<uint32_t>(
          values.data->data(), values.offsets->data_as<uint32_t>(), n);
    }
    pb21::CompressiveEncoding encoding;
    std::string symbols(static_cast<size_t>(codecs::kFsstSymbolTableBytes), '\0');
    codecs::SerializeFsstSymbolTable(fsst->table(),
                                     reinterpret_cast<uint8_t*>(symbols.data()));
    encoding.mutable_fsst()->set_symbol_table(std::move(symbols));
    *encoding.mutable_fsst()->mutable_values() = VariableEncoding(values.offset_bits);
    std::vector<uint8_t> scratch;
    return PerValue(
        values,
        [&](const uint8_t* p, int64_t size, BufferBuilder* out) -> Status {
          scratch.resize(static_cast<size_t>(2 * size + 8));
          const int64_t written = fsst->CompressValue(p, size, scratch.data());
          return out->Append(scratch.data(), written);
        },
        std::move(encoding));
  }

  static std::optional<double> SampleUniqueRatio(const DataBlock& v) {
    constexpr int64_t kMaxSamples = 4096, kBlocks = 32, kMinReliable = 1024;
    const int64_t n = v.num_values;
    const int64_t samples = std::min(n, kMaxSamples);
    if (samples < kMinReliable) return std::nullopt;
    const int64_t blocks = std::min(kBlocks, samples);
    const int64_t per_block = std::max<int64_t>(1, samples / blocks);
    std::unordered_set<std::string_view> unique;
    int64_t taken = 0;
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t start = b * n / blocks;
      const int64_t next = std::min(n, (b + 1) * n / blocks);
      const int64_t k = std::min(per_block, next - start);
      for (int64_t i = start; i < start + k; ++i) {
        unique.insert(ValueBytes(v, i));
        ++taken;
      }
    }
    if (taken < kMinReliable) return std::nullopt;
    return static_cast<double>(unique.size()) / static_cast<double>(taken);
  }

  static std::string_view ValueBytes(const DataBlock& v, int64_t i) {
    if (v.kind == DataBlock::Kind::kFixed) {
      const int64_t w = static_cast<int64_t>(v.bits_per_value / 8);
      return {reinterpret_cast<const char*>(v.data->data()) + i * w,
              static_cast<size_t>(w)};
    }
    const uint64_t b = v.Offset(i);
    const uint64_t e = v.Offset(i + 1);
    return {reinterpret_cast<const char*>(v.data->data()) + b,
            static_cast<size_t>(e - b)};
  }

  /// Dictionary (first-appearance order) and 32-bit indices, abandoned as soon as a
  /// budget is exceeded.
  static Result<std::optional<DictionaryEncoded>> Encode(const DataBlock& v,
                                                         int64_t max_entries,
                                                         int64_t max_encoded,
                                                         int64_t max_dict_bytes) {
    const int64_t n = v.num_values;
    std::unordered_map<std::string_view, uint32_t> index;
    index.reserve(static_cast<size_t>(std::min<int64_t>(max_entries, 4096)));
    std::vector<int64_t> first_of;  // value position of each dictionary entry
    LANCE_ASSIGN_OR_RAISE(BufferPtr indices, Buffer::AllocateForOverwrite(n * 4));
    auto* idx = indices->mutable_data_as<uint32_t>();
    int64_t dict_bytes = 0;
    const bool fixed = v.kind == DataBlock::Kind::kFixed;
    for (int64_t i = 0; i < n; ++i) {
      const std::string_view bytes = ValueBytes(v, i);
      auto it = index.find(bytes);
      if (it == index.end()) {
        if (static_cast<int64_t>(first_of.size()) >= max_entries)
          return std::optional<DictionaryEncoded>();
        it = index.emplace(bytes, static_cast<uint32_t>(first_of.size())).first;
        first_of.push_back(i);
        dict_bytes += static_cast<int64_t>(bytes.size()) + (fixed ? 0 : 4);
        if (dict_bytes > max_dict_bytes) return std::optional<DictionaryEncoded>();
      }
      idx[i] = it->second;
      if (dict_bytes + 4 * (i + 1) > max_encoded)
        return std::optional<DictionaryEncoded>();
    }
    DictionaryEncoded out;
    out.indices = DataBlock::Fixed(32, n, indices);
    const int64_t k = static_cast<int64_t>(first_of.size());
    if (fixed) {
      const int64_t w = static_cast<int64_t>(v.bits_per_value / 8);
      LANCE_ASSIGN_OR_RAISE(BufferPtr items, Buffer::AllocateForOverwrite(k * w));
      for (int64_t j = 0; j < k; ++j) {
        std::memcpy(items->mutable_data() + j * w, v.data->data() + first_of[j] * w,
                    static_cast<size_t>(w));
      }
      out.items = DataBlock::Fixed(v.bits_per_value, k, std::move(items));
    } else {
      // The items keep the values' offset width, as Lance's.
      const bool wide = v.offset_bits == 64;
      LANCE_ASSIGN_OR_RAISE(BufferPtr offsets,
                            Buffer::AllocateForOverwrite((k + 1) * (wide ? 8 : 4)));
      BufferBuilder data;
      auto set = [&](int64_t j, int64_t value) {
        if (wide) {
          offsets->mutable_data_as<uint64_t>()[j] = static_cast<uint64_t>(value);
        } else {
          offsets->mutable_data_as<uint32_t>()[j] = static_cast<uint32_t>(value);
        }
      };
      set(0, 0);
      for (int64_t j = 0; j < k; ++j) {
        const std::string_view bytes = ValueBytes(v, first_of[j]);
        LANCE_RETURN_NOT_OK(
            data.Append(bytes.data(), static_cast<int64_t>(bytes.size())));
        set(j + 1, data.length());
      }
      LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, data.Finish());
      out.items = DataBlock::Variable(wide ? 64 : 32, k, std::move(offsets),
                                      bytes ? bytes : Buffer::FromString(""));
    }
    return std::optional<DictionaryEncoded>(std::move(out));
  }

  bool v22_;
  std::unique_ptr<CompressionStrategy> plain_;
};

}  // namespace

std::unique_ptr<CompressionStrategy> MakeCompressionStrategy(LanceFileVersion version) {
  return std::make_unique<LanceStrategy>(version == LanceFileVersion::kV2_2);
}

}  // namespace lance::format::structural

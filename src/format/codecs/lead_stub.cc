// SPDX-License-Identifier: Apache-2.0
// TEMPORARY (removed when the codecs branch lands): just enough of the 2.1/2.2 codecs
// to exercise the structural layouts (flat, FastLanes bit-packing, variable, fsl).

#include <cstring>

#include "format/codecs/codecs.h"
#include "lance/macros.h"

namespace lance::format::codecs {

namespace {

constexpr int kFlOrder[8] = {0, 4, 2, 6, 1, 5, 3, 7};

template <typename T>
void Unpack1024(const T* packed, int w, T* out) {
  constexpr int kT = sizeof(T) * 8;
  constexpr int kLanes = 1024 / kT;
  if (w == 0) {
    std::memset(out, 0, 1024 * sizeof(T));
    return;
  }
  for (int lane = 0; lane < kLanes; ++lane) {
    for (int row = 0; row < kT; ++row) {
      const int idx = kFlOrder[row / 8] * 16 + (row % 8) * 128 + lane;
      const int bit = (row * w) % kT;
      const int word = (row * w) / kT;
      uint64_t v = static_cast<uint64_t>(packed[kLanes * word + lane]) >> bit;
      if (bit + w > kT) {
        v |= static_cast<uint64_t>(packed[kLanes * (word + 1) + lane]) << (kT - bit);
      }
      const uint64_t mask = w == 64 ? ~uint64_t{0} : ((uint64_t{1} << w) - 1);
      out[idx] = static_cast<T>(v & mask);
    }
  }
}

template <typename T>
Result<DataBlock> InlineUnpack(const BufferPtr& buf, int64_t n) {
  constexpr int kT = sizeof(T) * 8;
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, Buffer::Allocate(((n + 1023) / 1024) * 1024 * sizeof(T)));
  const uint8_t* p = buf->data();
  int64_t off = 0;
  for (int64_t done = 0; done < n; done += 1024) {
    if (off + static_cast<int64_t>(sizeof(T)) > buf->size()) return Status::Corrupt("short");
    T w;
    std::memcpy(&w, p + off, sizeof(T));
    off += sizeof(T);
    if (w > kT) return Status::Corrupt("bad width");
    const int64_t bytes = 1024 * static_cast<int64_t>(w) / 8;
    if (off + bytes > buf->size()) return Status::Corrupt("short block");
    std::vector<T> packed(1024 * w / kT + 1);
    std::memcpy(packed.data(), p + off, static_cast<size_t>(bytes));
    Unpack1024<T>(packed.data(), static_cast<int>(w), out->mutable_data_as<T>() + done);
    off += bytes;
  }
  return DataBlock::Fixed(kT, n, out);
}

template <typename T>
Result<DataBlock> OutOfLineUnpack(const BufferPtr& buf, int64_t n, int w) {
  constexpr int kT = sizeof(T) * 8;
  const int64_t blocks = n / 1024;
  const int64_t tail = n % 1024;
  const int64_t block_bytes = 1024 * w / 8;
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, Buffer::Allocate((blocks + 1) * 1024 * sizeof(T)));
  T* o = out->mutable_data_as<T>();
  const uint8_t* p = buf->data();
  int64_t off = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    if (off + block_bytes > buf->size()) return Status::Corrupt("short");
    std::vector<T> packed(1024 * w / kT + 1);
    std::memcpy(packed.data(), p + off, static_cast<size_t>(block_bytes));
    Unpack1024<T>(packed.data(), w, o + b * 1024);
    off += block_bytes;
  }
  if (tail > 0) {
    const int64_t rest = buf->size() - off;
    if (rest == tail * static_cast<int64_t>(sizeof(T))) {
      std::memcpy(o + blocks * 1024, p + off, static_cast<size_t>(rest));
    } else if (rest >= block_bytes) {
      std::vector<T> packed(1024 * w / kT + 1);
      std::memcpy(packed.data(), p + off, static_cast<size_t>(block_bytes));
      Unpack1024<T>(packed.data(), w, o + blocks * 1024);
    } else {
      return Status::Corrupt("bad tail");
    }
  }
  return DataBlock::Fixed(kT, n, out);
}

Result<DataBlock> Flat(const pb21::Flat& flat, const BufferPtr& buf, int64_t n) {
  return DataBlock::Fixed(flat.bits_per_value(), n, buf);
}

}  // namespace

DataBlock DataBlock::Fixed(uint64_t bits, int64_t n, BufferPtr data) {
  DataBlock b;
  b.kind = Kind::kFixed;
  b.bits_per_value = bits;
  b.num_values = n;
  b.data = std::move(data);
  return b;
}

DataBlock DataBlock::Variable(int offset_bits, int64_t n, BufferPtr offsets, BufferPtr data) {
  DataBlock b;
  b.kind = Kind::kVariable;
  b.offset_bits = offset_bits;
  b.num_values = n;
  b.offsets = std::move(offsets);
  b.data = std::move(data);
  return b;
}

Result<DataBlock> DecodeMiniBlock(const pb21::CompressiveEncoding& e,
                                  const std::vector<BufferPtr>& buffers, int64_t n) {
  if (e.has_flat()) return Flat(e.flat(), buffers[0], n);
  if (e.has_inline_bitpacking()) {
    switch (e.inline_bitpacking().uncompressed_bits_per_value()) {
      case 8: return InlineUnpack<uint8_t>(buffers[0], n);
      case 16: return InlineUnpack<uint16_t>(buffers[0], n);
      case 32: return InlineUnpack<uint32_t>(buffers[0], n);
      case 64: return InlineUnpack<uint64_t>(buffers[0], n);
    }
  }
  if (e.has_variable()) {
    const int bits = static_cast<int>(e.variable().offsets().flat().bits_per_value());
    return DataBlock::Variable(bits == 64 ? 64 : 32, n, buffers[0], buffers[0]);
  }
  if (e.has_fixed_size_list() && e.fixed_size_list().has_validity() && buffers.size() == 2) {
    const int64_t dim = static_cast<int64_t>(e.fixed_size_list().items_per_value());
    LANCE_ASSIGN_OR_RAISE(DataBlock items,
                          DecodeMiniBlock(e.fixed_size_list().values(), {buffers[1]}, n * dim));
    DataBlock b;
    b.kind = DataBlock::Kind::kFixedSizeList;
    b.num_values = n;
    b.dimension = static_cast<uint64_t>(dim);
    b.validity = buffers[0];
    b.children.push_back(std::move(items));
    return b;
  }
  if (e.has_fsst() && e.fsst().symbol_table().size() > 3 && e.fsst().symbol_table()[3] == 0) {
    return DecodeMiniBlock(e.fsst().values(), buffers, n);
  }
  if (e.has_fixed_size_list() && !e.fixed_size_list().has_validity()) {
    LANCE_ASSIGN_OR_RAISE(DataBlock items,
                          DecodeMiniBlock(e.fixed_size_list().values(), buffers,
                                          n * static_cast<int64_t>(e.fixed_size_list().items_per_value())));
    DataBlock b;
    b.kind = DataBlock::Kind::kFixedSizeList;
    b.num_values = n;
    b.dimension = e.fixed_size_list().items_per_value();
    b.children.push_back(std::move(items));
    return b;
  }
  return Status::NotImplemented("stub: mini-block " + Describe(e));
}

Result<DataBlock> DecodeBlock(const pb21::CompressiveEncoding& e, const BufferPtr& buf,
                              int64_t n) {
  if (e.has_flat()) return Flat(e.flat(), buf, n);
  if (e.has_inline_bitpacking()) return DecodeMiniBlock(e, {buf}, n);
  if (e.has_out_of_line_bitpacking()) {
    const auto& o = e.out_of_line_bitpacking();
    const int w = static_cast<int>(o.values().flat().bits_per_value());
    switch (o.uncompressed_bits_per_value()) {
      case 8: return OutOfLineUnpack<uint8_t>(buf, n, w);
      case 16: return OutOfLineUnpack<uint16_t>(buf, n, w);
      case 32: return OutOfLineUnpack<uint32_t>(buf, n, w);
      case 64: return OutOfLineUnpack<uint64_t>(buf, n, w);
    }
  }
  return Status::NotImplemented("stub: block " + Describe(e));
}

Result<uint64_t> FixedPerValueBits(const pb21::CompressiveEncoding& e) {
  if (e.has_flat()) return e.flat().bits_per_value();
  if (e.has_fixed_size_list()) {
    LANCE_ASSIGN_OR_RAISE(uint64_t inner, FixedPerValueBits(e.fixed_size_list().values()));
    return inner * e.fixed_size_list().items_per_value();
  }
  return Status::NotImplemented("stub: fixed per value " + Describe(e));
}

Result<DataBlock> DecodeFixedPerValue(const pb21::CompressiveEncoding& e, const BufferPtr& data,
                                      int64_t n) {
  if (e.has_fixed_size_list() && e.fixed_size_list().has_validity() &&
      e.fixed_size_list().values().has_flat()) {
    const int64_t dim = static_cast<int64_t>(e.fixed_size_list().items_per_value());
    const int64_t w = static_cast<int64_t>(e.fixed_size_list().values().flat().bits_per_value() / 8);
    const int64_t vb = (dim + 7) / 8;
    LANCE_ASSIGN_OR_RAISE(BufferPtr valid, Buffer::Allocate((n * dim + 7) / 8));
    LANCE_ASSIGN_OR_RAISE(BufferPtr vals, Buffer::Allocate(n * dim * w));
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t* p = data->data() + i * (vb + dim * w);
      for (int64_t k = 0; k < dim; ++k) {
        if ((p[k / 8] >> (k % 8)) & 1) {
          valid->mutable_data()[(i * dim + k) / 8] |= static_cast<uint8_t>(1 << ((i * dim + k) % 8));
        }
      }
      std::memcpy(vals->mutable_data() + i * dim * w, p + vb, static_cast<size_t>(dim * w));
    }
    DataBlock b;
    b.kind = DataBlock::Kind::kFixedSizeList;
    b.num_values = n;
    b.dimension = static_cast<uint64_t>(dim);
    b.validity = valid;
    b.children.push_back(DataBlock::Fixed(static_cast<uint64_t>(w * 8), n * dim, vals));
    return b;
  }
  if (e.has_flat()) return Flat(e.flat(), data, n);
  if (e.has_fixed_size_list() && !e.fixed_size_list().has_validity()) {
    const int64_t dim = static_cast<int64_t>(e.fixed_size_list().items_per_value());
    LANCE_ASSIGN_OR_RAISE(DataBlock items,
                          DecodeFixedPerValue(e.fixed_size_list().values(), data, n * dim));
    DataBlock b;
    b.kind = DataBlock::Kind::kFixedSizeList;
    b.num_values = n;
    b.dimension = static_cast<uint64_t>(dim);
    b.children.push_back(std::move(items));
    return b;
  }
  return Status::NotImplemented("stub: fixed per value " + Describe(e));
}

Result<DataBlock> DecodeVariablePerValue(const pb21::CompressiveEncoding& e,
                                         const DataBlock& values) {
  if (e.has_variable()) return values;
  return Status::NotImplemented("stub: variable per value " + Describe(e));
}

std::string Describe(const pb21::CompressiveEncoding& e) {
  std::string s = e.ShortDebugString();
  return s.size() > 200 ? s.substr(0, 200) + "..." : s;
}

}  // namespace lance::format::codecs

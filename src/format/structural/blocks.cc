// SPDX-License-Identifier: Apache-2.0
// Decoded value blocks as Arrow arrays.

#include "format/structural/blocks.h"

#include <cstring>
#include <limits>

#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/macros.h"

namespace lance::format::structural {

namespace {

using codecs::DataBlock;

Status Mismatch(const DataBlock& block, const DataType& type, const std::string& why) {
  return Status::Corrupt("decoded values do not fit type ", type.ToString(), ": ", why);
}

bool IsBinaryLike(TypeId id) {
  return id == TypeId::kUtf8 || id == TypeId::kBinary || id == TypeId::kLargeUtf8 ||
         id == TypeId::kLargeBinary;
}

bool IsLarge(TypeId id) { return id == TypeId::kLargeUtf8 || id == TypeId::kLargeBinary; }

/// Arrow offsets (int32 or int64, `count + 1` entries) from a variable block's offsets,
/// checked to be non-decreasing and inside the data. Zero-copy when they already fit.
Result<BufferPtr> ArrowOffsets(const DataBlock& block, bool large, const DataType& type) {
  const int64_t n = block.num_values;
  const int in_bits = block.offset_bits;
  if (in_bits != 32 && in_bits != 64) return Mismatch(block, type, "offset width");
  const int64_t in_bytes = (n + 1) * (in_bits / 8);
  if (!block.offsets || block.offsets->size() < in_bytes) {
    return Mismatch(block, type, "too few offsets");
  }
  const int64_t data_size = block.data ? block.data->size() : 0;
  auto load = [&](int64_t i) -> uint64_t {
    if (in_bits == 32) {
      uint32_t v;
      std::memcpy(&v, block.offsets->data() + 4 * i, 4);
      return v;
    }
    uint64_t v;
    std::memcpy(&v, block.offsets->data() + 8 * i, 8);
    return v;
  };
  uint64_t prev = load(0);
  for (int64_t i = 1; i <= n; ++i) {
    const uint64_t cur = load(i);
    if (cur < prev) return Mismatch(block, type, "offsets decrease");
    prev = cur;
  }
  if (prev > static_cast<uint64_t>(data_size)) {
    return Mismatch(block, type, "offsets past the end of the data");
  }
  if (!large && prev > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return Status::Invalid("values of type ", type.ToString(),
                           " exceed 2 GiB in one page; read them as large_string / "
                           "large_binary");
  }
  const bool aligned =
      reinterpret_cast<uintptr_t>(block.offsets->data()) % (large ? 8 : 4) == 0;
  if (aligned && ((large && in_bits == 64) || (!large && in_bits == 32))) {
    return Buffer::Slice(block.offsets, 0, in_bytes);
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr out,
                        Buffer::AllocateForOverwrite((n + 1) * (large ? 8 : 4)));
  for (int64_t i = 0; i <= n; ++i) {
    if (large) {
      out->mutable_data_as<int64_t>()[i] = static_cast<int64_t>(load(i));
    } else {
      out->mutable_data_as<int32_t>()[i] = static_cast<int32_t>(load(i));
    }
  }
  return out;
}

}  // namespace

Result<ArrayDataPtr> BlockToArray(const DataBlock& block, const DataTypePtr& type) {
  const int64_t n = block.num_values;
  if (n < 0) return Mismatch(block, *type, "negative count");
  if (block.kind == DataBlock::Kind::kAllNull) {
    if (n > (int64_t{1} << 32)) return Mismatch(block, *type, "implausible null count");
    LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(type));
    LANCE_RETURN_NOT_OK(builder->AppendNulls(n));
    return builder->FinishData();
  }
  const TypeId id = type->id();
  if (id == TypeId::kDictionary) {
    // Plain values of a dictionary-typed leaf (a page Lance did not dictionary-encode):
    // encode them again.
    LANCE_ASSIGN_OR_RAISE(ArrayDataPtr values, BlockToArray(block, type->value_type()));
    DictionaryBuilder builder(type);
    LANCE_RETURN_NOT_OK(builder.AppendValues(*MakeArray(values)));
    return builder.FinishData();
  }
  if (id == TypeId::kNull) {
    return ArrayData::Make(type, n, {nullptr}, n);
  }
  if (IsBinaryLike(id)) {
    if (block.kind != DataBlock::Kind::kVariable) {
      return Mismatch(block, *type, "expected variable-width values");
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr offsets, ArrowOffsets(block, IsLarge(id), *type));
    BufferPtr data = block.data ? block.data : Buffer::FromString("");
    return ArrayData::Make(type, n, {nullptr, std::move(offsets), std::move(data)}, 0);
  }
  if (id == TypeId::kFixedSizeList) {
    const DataTypePtr& item = type->value_type();
    const int64_t dim = type->fixed_size();
    if (block.kind == DataBlock::Kind::kFixedSizeList) {
      if (block.dimension != static_cast<uint64_t>(dim) || block.children.size() != 1) {
        return Mismatch(block, *type, "fixed_size_list dimension");
      }
      const DataBlock& items = block.children[0];
      if (items.num_values != n * dim) return Mismatch(block, *type, "item count");
      LANCE_ASSIGN_OR_RAISE(ArrayDataPtr child, BlockToArray(items, item));
      if (block.validity) {
        if (block.validity->size() < bit_util::BytesForBits(n * dim)) {
          return Mismatch(block, *type, "item validity too short");
        }
        child->buffers[0] = block.validity;
        child->null_count = kUnknownNullCount;
      }
      return ArrayData::Make(type, n, {nullptr}, 0, 0, {std::move(child)});
    }
    if (block.kind == DataBlock::Kind::kFixed && item->bit_width() > 0 &&
        block.bits_per_value == static_cast<uint64_t>(item->bit_width()) * dim) {
      // Flat values of whole lists: the items back to back.
      DataBlock items =
          DataBlock::Fixed(static_cast<uint64_t>(item->bit_width()), n * dim, block.data);
      LANCE_ASSIGN_OR_RAISE(ArrayDataPtr child, BlockToArray(items, item));
      return ArrayData::Make(type, n, {nullptr}, 0, 0, {std::move(child)});
    }
    return Mismatch(block, *type, "expected fixed_size_list values");
  }
  if (id == TypeId::kStruct) {
    if (block.kind != DataBlock::Kind::kStruct ||
        block.children.size() != static_cast<size_t>(type->num_fields())) {
      return Mismatch(block, *type, "expected packed struct values");
    }
    std::vector<ArrayDataPtr> children;
    for (int i = 0; i < type->num_fields(); ++i) {
      if (block.children[i].num_values != n)
        return Mismatch(block, *type, "field length");
      LANCE_ASSIGN_OR_RAISE(ArrayDataPtr child,
                            BlockToArray(block.children[i], type->fields()[i]->type()));
      children.push_back(std::move(child));
    }
    return ArrayData::Make(type, n, {nullptr}, 0, 0, std::move(children));
  }
  const int bits = type->bit_width();
  if (bits <= 0) {
    return Status::NotImplemented("reading values of type " + type->ToString() +
                                  " from a 2.1/2.2 page");
  }
  if (block.kind != DataBlock::Kind::kFixed ||
      block.bits_per_value != static_cast<uint64_t>(bits)) {
    return Mismatch(block, *type,
                    "expected " + std::to_string(bits) + "-bit values, got " +
                        (block.kind == DataBlock::Kind::kFixed
                             ? std::to_string(block.bits_per_value) + "-bit values"
                             : std::string("another kind")));
  }
  const int64_t need = bits == 1 ? bit_util::BytesForBits(n) : n * (bits / 8);
  if ((need > 0 && !block.data) || (block.data && block.data->size() < need)) {
    return Mismatch(block, *type, "too few bytes");
  }
  BufferPtr data = block.data ? block.data : Buffer::FromString("");
  return ArrayData::Make(type, n, {nullptr, std::move(data)}, 0);
}

Result<DataBlock> ArrayToBlock(const ArrayData& array) {
  const DataType& type = *array.type;
  const TypeId id = type.id();
  const int64_t n = array.length;
  if (IsBinaryLike(id)) {
    const int width = IsLarge(id) ? 8 : 4;
    BufferPtr offsets =
        Buffer::Slice(array.buffers[1], array.offset * width, (n + 1) * width);
    BufferPtr data = array.buffers.size() > 2 && array.buffers[2]
                         ? array.buffers[2]
                         : Buffer::FromString("");
    return DataBlock::Variable(width * 8, n, std::move(offsets), std::move(data));
  }
  if (id == TypeId::kFixedSizeList) {
    const int64_t dim = type.fixed_size();
    const ArrayData& child = *array.children[0];
    LANCE_ASSIGN_OR_RAISE(DataBlock items,
                          ArrayToBlock(*child.Slice(array.offset * dim, n * dim)));
    DataBlock out;
    out.kind = DataBlock::Kind::kFixedSizeList;
    out.num_values = n;
    out.dimension = static_cast<uint64_t>(dim);
    auto sliced = child.Slice(array.offset * dim, n * dim);
    if (sliced->GetNullCount() > 0) {
      LANCE_ASSIGN_OR_RAISE(out.validity,
                            Buffer::Allocate(bit_util::BytesForBits(n * dim)));
      bit_util::CopyBits(sliced->buffers[0]->data(), sliced->offset, n * dim,
                         out.validity->mutable_data(), 0);
    }
    out.children.push_back(std::move(items));
    return out;
  }
  if (id == TypeId::kStruct) {
    DataBlock out;
    out.kind = DataBlock::Kind::kStruct;
    out.num_values = n;
    for (const auto& child : array.children) {
      LANCE_ASSIGN_OR_RAISE(DataBlock c, ArrayToBlock(*child->Slice(array.offset, n)));
      out.children.push_back(std::move(c));
    }
    return out;
  }
  const int bits = type.bit_width();
  if (bits <= 0) {
    return Status::NotImplemented("writing values of type ", type.ToString(),
                                  " in file format 2.1/2.2");
  }
  if (array.buffers.size() < 2 || !array.buffers[1]) {
    LANCE_ASSIGN_OR_RAISE(
        BufferPtr zeros,
        Buffer::Allocate(bits == 1 ? bit_util::BytesForBits(n) : n * bits / 8));
    return DataBlock::Fixed(static_cast<uint64_t>(bits), n, std::move(zeros));
  }
  if (bits == 1) {
    if (array.offset % 8 == 0) {
      return DataBlock::Fixed(
          1, n,
          Buffer::Slice(array.buffers[1], array.offset / 8, bit_util::BytesForBits(n)));
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr bits_buf,
                          Buffer::Allocate(bit_util::BytesForBits(n)));
    bit_util::CopyBits(array.buffers[1]->data(), array.offset, n,
                       bits_buf->mutable_data(), 0);
    return DataBlock::Fixed(1, n, std::move(bits_buf));
  }
  const int64_t width = bits / 8;
  return DataBlock::Fixed(
      static_cast<uint64_t>(bits), n,
      Buffer::Slice(array.buffers[1], array.offset * width, n * width));
}

Result<ArrayDataPtr> RepeatScalar(const std::vector<BufferPtr>& buffers,
                                  const DataTypePtr& type, int64_t count,
                                  const std::vector<uint8_t>* present) {
  const TypeId id = type->id();
  auto bad = [&](const std::string& why) {
    return Status::Corrupt("constant value of type " + type->ToString() + ": " + why);
  };
  if (IsBinaryLike(id)) {
    // Buffers of a length-1 array: offsets (2 entries) and data.
    if (buffers.size() != 2) return bad("expected offsets and data");
    const bool large = IsLarge(id);
    const int64_t width = large ? 8 : 4;
    if (buffers[0]->size() < 2 * width) return bad("short offsets");
    int64_t begin = 0, end = 0;
    if (large) {
      std::memcpy(&begin, buffers[0]->data(), 8);
      std::memcpy(&end, buffers[0]->data() + 8, 8);
    } else {
      int32_t b32, e32;
      std::memcpy(&b32, buffers[0]->data(), 4);
      std::memcpy(&e32, buffers[0]->data() + 4, 4);
      begin = b32;
      end = e32;
    }
    if (begin < 0 || end < begin || end > buffers[1]->size()) return bad("bad offsets");
    const int64_t len = end - begin;
    if (present != nullptr && static_cast<int64_t>(present->size()) != count) {
      return bad("presence mask of the wrong length");
    }
    int64_t copies = count;
    if (present != nullptr) {
      copies = 0;
      for (uint8_t p : *present) copies += p != 0 ? 1 : 0;
    }
    if (len > 0 && copies > (int64_t{1} << 34) / len) return bad("too large to repeat");
    if (!large && len * copies > std::numeric_limits<int32_t>::max()) {
      return Status::Invalid("a constant page of type " + type->ToString() +
                             " exceeds 2 GiB; read it as large_string / large_binary");
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr offsets,
                          Buffer::AllocateForOverwrite((count + 1) * width));
    LANCE_ASSIGN_OR_RAISE(BufferPtr data, Buffer::AllocateForOverwrite(len * copies));
    const uint8_t* value = buffers[1]->data() + begin;
    uint8_t* dst = data->mutable_data();
    int64_t at = 0;
    for (int64_t i = 0; i <= count; ++i) {
      if (large) {
        offsets->mutable_data_as<int64_t>()[i] = at;
      } else {
        offsets->mutable_data_as<int32_t>()[i] = static_cast<int32_t>(at);
      }
      if (i == count) break;
      if (present == nullptr || (*present)[static_cast<size_t>(i)] != 0) {
        std::memcpy(dst + at, value, static_cast<size_t>(len));
        at += len;
      }
    }
    return ArrayData::Make(type, count, {nullptr, std::move(offsets), std::move(data)},
                           0);
  }
  const int bits = type->bit_width();
  if (bits <= 0 || id == TypeId::kFixedSizeList || id == TypeId::kStruct) {
    return Status::NotImplemented("constant pages of type " + type->ToString());
  }
  if (buffers.size() != 1) return bad("expected one buffer");
  if (bits == 1) {
    if (buffers[0]->size() < 1) return bad("empty");
    const bool value = (buffers[0]->data()[0] & 1) != 0;
    LANCE_ASSIGN_OR_RAISE(BufferPtr out, Buffer::Allocate(bit_util::BytesForBits(count)));
    if (value) std::memset(out->mutable_data(), 0xFF, static_cast<size_t>(out->size()));
    return ArrayData::Make(type, count, {nullptr, std::move(out)}, 0);
  }
  const int64_t width = bits / 8;
  if (buffers[0]->size() != width)
    return bad("expected " + std::to_string(width) + " bytes");
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, Buffer::AllocateForOverwrite(count * width));
  uint8_t* dst = out->mutable_data();
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(dst + i * width, buffers[0]->data(), static_cast<size_t>(width));
  }
  return ArrayData::Make(type, count, {nullptr, std::move(out)}, 0);
}

}  // namespace lance::format::structural

// SPDX-License-Identifier: Apache-2.0
// Variable-width mini-block chunks and blocks; see variable.h.

#include "format/codecs/variable.h"

#include <optional>
#include <string>

#include "format/codecs/codec_util.h"
#include "lance/macros.h"

namespace lance::format::codecs {

namespace {

// Lance pads variable-width chunks with 'H'.
constexpr uint8_t kVariablePad = 0x48;

// Lance's search_next_offset_idx: the end (exclusive value index) of the chunk that
// starts at value `start`.
template <typename OffsetT>
int64_t NextChunkEnd(const OffsetT* offsets, int64_t n, int64_t start, int64_t aim,
                     int64_t max_values) {
  const int64_t w = sizeof(OffsetT);
  if (n - start <= 1) return n;
  int64_t num = 2;
  int64_t next = 4;
  while (true) {
    if (start + next >= n + 1) {
      const int64_t bytes = static_cast<int64_t>(offsets[n] - offsets[start]);
      if (bytes + (n + 1 - start) * w <= aim) return n;
      return start + num;
    }
    const int64_t bytes = static_cast<int64_t>(offsets[start + next] - offsets[start]);
    if (bytes + (next + 1) * w <= aim) {
      if (next * 2 > max_values) break;
      num = next;
      next *= 2;
    } else {
      break;
    }
  }
  return start + num;
}

// The last of the num_values + 1 little-endian offsets at `p`, or nullopt when they
// decrease somewhere.
template <typename OffsetT>
std::optional<uint64_t> LastOffsetIfAscending(const uint8_t* p, int64_t num_values) {
  uint64_t prev = LoadLE<OffsetT>(p);
  bool ok = true;
  for (int64_t i = 1; i <= num_values; ++i) {
    const uint64_t o = LoadLE<OffsetT>(p + i * static_cast<int64_t>(sizeof(OffsetT)));
    ok &= o >= prev;
    prev = o;
  }
  if (!ok) return std::nullopt;
  return prev;
}

template <typename OffsetT>
Result<DataBlock> ReadChunkT(const BufferPtr& chunk, int64_t num_values) {
  constexpr int64_t w = sizeof(OffsetT);
  const int64_t size = chunk->size();
  if (size % w != 0) {
    return Status::Corrupt("variable-width chunk of ", size,
                           " bytes is not a multiple of its ", w, "-byte offsets");
  }
  if (num_values < 0 || num_values >= size / w) {
    return Status::Corrupt("variable-width chunk of ", size, " bytes cannot hold ",
                           num_values, " values");
  }
  const uint8_t* p = chunk->data();
  const uint64_t first = LoadLE<OffsetT>(p);
  if (first < static_cast<uint64_t>((num_values + 1) * w)) {
    return Status::Corrupt("variable-width chunk values start at ", first,
                           ", inside its ", std::to_string(num_values + 1), " offsets");
  }
  const std::optional<uint64_t> last = LastOffsetIfAscending<OffsetT>(p, num_values);
  if (!last || *last > static_cast<uint64_t>(size)) {
    return Status::Corrupt(
        "variable-width chunk offsets decrease or pass the end of its ", size, " bytes");
  }
  return DataBlock::Variable(static_cast<int>(w * 8), num_values,
                             Buffer::Slice(chunk, 0, (num_values + 1) * w), chunk);
}

template <typename OffsetT>
Result<DataBlock> ReadBlockT(const BufferPtr& block, int64_t header, int64_t bytes_start,
                             int64_t num_values) {
  constexpr int64_t w = sizeof(OffsetT);
  const int64_t size = block->size();
  if (bytes_start < header || bytes_start > size) {
    return Status::Corrupt("variable-width block values start at ", bytes_start,
                           ", outside its ", size, " bytes");
  }
  if (num_values < 0 || num_values >= internal::kMaxCount ||
      bytes_start - header != (num_values + 1) * w) {
    return Status::Corrupt("variable-width block has ", bytes_start - header,
                           " bytes of offsets, not the ", std::to_string(num_values + 1),
                           " offsets of ", num_values, " values");
  }
  const uint8_t* p = block->data() + header;
  const int64_t data_size = size - bytes_start;
  const uint64_t first = LoadLE<OffsetT>(p);
  if (first != 0) {
    return Status::Corrupt("variable-width block's first offset is ", first, ", not 0");
  }
  const std::optional<uint64_t> last = LastOffsetIfAscending<OffsetT>(p, num_values);
  if (!last || *last > static_cast<uint64_t>(data_size)) {
    return Status::Corrupt(
        "variable-width block offsets decrease or pass the end of its ", data_size,
        " value bytes");
  }
  return DataBlock::Variable(static_cast<int>(w * 8), num_values,
                             Buffer::Slice(block, header, (num_values + 1) * w),
                             Buffer::Slice(block, bytes_start, data_size));
}

}  // namespace

template <typename OffsetT>
std::vector<VariableChunk> PlanVariableChunks(const OffsetT* offsets, int64_t num_values,
                                              int64_t aim_bytes, int64_t max_values) {
  std::vector<VariableChunk> chunks;
  const int64_t w = sizeof(OffsetT);
  int64_t start = 0;
  while (true) {
    const int64_t end = NextChunkEnd(offsets, num_values, start, aim_bytes, max_values);
    VariableChunk c;
    c.first = start;
    c.num_values = end - start;
    c.log_num_values =
        end == num_values ? 0 : 63 - __builtin_clzll(static_cast<uint64_t>(c.num_values));
    const int64_t raw =
        (c.num_values + 1) * w + static_cast<int64_t>(offsets[end] - offsets[start]);
    c.padded_bytes = (raw + w - 1) / w * w;
    chunks.push_back(c);
    if (end == num_values) break;
    start = end;
  }
  return chunks;
}

template <typename OffsetT>
Status WriteVariableChunk(const OffsetT* offsets, const uint8_t* data, int64_t first,
                          int64_t n, BufferBuilder* out) {
  constexpr int64_t w = sizeof(OffsetT);
  const OffsetT base = offsets[first];
  const int64_t bytes = static_cast<int64_t>(offsets[first + n] - base);
  const int64_t raw = (n + 1) * w + bytes;
  const int64_t padded = (raw + w - 1) / w * w;
  LANCE_RETURN_NOT_OK(out->Reserve(padded));
  const OffsetT start = static_cast<OffsetT>((n + 1) * w);
  for (int64_t i = 0; i <= n; ++i) {
    const OffsetT o = static_cast<OffsetT>(offsets[first + i] - base + start);
    LANCE_RETURN_NOT_OK(out->Append(&o, w));
  }
  LANCE_RETURN_NOT_OK(out->Append(data + base, bytes));
  for (int64_t i = raw; i < padded; ++i) {
    LANCE_RETURN_NOT_OK(out->Append(&kVariablePad, 1));
  }
  return Status::OK();
}

Result<DataBlock> ReadVariableChunk(const BufferPtr& chunk, int offset_bits,
                                    int64_t num_values) {
  switch (offset_bits) {
    case 32:
      return ReadChunkT<uint32_t>(chunk, num_values);
    case 64:
      return ReadChunkT<uint64_t>(chunk, num_values);
    default:
      return Status::NotImplemented("variable-width chunks with ", offset_bits,
                                    "-bit offsets");
  }
}

template <typename OffsetT>
Result<BufferPtr> WriteVariableBlock(const OffsetT* offsets, const uint8_t* data,
                                     int64_t num_values) {
  constexpr int64_t w = sizeof(OffsetT);
  BufferBuilder out;
  const OffsetT base = offsets[0];
  const OffsetT bits = static_cast<OffsetT>(w * 8);
  const OffsetT bytes_start = static_cast<OffsetT>(2 * w + (num_values + 1) * w);
  LANCE_RETURN_NOT_OK(out.Append(&bits, w));
  LANCE_RETURN_NOT_OK(out.Append(&bytes_start, w));
  for (int64_t i = 0; i <= num_values; ++i) {
    const OffsetT o = static_cast<OffsetT>(offsets[i] - base);
    LANCE_RETURN_NOT_OK(out.Append(&o, w));
  }
  LANCE_RETURN_NOT_OK(
      out.Append(data + base, static_cast<int64_t>(offsets[num_values] - base)));
  return out.Finish();
}

Result<DataBlock> ReadVariableBlock(const BufferPtr& block, int64_t num_values) {
  const uint8_t* p = block->data();
  const int64_t size = block->size();
  if (size < 4) {
    return Status::Corrupt("variable-width block of ", size, " bytes has no header");
  }
  const bool old_layout = p[1] != 0 || p[2] != 0 || p[3] != 0;
  if (old_layout) {
    // u8 bits, then the value count and bytes_start at the offset width.
    if (p[0] == 32) {
      if (size < 9) return Status::Corrupt("variable-width block header is truncated");
      return ReadBlockT<uint32_t>(block, 9, LoadLE<uint32_t>(p + 5), num_values);
    }
    if (p[0] == 64) {
      if (size < 17) return Status::Corrupt("variable-width block header is truncated");
      const uint64_t start = LoadLE<uint64_t>(p + 9);
      if (start > static_cast<uint64_t>(size)) {
        return Status::Corrupt("variable-width block values start past its end");
      }
      return ReadBlockT<uint64_t>(block, 17, static_cast<int64_t>(start), num_values);
    }
    return Status::Corrupt("variable-width block declares ", p[0], "-bit offsets");
  }
  const uint32_t bits = LoadLE<uint32_t>(p);
  if ((bits & 0xFF) == 32) {
    if (size < 8) return Status::Corrupt("variable-width block header is truncated");
    return ReadBlockT<uint32_t>(block, 8, LoadLE<uint32_t>(p + 4), num_values);
  }
  if ((bits & 0xFF) == 64) {
    if (size < 16) return Status::Corrupt("variable-width block header is truncated");
    const uint64_t start = LoadLE<uint64_t>(p + 8);
    if (start > static_cast<uint64_t>(size)) {
      return Status::Corrupt("variable-width block values start past its end");
    }
    return ReadBlockT<uint64_t>(block, 16, static_cast<int64_t>(start), num_values);
  }
  return Status::Corrupt("variable-width block declares ", bits & 0xFF, "-bit offsets");
}

template std::vector<VariableChunk> PlanVariableChunks<uint32_t>(const uint32_t*, int64_t,
                                                                 int64_t, int64_t);
template std::vector<VariableChunk> PlanVariableChunks<uint64_t>(const uint64_t*, int64_t,
                                                                 int64_t, int64_t);
template Status WriteVariableChunk<uint32_t>(const uint32_t*, const uint8_t*, int64_t,
                                             int64_t, BufferBuilder*);
template Status WriteVariableChunk<uint64_t>(const uint64_t*, const uint8_t*, int64_t,
                                             int64_t, BufferBuilder*);
template Result<BufferPtr> WriteVariableBlock<uint32_t>(const uint32_t*, const uint8_t*,
                                                        int64_t);
template Result<BufferPtr> WriteVariableBlock<uint64_t>(const uint64_t*, const uint8_t*,
                                                        int64_t);

}  // namespace lance::format::codecs

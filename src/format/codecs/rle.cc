// SPDX-License-Identifier: Apache-2.0
// Run-length encoding; see rle.h.

#include "format/codecs/rle.h"

#include <cstring>
#include <string>

#include "format/codecs/codec_util.h"
#include "lance/macros.h"

namespace lance::format::codecs {

namespace {

uint64_t MaxRunLength(int length_bytes) {
  return length_bytes >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * length_bytes)) - 1;
}

// Values are read with memcpy loads: callers' buffers need not be aligned.
template <typename T>
inline T At(const uint8_t* v, int64_t i) {
  return LoadLE<T>(v + static_cast<int64_t>(sizeof(T)) * i);
}

template <typename T>
int64_t EncodedSizeT(const uint8_t* v, int64_t n, int length_bytes) {
  if (n == 0) return 0;
  const uint64_t max_run = MaxRunLength(length_bytes);
  const int64_t per_run = static_cast<int64_t>(sizeof(T)) + length_bytes;
  int64_t total = 0;
  uint64_t run = 1;
  for (int64_t i = 1; i < n; ++i) {
    if (At<T>(v, i) == At<T>(v, i - 1)) {
      ++run;
    } else {
      total += static_cast<int64_t>((run + max_run - 1) / max_run) * per_run;
      run = 1;
    }
  }
  return total + static_cast<int64_t>((run + max_run - 1) / max_run) * per_run;
}

template <typename T>
Status EncodeT(const uint8_t* v, int64_t n, int length_bytes, BufferBuilder* values,
               BufferBuilder* lengths) {
  if (n == 0) return Status::OK();
  const uint64_t max_run = MaxRunLength(length_bytes);
  auto emit = [&](T value, uint64_t run) -> Status {
    while (run > 0) {
      const uint64_t piece = run < max_run ? run : max_run;
      LANCE_RETURN_NOT_OK(values->Append(&value, sizeof(T)));
      uint8_t len[8];
      StoreLE<uint64_t>(len, piece);
      LANCE_RETURN_NOT_OK(lengths->Append(len, length_bytes));
      run -= piece;
    }
    return Status::OK();
  };
  T current = At<T>(v, 0);
  uint64_t run = 1;
  for (int64_t i = 1; i < n; ++i) {
    const T x = At<T>(v, i);
    if (x == current) {
      ++run;
    } else {
      LANCE_RETURN_NOT_OK(emit(current, run));
      current = x;
      run = 1;
    }
  }
  return emit(current, run);
}

template <typename T>
Status DecodeT(const uint8_t* values, int64_t num_runs, int length_bytes,
               const uint8_t* lengths, int64_t num_values, bool clamp,
               uint8_t* dst_bytes) {
  T* dst = reinterpret_cast<T*>(dst_bytes);
  int64_t pos = 0;
  for (int64_t r = 0; r < num_runs; ++r) {
    uint64_t len;
    switch (length_bytes) {
      case 1:
        len = lengths[r];
        break;
      case 2:
        len = LoadLE<uint16_t>(lengths + 2 * r);
        break;
      default:
        len = LoadLE<uint32_t>(lengths + 4 * r);
        break;
    }
    if (len == 0) return Status::Corrupt("RLE run ", r, " has length zero");
    const uint64_t remaining = static_cast<uint64_t>(num_values - pos);
    // As Lance: a run past the end is cut (mini-block) or corrupt (block); runs after
    // the one that ends exactly at the end are still checked for length zero.
    const bool overshoots = len > remaining;
    if (overshoots) {
      if (!clamp) {
        return Status::Corrupt("RLE runs cover more than the expected ", num_values,
                               " values");
      }
      len = remaining;
    }
    const T value = LoadLE<T>(values + sizeof(T) * r);
    for (uint64_t k = 0; k < len; ++k) dst[pos + static_cast<int64_t>(k)] = value;
    pos += static_cast<int64_t>(len);
    if (overshoots) break;
  }
  if (pos != num_values) {
    return Status::Corrupt("RLE runs cover ", pos, " values, expected ", num_values);
  }
  return Status::OK();
}

bool ValidWidths(int value_bytes, int length_bytes) {
  return (value_bytes == 1 || value_bytes == 2 || value_bytes == 4 || value_bytes == 8) &&
         (length_bytes == 1 || length_bytes == 2 || length_bytes == 4);
}

}  // namespace

int64_t RleEncodedSize(int value_bytes, const uint8_t* data, int64_t n,
                       int length_bytes) {
  switch (value_bytes) {
    case 1:
      return EncodedSizeT<uint8_t>(data, n, length_bytes);
    case 2:
      return EncodedSizeT<uint16_t>(data, n, length_bytes);
    case 4:
      return EncodedSizeT<uint32_t>(data, n, length_bytes);
    case 8:
      return EncodedSizeT<uint64_t>(data, n, length_bytes);
    default:
      return -1;
  }
}

Status RleEncode(int value_bytes, const uint8_t* data, int64_t n, int length_bytes,
                 BufferBuilder* values, BufferBuilder* lengths) {
  if (!ValidWidths(value_bytes, length_bytes)) {
    return Status::Invalid("RLE of ", value_bytes, "-byte values with ", length_bytes,
                           "-byte run lengths");
  }
  switch (value_bytes) {
    case 1:
      return EncodeT<uint8_t>(data, n, length_bytes, values, lengths);
    case 2:
      return EncodeT<uint16_t>(data, n, length_bytes, values, lengths);
    case 4:
      return EncodeT<uint32_t>(data, n, length_bytes, values, lengths);
    default:
      return EncodeT<uint64_t>(data, n, length_bytes, values, lengths);
  }
}

Status RleDecode(int value_bytes, const uint8_t* values, int64_t values_size,
                 int length_bytes, const uint8_t* lengths, int64_t lengths_size,
                 int64_t num_values, bool clamp_overflow, uint8_t* dst) {
  if (!ValidWidths(value_bytes, length_bytes)) {
    return Status::NotImplemented("RLE of ", value_bytes * 8, "-bit values with ",
                                  length_bytes * 8, "-bit run lengths");
  }
  if (num_values == 0) return Status::OK();
  if (values_size % value_bytes != 0 || lengths_size % length_bytes != 0) {
    return Status::Corrupt("RLE buffers of ", values_size, " and ", lengths_size,
                           " bytes do not hold whole ", value_bytes, "-byte values and ",
                           length_bytes, "-byte run lengths");
  }
  const int64_t num_runs = values_size / value_bytes;
  if (num_runs != lengths_size / length_bytes) {
    return Status::Corrupt("RLE has ", num_runs, " run values but ",
                           lengths_size / length_bytes, " run lengths");
  }
  switch (value_bytes) {
    case 1:
      return DecodeT<uint8_t>(values, num_runs, length_bytes, lengths, num_values,
                              clamp_overflow, dst);
    case 2:
      return DecodeT<uint16_t>(values, num_runs, length_bytes, lengths, num_values,
                               clamp_overflow, dst);
    case 4:
      return DecodeT<uint32_t>(values, num_runs, length_bytes, lengths, num_values,
                               clamp_overflow, dst);
    default:
      return DecodeT<uint64_t>(values, num_runs, length_bytes, lengths, num_values,
                               clamp_overflow, dst);
  }
}

Status RleEncodeMiniBlock(int value_bytes, const uint8_t* data, int64_t n,
                          BufferBuilder* values, BufferBuilder* lengths,
                          std::vector<RleChunk>* chunks, int64_t max_chunk_values,
                          int64_t max_chunk_bytes) {
  if (!ValidWidths(value_bytes, 1)) {
    return Status::Invalid("RLE of ", value_bytes, "-byte values");
  }
  int64_t offset = 0;
  while (offset < n) {
    const int64_t remaining = n - offset;
    const uint8_t* start = data + offset * value_bytes;
    const int64_t window = remaining < max_chunk_values ? remaining : max_chunk_values;
    int64_t take = 0;
    bool last = false;
    if (remaining <= max_chunk_values &&
        RleEncodedSize(value_bytes, start, window, 1) <= max_chunk_bytes) {
      take = window;
      last = true;
    } else {
      int64_t prefix = int64_t{1}
                       << (63 - __builtin_clzll(static_cast<uint64_t>(window)));
      while (prefix > 1) {
        if (RleEncodedSize(value_bytes, start, prefix, 1) <= max_chunk_bytes) break;
        prefix >>= 1;
      }
      if (prefix <= 1) {
        return Status::Invalid("RLE cannot fit two values into a mini-block chunk");
      }
      take = prefix;
    }
    RleChunk chunk;
    chunk.num_values = take;
    chunk.log_num_values = last ? 0 : 63 - __builtin_clzll(static_cast<uint64_t>(take));
    const int64_t v0 = values->length();
    const int64_t l0 = lengths->length();
    LANCE_RETURN_NOT_OK(RleEncode(value_bytes, start, take, 1, values, lengths));
    chunk.values_bytes = values->length() - v0;
    chunk.lengths_bytes = lengths->length() - l0;
    chunks->push_back(chunk);
    offset += take;
  }
  return Status::OK();
}

Result<BufferPtr> RleEncodeBlock(int value_bytes, const uint8_t* data, int64_t n,
                                 int length_bytes) {
  BufferBuilder values, lengths, out;
  LANCE_RETURN_NOT_OK(RleEncode(value_bytes, data, n, length_bytes, &values, &lengths));
  uint8_t header[8];
  StoreLE<uint64_t>(header, static_cast<uint64_t>(values.length()));
  LANCE_RETURN_NOT_OK(out.Append(header, 8));
  LANCE_RETURN_NOT_OK(out.Append(values.data(), values.length()));
  LANCE_RETURN_NOT_OK(out.Append(lengths.data(), lengths.length()));
  return out.Finish();
}

}  // namespace lance::format::codecs

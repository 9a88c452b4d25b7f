// SPDX-License-Identifier: Apache-2.0
// LZ4 and ZSTD with Lance's framing; see general.h.

#include "format/codecs/general.h"

#include <lz4.h>
#include <zstd.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "format/codecs/codec_util.h"
#include "lance/macros.h"

namespace lance::format::codecs {

namespace pb21 = lance::encodings21;

namespace {

constexpr uint32_t kZstdMagic = 0xFD2FB528u;

// One zstd context per thread and direction: creating one per call costs more than
// compressing a 4 KiB chunk.
ZSTD_CCtx* ThreadCCtx() {
  thread_local std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> ctx(ZSTD_createCCtx(),
                                                                      &ZSTD_freeCCtx);
  return ctx.get();
}

ZSTD_DCtx* ThreadDCtx() {
  thread_local std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(),
                                                                      &ZSTD_freeDCtx);
  return ctx.get();
}

// Lance's test for "this is a bare zstd stream, not a length-prefixed one".
bool IsBareZstd(const uint8_t* data, int64_t size) {
  if (size < 8) return true;
  return LoadLE<uint32_t>(data) == kZstdMagic && (data[4] & 0x10) == 0;
}

Result<BufferPtr> DecompressBareZstd(const uint8_t* data, int64_t size, int64_t expected,
                                     int64_t max_bytes) {
  const int64_t limit = expected >= 0 ? expected : max_bytes;
  ZSTD_DStream* stream = ZSTD_createDStream();
  if (stream == nullptr) return Status::IOError("out of memory creating a zstd stream");
  BufferBuilder builder;
  ZSTD_inBuffer in{data, static_cast<size_t>(size), 0};
  std::vector<uint8_t> chunk(ZSTD_DStreamOutSize());
  Status st;
  size_t last = 1;
  while (st.ok()) {
    ZSTD_outBuffer o{chunk.data(), chunk.size(), 0};
    last = ZSTD_decompressStream(stream, &o, &in);
    if (ZSTD_isError(last)) {
      st = Status::Corrupt(std::string("zstd stream does not decompress: ") +
                           ZSTD_getErrorName(last));
      break;
    }
    if (builder.length() + static_cast<int64_t>(o.pos) > limit) {
      st = Status::Corrupt("zstd stream decompresses to more than the ", limit,
                           " bytes allowed");
      break;
    }
    st = builder.Append(chunk.data(), static_cast<int64_t>(o.pos));
    if (in.pos == in.size && o.pos < o.size) break;
  }
  ZSTD_freeDStream(stream);
  LANCE_RETURN_NOT_OK(st);
  if (last != 0) return Status::Corrupt("truncated zstd stream");
  if (expected >= 0 && builder.length() != expected) {
    return Status::Corrupt("zstd stream decompresses to ", builder.length(),
                           " bytes, expected ", expected);
  }
  if (builder.length() == 0) return internal::EmptyBuffer();
  return builder.Finish();
}

}  // namespace

const char* SchemeName(pb21::CompressionScheme scheme) {
  switch (scheme) {
    case pb21::COMPRESSION_ALGORITHM_LZ4:
      return "lz4";
    case pb21::COMPRESSION_ALGORITHM_ZSTD:
      return "zstd";
    default:
      return "unspecified";
  }
}

Status GeneralCompress(pb21::CompressionScheme scheme, std::optional<int> level,
                       const uint8_t* data, int64_t size, BufferBuilder* out) {
  if (size < 0) return Status::Invalid("compressing a negative number of bytes");
  switch (scheme) {
    case pb21::COMPRESSION_ALGORITHM_ZSTD: {
      ZSTD_CCtx* cctx = ThreadCCtx();
      if (cctx == nullptr)
        return Status::IOError("out of memory creating a zstd context");
      const size_t bound = ZSTD_compressBound(static_cast<size_t>(size));
      std::vector<uint8_t> tmp(bound + 1);
      static const uint8_t kNothing[1] = {0};
      const size_t n =
          ZSTD_compressCCtx(cctx, tmp.data(), bound, size > 0 ? data : kNothing,
                            static_cast<size_t>(size), level.value_or(0));
      if (ZSTD_isError(n)) {
        return Status::Invalid(std::string("zstd compression failed: ") +
                               ZSTD_getErrorName(n));
      }
      uint8_t header[8];
      StoreLE<uint64_t>(header, static_cast<uint64_t>(size));
      LANCE_RETURN_NOT_OK(out->Append(header, 8));
      return out->Append(tmp.data(), static_cast<int64_t>(n));
    }
    case pb21::COMPRESSION_ALGORITHM_LZ4: {
      if (size > LZ4_MAX_INPUT_SIZE) {
        return Status::Invalid("a buffer of ", size, " bytes is too large for LZ4");
      }
      const int bound = LZ4_compressBound(static_cast<int>(size));
      std::vector<char> tmp(static_cast<size_t>(bound) + 1);
      const int n = LZ4_compress_default(reinterpret_cast<const char*>(data), tmp.data(),
                                         static_cast<int>(size), bound);
      if (n <= 0 && size > 0) return Status::Invalid("lz4 compression failed");
      uint8_t header[4];
      StoreLE<uint32_t>(header, static_cast<uint32_t>(size));
      LANCE_RETURN_NOT_OK(out->Append(header, 4));
      return out->Append(tmp.data(), n);
    }
    default:
      return Status::NotImplemented("general compression scheme ",
                                    std::to_string(static_cast<int>(scheme)));
  }
}

Result<int64_t> GeneralDeclaredSize(pb21::CompressionScheme scheme, const uint8_t* data,
                                    int64_t size) {
  switch (scheme) {
    case pb21::COMPRESSION_ALGORITHM_ZSTD: {
      if (size == 0) return int64_t{0};
      if (IsBareZstd(data, size)) {
        const unsigned long long n =
            ZSTD_getFrameContentSize(data, static_cast<size_t>(size));
        if (n == ZSTD_CONTENTSIZE_ERROR) return Status::Corrupt("not a zstd frame");
        if (n == ZSTD_CONTENTSIZE_UNKNOWN) return int64_t{-1};
        if (n > static_cast<unsigned long long>(internal::kMaxBlockBytes)) {
          return Status::Corrupt("zstd frame declares ", n, " bytes");
        }
        return static_cast<int64_t>(n);
      }
      const uint64_t n = LoadLE<uint64_t>(data);
      if (n > static_cast<uint64_t>(internal::kMaxBlockBytes)) {
        return Status::Corrupt("zstd length prefix ", n, " is implausibly large");
      }
      return static_cast<int64_t>(n);
    }
    case pb21::COMPRESSION_ALGORITHM_LZ4:
      if (size < 4)
        return Status::Corrupt("lz4 buffer of ", size, " bytes has no length prefix");
      return static_cast<int64_t>(LoadLE<uint32_t>(data));
    default:
      return Status::NotImplemented("general compression scheme ",
                                    std::to_string(static_cast<int>(scheme)));
  }
}

Result<BufferPtr> GeneralDecompress(pb21::CompressionScheme scheme, const uint8_t* data,
                                    int64_t size, int64_t expected, int64_t max_bytes) {
  switch (scheme) {
    case pb21::COMPRESSION_ALGORITHM_ZSTD: {
      if (size == 0) {
        if (expected > 0) {
          return Status::Corrupt("empty zstd buffer, expected ", expected, " bytes");
        }
        return internal::EmptyBuffer();
      }
      if (IsBareZstd(data, size))
        return DecompressBareZstd(data, size, expected, max_bytes);
      const uint64_t n = LoadLE<uint64_t>(data);
      if ((expected >= 0 && n != static_cast<uint64_t>(expected)) ||
          (expected < 0 && n > static_cast<uint64_t>(max_bytes))) {
        return Status::Corrupt(
            "zstd length prefix ", n,
            (expected >= 0
                 ? " is not the expected " + std::to_string(expected)
                 : " exceeds the " + std::to_string(max_bytes) + " bytes allowed"));
      }
      LANCE_ASSIGN_OR_RAISE(BufferPtr out,
                            internal::AllocateOut(static_cast<int64_t>(n)));
      ZSTD_DCtx* dctx = ThreadDCtx();
      if (dctx == nullptr)
        return Status::IOError("out of memory creating a zstd context");
      const size_t r =
          ZSTD_decompressDCtx(dctx, out->mutable_data(), static_cast<size_t>(n), data + 8,
                              static_cast<size_t>(size - 8));
      if (ZSTD_isError(r)) {
        return Status::Corrupt(std::string("zstd data does not decompress: ") +
                               ZSTD_getErrorName(r));
      }
      if (r != n) {
        return Status::Corrupt("zstd data decompresses to ", r,
                               " bytes, its prefix says ", n);
      }
      return out;
    }
    case pb21::COMPRESSION_ALGORITHM_LZ4: {
      if (size < 4) {
        return Status::Corrupt("lz4 buffer of ", size, " bytes has no length prefix");
      }
      const uint32_t n = LoadLE<uint32_t>(data);
      if ((expected >= 0 && static_cast<int64_t>(n) != expected) ||
          (expected < 0 && static_cast<int64_t>(n) > max_bytes)) {
        return Status::Corrupt(
            "lz4 length prefix ", n,
            (expected >= 0
                 ? " is not the expected " + std::to_string(expected)
                 : " exceeds the " + std::to_string(max_bytes) + " bytes allowed"));
      }
      if (size - 4 > std::numeric_limits<int>::max() ||
          n > static_cast<uint32_t>(std::numeric_limits<int>::max())) {
        return Status::Corrupt("lz4 buffer too large");
      }
      LANCE_ASSIGN_OR_RAISE(BufferPtr out, internal::AllocateOut(n));
      const int r = LZ4_decompress_safe(reinterpret_cast<const char*>(data + 4),
                                        reinterpret_cast<char*>(out->mutable_data()),
                                        static_cast<int>(size - 4), static_cast<int>(n));
      if (r < 0) return Status::Corrupt("lz4 data does not decompress");
      if (static_cast<uint32_t>(r) != n) {
        return Status::Corrupt("lz4 data decompresses to ", r, " bytes, its prefix says ",
                               n);
      }
      return out;
    }
    default:
      return Status::NotImplemented("general compression scheme ",
                                    std::to_string(static_cast<int>(scheme)));
  }
}

}  // namespace lance::format::codecs

// SPDX-License-Identifier: Apache-2.0

#include <lz4frame.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "ipc/compression_internal.h"
#include "lance/core/enum_names.h"
#include "lance/macros.h"

namespace lance::ipc {

namespace {

// NUL-terminated literals: IpcCompressionName hands out a const char*.
constexpr auto kCompressionNames =
    MakeEnumNames<IpcCompression>("none", "lz4_frame", "zstd");
static_assert(kCompressionNames.size() == EnumCount(IpcCompression::kZstd));

}  // namespace

const char* IpcCompressionName(IpcCompression compression) {
  return kCompressionNames.Name(compression, "unknown").data();
}

namespace internal {

namespace {

constexpr int64_t kPrefixSize = 8;
constexpr int64_t kNotCompressed = -1;

// The most output a codec can produce per input byte bounds the declared length of a
// buffer before anything is allocated, so that a corrupt prefix cannot ask for
// terabytes. Zstandard's densest encoding is an RLE block (4 bytes for 128 KiB, 32768:1);
// LZ4 needs one length byte per 255 bytes of match. Both limits get a generous margin.
int64_t MaxDecompressedSize(IpcCompression codec, int64_t compressed_size) {
  const int64_t ratio = codec == IpcCompression::kZstd ? 65536 : 512;
  return compressed_size * ratio + 65536;
}

void StoreLength(uint8_t* dst, int64_t length) {
  // The format is little-endian; so is every platform lance builds on.
  std::memcpy(dst, &length, sizeof(length));
}

Result<int64_t> CompressZstd(int level, const Buffer& data, uint8_t* dst, int64_t cap) {
  const size_t n = ZSTD_compress(dst, static_cast<size_t>(cap), data.data(),
                                 static_cast<size_t>(data.size()), level);
  if (ZSTD_isError(n)) {
    return Status::Unknown(std::string("zstd compression failed: ") +
                           ZSTD_getErrorName(n));
  }
  return static_cast<int64_t>(n);
}

Result<int64_t> CompressLz4(const Buffer& data, uint8_t* dst, int64_t cap) {
  LZ4F_preferences_t prefs;
  std::memset(&prefs, 0, sizeof(prefs));
  // Recording the content size lets any reader check the result, at no cost.
  prefs.frameInfo.contentSize = static_cast<unsigned long long>(data.size());
  const size_t n = LZ4F_compressFrame(dst, static_cast<size_t>(cap), data.data(),
                                      static_cast<size_t>(data.size()), &prefs);
  if (LZ4F_isError(n)) {
    return Status::Unknown(std::string("lz4 frame compression failed: ") +
                           LZ4F_getErrorName(n));
  }
  return static_cast<int64_t>(n);
}

int64_t CompressBound(IpcCompression codec, int64_t size) {
  if (codec == IpcCompression::kZstd) {
    return static_cast<int64_t>(ZSTD_compressBound(static_cast<size_t>(size)));
  }
  LZ4F_preferences_t prefs;
  std::memset(&prefs, 0, sizeof(prefs));
  prefs.frameInfo.contentSize = static_cast<unsigned long long>(size);
  return static_cast<int64_t>(LZ4F_compressFrameBound(static_cast<size_t>(size), &prefs));
}

Status DecompressZstd(const uint8_t* src, int64_t src_size, uint8_t* dst,
                      int64_t declared) {
  // A frame header that records its own content size must agree with the prefix.
  const unsigned long long content_size =
      ZSTD_getFrameContentSize(src, static_cast<size_t>(src_size));
  if (content_size == ZSTD_CONTENTSIZE_ERROR) {
    return Status::Corrupt("zstd buffer does not start with a valid zstd frame");
  }
  if (content_size != ZSTD_CONTENTSIZE_UNKNOWN &&
      content_size != static_cast<unsigned long long>(declared)) {
    return Status::Corrupt("zstd frame holds ", content_size,
                           " bytes but the buffer declares ", declared);
  }
  const size_t n = ZSTD_decompress(dst, static_cast<size_t>(declared), src,
                                   static_cast<size_t>(src_size));
  if (ZSTD_isError(n)) {
    return Status::Corrupt(std::string("zstd buffer does not decompress: ") +
                           ZSTD_getErrorName(n));
  }
  if (static_cast<int64_t>(n) != declared) {
    return Status::Corrupt("zstd buffer decompressed to ", n, " bytes but declares ",
                           declared);
  }
  return Status::OK();
}

Status DecompressLz4(const uint8_t* src, int64_t src_size, uint8_t* dst,
                     int64_t declared) {
  LZ4F_dctx* raw_ctx = nullptr;
  const size_t created = LZ4F_createDecompressionContext(&raw_ctx, LZ4F_VERSION);
  if (LZ4F_isError(created)) {
    return Status::Unknown(std::string("cannot create an lz4 decompression context: ") +
                           LZ4F_getErrorName(created));
  }
  std::unique_ptr<LZ4F_dctx, decltype(&LZ4F_freeDecompressionContext)> ctx(
      raw_ctx, &LZ4F_freeDecompressionContext);
  int64_t src_pos = 0;
  int64_t dst_pos = 0;
  size_t hint = 1;  // non-zero while a frame is incomplete
  // Writers may emit several frames back to back; the context starts a new frame after
  // completing one. Every round must consume input or produce output, so a malformed
  // frame cannot make this loop spin.
  while (src_pos < src_size) {
    size_t dst_size = static_cast<size_t>(declared - dst_pos);
    size_t in_size = static_cast<size_t>(src_size - src_pos);
    hint = LZ4F_decompress(ctx.get(), dst + dst_pos, &dst_size, src + src_pos, &in_size,
                           nullptr);
    if (LZ4F_isError(hint)) {
      return Status::Corrupt(std::string("lz4 buffer does not decompress: ") +
                             LZ4F_getErrorName(hint));
    }
    src_pos += static_cast<int64_t>(in_size);
    dst_pos += static_cast<int64_t>(dst_size);
    if (hint != 0 && in_size == 0 && dst_size == 0) {
      return Status::Corrupt("lz4 buffer decompresses to more than the declared ",
                             declared, " bytes");
    }
  }
  if (hint != 0) return Status::Corrupt("lz4 buffer ends inside a frame (truncated)");
  if (dst_pos != declared) {
    return Status::Corrupt("lz4 buffer decompressed to ", dst_pos, " bytes but declares ",
                           declared);
  }
  return Status::OK();
}

}  // namespace

Status ValidateZstdLevel(int level) {
  if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
    return Status::Invalid("zstd level ", level, " is outside [", ZSTD_minCLevel(), ", ",
                           ZSTD_maxCLevel(), "]");
  }
  return Status::OK();
}

Result<BufferPtr> CompressBodyBuffer(IpcCompression codec, int zstd_level,
                                     const Buffer& data) {
  const int64_t bound = CompressBound(codec, data.size());
  // Room for whichever form is kept: compressed, or the raw bytes behind a -1.
  LANCE_ASSIGN_OR_RAISE(BufferPtr out,
                        Buffer::Allocate(kPrefixSize + std::max(bound, data.size())));
  uint8_t* dst = out->mutable_data();
  int64_t compressed_size = 0;
  if (codec == IpcCompression::kZstd) {
    LANCE_ASSIGN_OR_RAISE(compressed_size,
                          CompressZstd(zstd_level, data, dst + kPrefixSize, bound));
  } else {
    LANCE_ASSIGN_OR_RAISE(compressed_size, CompressLz4(data, dst + kPrefixSize, bound));
  }
  if (compressed_size < data.size()) {
    StoreLength(dst, data.size());
    out->Resize(kPrefixSize + compressed_size);
  } else {
    // Incompressible (small or random) buffers would only grow, and readers would pay
    // for decompressing them; the format's -1 marker stores them as is.
    StoreLength(dst, kNotCompressed);
    std::memcpy(dst + kPrefixSize, data.data(), static_cast<size_t>(data.size()));
    out->Resize(kPrefixSize + data.size());
  }
  return out;
}

Result<BufferPtr> DecompressBodyBuffer(IpcCompression codec, const BufferPtr& stored) {
  if (stored->size() == 0) return stored;
  if (stored->size() < kPrefixSize) {
    return Status::Corrupt("compressed buffer of ", std::to_string(stored->size()),
                           " bytes is shorter than its 8-byte length prefix");
  }
  int64_t declared = 0;
  std::memcpy(&declared, stored->data(), sizeof(declared));
  const int64_t src_size = stored->size() - kPrefixSize;
  if (declared == kNotCompressed) return Buffer::Slice(stored, kPrefixSize, src_size);
  if (declared < 0) {
    return Status::Corrupt("compressed buffer declares a negative length ", declared);
  }
  if (declared > MaxDecompressedSize(codec, src_size)) {
    return Status::Corrupt("compressed buffer declares ", declared, " bytes, more than ",
                           IpcCompressionName(codec), " can produce from ", src_size,
                           " bytes");
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, Buffer::Allocate(declared));
  if (declared == 0) return out;
  const uint8_t* src = stored->data() + kPrefixSize;
  if (codec == IpcCompression::kZstd) {
    LANCE_RETURN_NOT_OK(DecompressZstd(src, src_size, out->mutable_data(), declared));
  } else {
    LANCE_RETURN_NOT_OK(DecompressLz4(src, src_size, out->mutable_data(), declared));
  }
  return out;
}

}  // namespace internal
}  // namespace lance::ipc

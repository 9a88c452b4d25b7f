// SPDX-License-Identifier: Apache-2.0
// Internal: constants and footer framing of the Lance v2.x file container.
//
//   [page buffers, each padded to 64 bytes with 0x48]
//   [global buffer 0 = FileDescriptor] [ColumnMetadata 0..C-1]
//   [CMO table: C x (u64 pos, u64 size)] [GBO table: G x (u64 pos, u64 size)]
//   [footer: u64 column_meta_start, u64 cmo_table_start, u64 gbo_table_start,
//            u32 num_global_buffers, u32 num_columns, u16 major, u16 minor, "LANC"]

#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "lance/core/byte_order.h"

namespace lance::format::internal {

inline constexpr int64_t kFooterSize = 40;
inline constexpr std::string_view kMagic = "LANC";
/// Page buffers start on this boundary; v2.1 readers insist on it.
inline constexpr int64_t kPageAlignment = 64;
/// Real Lance pads with 'H'; readers never look at the padding.
inline constexpr uint8_t kPadByte = 0x48;

inline constexpr std::string_view kArrayEncodingUrl = "/lance.encodings.ArrayEncoding";
inline constexpr std::string_view kColumnEncodingUrl = "/lance.encodings.ColumnEncoding";
inline constexpr std::string_view kPageLayoutUrl = "/lance.encodings21.PageLayout";

/// v2.0 files say 0.3 in the footer (and 2.0 in manifests); readers accept both.
inline constexpr uint16_t kV20FooterMajor = 0;
inline constexpr uint16_t kV20FooterMinor = 3;

struct Footer {
  uint64_t column_meta_start = 0;
  uint64_t cmo_table_start = 0;
  uint64_t gbo_table_start = 0;
  uint32_t num_global_buffers = 0;
  uint32_t num_columns = 0;
  uint16_t major = 0;
  uint16_t minor = 0;
};

/// \brief Serializes `footer` into exactly kFooterSize bytes (magic included).
inline std::string EncodeFooter(const Footer& footer) {
  std::string out(kFooterSize, '\0');
  auto* p = reinterpret_cast<uint8_t*>(out.data());
  StoreLE<uint64_t>(p, footer.column_meta_start);
  StoreLE<uint64_t>(p + 8, footer.cmo_table_start);
  StoreLE<uint64_t>(p + 16, footer.gbo_table_start);
  StoreLE<uint32_t>(p + 24, footer.num_global_buffers);
  StoreLE<uint32_t>(p + 28, footer.num_columns);
  StoreLE<uint16_t>(p + 32, footer.major);
  StoreLE<uint16_t>(p + 34, footer.minor);
  std::memcpy(p + 36, kMagic.data(), 4);
  return out;
}

/// \brief Parses the last kFooterSize bytes of a file. REQUIRES: the magic was checked.
inline Footer DecodeFooter(const uint8_t* p) {
  Footer f;
  f.column_meta_start = LoadLE<uint64_t>(p);
  f.cmo_table_start = LoadLE<uint64_t>(p + 8);
  f.gbo_table_start = LoadLE<uint64_t>(p + 16);
  f.num_global_buffers = LoadLE<uint32_t>(p + 24);
  f.num_columns = LoadLE<uint32_t>(p + 28);
  f.major = LoadLE<uint16_t>(p + 32);
  f.minor = LoadLE<uint16_t>(p + 34);
  return f;
}

}  // namespace lance::format::internal

// SPDX-License-Identifier: Apache-2.0
// Test helper: parses a v2 file's footer and metadata from its bytes, trusting nothing
// beyond what the tests need (only used on files the tests wrote or ship).

#pragma once

#include <google/protobuf/any.pb.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "format/proto/encodings_v2_0.pb.h"
#include "format/proto/file2.pb.h"
#include "format/v2_container.h"
#include "lance/result.h"

namespace lance::format::testing {

struct FileInfo {
  internal::Footer footer;
  lance::file::v2::FileDescriptor descriptor;
  std::vector<lance::file::v2::ColumnMetadata> columns;
  uint64_t descriptor_pos = 0;
};

inline Result<FileInfo> InspectFile(std::string_view bytes) {
  if (bytes.size() < 40) return Status::Invalid("too small");
  const auto* base = reinterpret_cast<const uint8_t*>(bytes.data());
  FileInfo info;
  info.footer = internal::DecodeFooter(base + bytes.size() - 40);
  const uint8_t* gbo = base + info.footer.gbo_table_start;
  info.descriptor_pos = LoadLE<uint64_t>(gbo);
  const uint64_t len = LoadLE<uint64_t>(gbo + 8);
  if (!info.descriptor.ParseFromArray(base + info.descriptor_pos,
                                      static_cast<int>(len))) {
    return Status::Invalid("descriptor");
  }
  for (uint32_t c = 0; c < info.footer.num_columns; ++c) {
    const uint8_t* e = base + info.footer.cmo_table_start + 16 * c;
    lance::file::v2::ColumnMetadata meta;
    if (!meta.ParseFromArray(base + LoadLE<uint64_t>(e),
                             static_cast<int>(LoadLE<uint64_t>(e + 8)))) {
      return Status::Invalid("column metadata");
    }
    info.columns.push_back(std::move(meta));
  }
  return info;
}

inline lance::encodings::ArrayEncoding PageEncoding(
    const lance::file::v2::ColumnMetadata::Page& page) {
  google::protobuf::Any any;
  any.ParseFromString(page.encoding().direct().encoding());
  lance::encodings::ArrayEncoding enc;
  enc.ParseFromString(any.value());
  return enc;
}

/// \brief The file `bytes` with its column metadata replaced by `columns` (same count):
/// everything before the column metadata is kept, the metadata, the column and global
/// buffer offset tables and the footer are written anew. For damage that must still
/// parse as protobuf (lying lengths and counts).
inline std::string RebuildFile(
    std::string_view bytes, const FileInfo& info,
    const std::vector<lance::file::v2::ColumnMetadata>& columns) {
  std::string out(bytes.substr(0, info.footer.column_meta_start));
  std::vector<std::pair<uint64_t, uint64_t>> cmo;
  for (const auto& column : columns) {
    const std::string meta = column.SerializeAsString();
    cmo.emplace_back(out.size(), meta.size());
    out += meta;
  }
  internal::Footer footer = info.footer;
  footer.num_columns = static_cast<uint32_t>(columns.size());
  footer.cmo_table_start = out.size();
  for (const auto& [pos, size] : cmo) {
    char entry[16];
    std::memcpy(entry, &pos, 8);
    std::memcpy(entry + 8, &size, 8);
    out.append(entry, 16);
  }
  footer.gbo_table_start = out.size();
  out += bytes.substr(info.footer.gbo_table_start,
                      16 * size_t{info.footer.num_global_buffers});
  out += internal::EncodeFooter(footer);
  return out;
}

}  // namespace lance::format::testing

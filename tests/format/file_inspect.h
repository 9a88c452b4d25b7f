// SPDX-License-Identifier: Apache-2.0
// Test helper: parses a v2 file's footer and metadata from its bytes, trusting nothing
// beyond what the tests need (only used on files the tests wrote or ship).

#pragma once

#include <google/protobuf/any.pb.h>

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
  info.descriptor_pos = internal::LoadLE<uint64_t>(gbo);
  const uint64_t len = internal::LoadLE<uint64_t>(gbo + 8);
  if (!info.descriptor.ParseFromArray(base + info.descriptor_pos,
                                      static_cast<int>(len))) {
    return Status::Invalid("descriptor");
  }
  for (uint32_t c = 0; c < info.footer.num_columns; ++c) {
    const uint8_t* e = base + info.footer.cmo_table_start + 16 * c;
    lance::file::v2::ColumnMetadata meta;
    if (!meta.ParseFromArray(base + internal::LoadLE<uint64_t>(e),
                             static_cast<int>(internal::LoadLE<uint64_t>(e + 8)))) {
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

}  // namespace lance::format::testing

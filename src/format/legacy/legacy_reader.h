// SPDX-License-Identifier: Apache-2.0
// Internal: the reader of legacy Lance files (format 0.1 / 0.2, written by Lance before
// 0.18 and by pylance's data_storage_version="legacy"). Their container differs from v2:
// a 16-byte footer, a `lance.file.Metadata` message, a schema embedded as a manifest and
// a page table (layout: legacy_file.h). 0.1 and 0.2 files are read alike, as Lance does.

#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "lance/format/file_reader.h"

namespace lance::format::legacy {

/// Opens a legacy file whose last `tail->size()` bytes (starting at `tail_start`) were
/// already read and end with a legacy footer (major 0, minor 1 or 2, "LANC").
/// \return Corrupt naming the file for damaged metadata or pages that do not fit it;
/// NotImplemented naming the file and the type for what this build cannot read (and for
/// files written without an embedded schema).
Result<std::shared_ptr<LanceFileReader>> OpenLegacyFile(
    std::string path, std::shared_ptr<io::RandomAccessReader> file, bool remote,
    BufferPtr tail, int64_t tail_start);

}  // namespace lance::format::legacy

// SPDX-License-Identifier: Apache-2.0
// Internal: the reader of legacy Lance files (format 0.1 / 0.2, written by Lance before
// 0.18 and by pylance's data_storage_version="legacy"). Their container differs from v2:
// a 16-byte footer, a `lance.file.Metadata` message and a page table.

#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "lance/format/file_reader.h"

namespace lance::format::legacy {

/// Opens a legacy file whose last `tail->size()` bytes (starting at `tail_start`) were
/// already read and end with a legacy footer (major 0, minor 1 or 2, "LANC").
/// \return Corrupt naming the file for damaged metadata; NotImplemented naming the file
/// and the encoding or type for what this build cannot read.
Result<std::shared_ptr<LanceFileReader>> OpenLegacyFile(
    std::string path, std::shared_ptr<io::RandomAccessReader> file, bool remote,
    BufferPtr tail, int64_t tail_start);

}  // namespace lance::format::legacy

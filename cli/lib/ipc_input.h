// SPDX-License-Identifier: Apache-2.0
// Arrow IPC input for `import`, read incrementally: the stream format message by message
// from the descriptor (stdin works), the file format as its footer and then one record
// batch block at a time by positional reads. Each batch is decoded by lance::ipc's
// in-memory stream reader from a small buffer holding the schema message, the dictionary
// messages met so far and that one batch, so memory holds one batch, not the input.
#pragma once

#include <memory>

#include "lance/core/record_batch.h"
#include "lance/result.h"

namespace lance::cli {

class FileSource;

/// \brief Batches of an Arrow IPC stream read from `source` (which must outlive it).
Result<std::unique_ptr<RecordBatchReader>> OpenIpcStreamInput(FileSource* source);

/// \brief Batches of an Arrow IPC file ("ARROW1" ... footer "ARROW1"); `source` must be
/// seekable (a regular file) and outlive the reader.
Result<std::unique_ptr<RecordBatchReader>> OpenIpcFileInput(FileSource* source);

/// \brief The file format when a seekable `source` starts with "ARROW1", else the stream
/// format.
Result<std::unique_ptr<RecordBatchReader>> OpenIpcInput(FileSource* source);

}  // namespace lance::cli

// SPDX-License-Identifier: Apache-2.0
// Legacy (0.1 / 0.2) Lance files.

#include "format/legacy/legacy_reader.h"

namespace lance::format::legacy {

Result<std::shared_ptr<LanceFileReader>> OpenLegacyFile(
    std::string path, std::shared_ptr<io::RandomAccessReader> /*file*/, bool /*remote*/,
    BufferPtr /*tail*/, int64_t /*tail_start*/) {
  return Status::NotImplemented("Lance file '" + path +
                                "' uses the legacy file format 0.1, which this build "
                                "cannot read yet");
}

}  // namespace lance::format::legacy

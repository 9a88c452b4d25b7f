// SPDX-License-Identifier: Apache-2.0
// Encoding Lance file formats 2.1 and 2.2 (work in progress).

#include "format/writer_internal.h"

namespace lance::format::internal {

Result<std::unique_ptr<FileEncoder>> MakeStructuralEncoder(const LanceSchema& schema,
                                                           const FileWriterOptions& options) {
  return Status::NotImplemented("file format " +
                                std::string(FileVersionString(options.version)) +
                                " is not supported by this build yet (2.0 is)");
}

}  // namespace lance::format::internal

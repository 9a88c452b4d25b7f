// SPDX-License-Identifier: Apache-2.0
// lance-cpp cleanup (issue 12; not implemented yet).
#include "command.h"

namespace lance::cli {

Command MakeCleanupCommand() {
  return Command{"cleanup",
                 "(not implemented yet)",
                 "cleanup URI",
                 {},
                 [](const Args&, const Streams&) {
                   return Status::NotImplemented("cleanup is not implemented yet");
                 }};
}

}  // namespace lance::cli

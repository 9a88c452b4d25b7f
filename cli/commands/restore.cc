// SPDX-License-Identifier: Apache-2.0
// lance-cpp restore (issue 12; not implemented yet).
#include "command.h"

namespace lance::cli {

Command MakeRestoreCommand() {
  return Command{"restore",
                 "(not implemented yet)",
                 "restore URI",
                 {},
                 [](const Args&, const Streams&) {
                   return Status::NotImplemented("restore is not implemented yet");
                 }};
}

}  // namespace lance::cli

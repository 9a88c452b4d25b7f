// SPDX-License-Identifier: Apache-2.0
// lance-cpp update (issue 12; not implemented yet).
#include "command.h"

namespace lance::cli {

Command MakeUpdateCommand() {
  return Command{"update",
                 "(not implemented yet)",
                 "update URI",
                 {},
                 [](const Args&, const Streams&) {
                   return Status::NotImplemented("update is not implemented yet");
                 }};
}

}  // namespace lance::cli

// SPDX-License-Identifier: Apache-2.0
// lance-cpp merge-insert (issue 12; not implemented yet).
#include "command.h"

namespace lance::cli {

Command MakeMergeInsertCommand() {
  return Command{"merge-insert",
                 "(not implemented yet)",
                 "merge-insert URI",
                 {},
                 [](const Args&, const Streams&) {
                   return Status::NotImplemented("merge-insert is not implemented yet");
                 }};
}

}  // namespace lance::cli

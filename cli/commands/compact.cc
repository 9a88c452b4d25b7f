// SPDX-License-Identifier: Apache-2.0
// lance-cpp compact (issue 12; not implemented yet).
#include "command.h"

namespace lance::cli {

Command MakeCompactCommand() {
  return Command{"compact",
                 "(not implemented yet)",
                 "compact URI",
                 {},
                 [](const Args&, const Streams&) {
                   return Status::NotImplemented("compact is not implemented yet");
                 }};
}

}  // namespace lance::cli

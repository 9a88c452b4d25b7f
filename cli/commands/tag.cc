// SPDX-License-Identifier: Apache-2.0
// lance-cpp tag (issue 12; not implemented yet).
#include "command.h"

namespace lance::cli {

Command MakeTagCommand() {
  return Command{
      "tag", "(not implemented yet)", "tag URI", {}, [](const Args&, const Streams&) {
        return Status::NotImplemented("tag is not implemented yet");
      }};
}

}  // namespace lance::cli

// SPDX-License-Identifier: Apache-2.0
// The verb list: one file per verb in this folder and one line here, in help order.
#include <vector>

#include "command.h"

namespace lance::cli {

Command MakeInfoCommand();
Command MakeVersionsCommand();
Command MakeCountCommand();
Command MakeScanCommand();
Command MakeTakeCommand();
Command MakeImportCommand();
Command MakeDeleteCommand();
// Issue 12: table operations.
Command MakeUpdateCommand();
Command MakeMergeInsertCommand();
Command MakeCompactCommand();
Command MakeCleanupCommand();
Command MakeTagCommand();
Command MakeRestoreCommand();
// Issue 13: the REST namespace server.
Command MakeServeCommand();

std::vector<Command> MakeCommands() {
  return {MakeInfoCommand(),    MakeVersionsCommand(), MakeCountCommand(),
          MakeScanCommand(),    MakeTakeCommand(),     MakeImportCommand(),
          MakeDeleteCommand(),  MakeUpdateCommand(),   MakeMergeInsertCommand(),
          MakeCompactCommand(), MakeCleanupCommand(),  MakeTagCommand(),
          MakeRestoreCommand(), MakeServeCommand()};
}

}  // namespace lance::cli

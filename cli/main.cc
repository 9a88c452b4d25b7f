// SPDX-License-Identifier: Apache-2.0
// lance-cpp: the command line face of the library. Thin: parsing and printing only.
#include <cstdio>
#include <string>
#include <vector>

#include "command.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return lance::cli::Main(args, {stdout, stderr});
}

// SPDX-License-Identifier: Apache-2.0
// Refresh under load: see bench/CMakeLists.txt. Placeholder until implemented.
#include <cstdio>

int main() {
  std::fprintf(stderr, "refresh_benchmark: not implemented yet\n");
  return 1;
}

// SPDX-License-Identifier: Apache-2.0
// gcs_token_proxy: the tests' token-checking proxy (token_proxy.h) as a program, for the
// pylance tests.
//
//   gcs_token_proxy --target http://127.0.0.1:4443 [--xml-writes]
//                   [--token TOKEN[,TTL_MS[,BOUNDARY_PREFIX]]]...
//
// Prints "PORT <port>" once it serves, then runs until its standard input closes.
#include <chrono>
#include <iostream>
#include <string>

#include "tests/gcs/token_proxy.h"

int main(int argc, char** argv) {
  lance::testing::GcsTokenProxy::Options options;
  std::vector<std::string> tokens;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--target" && i + 1 < argc) {
      options.target = argv[++i];
    } else if (arg == "--xml-writes") {
      options.xml_writes = true;
    } else if (arg == "--token" && i + 1 < argc) {
      tokens.push_back(argv[++i]);
    } else {
      std::cerr << "usage: gcs_token_proxy --target URL [--xml-writes] "
                   "[--token TOKEN[,TTL_MS[,PREFIX]]]...\n";
      return 2;
    }
  }
  auto proxy = lance::testing::GcsTokenProxy::Start(options);
  if (!proxy.ok()) {
    std::cerr << proxy.status().ToString() << "\n";
    return 1;
  }
  for (const std::string& spec : tokens) {
    const size_t c1 = spec.find(',');
    const size_t c2 = c1 == std::string::npos ? c1 : spec.find(',', c1 + 1);
    const std::string token = spec.substr(0, c1);
    const int64_t ttl = c1 == std::string::npos
                            ? 86'400'000
                            : std::stoll(spec.substr(c1 + 1, c2 - c1 - 1));
    const std::string boundary = c2 == std::string::npos ? "" : spec.substr(c2 + 1);
    (*proxy)->AddToken(token, std::chrono::milliseconds(ttl), boundary);
  }
  std::cout << "PORT " << (*proxy)->port() << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// Certificates for TLS tests, made by the openssl CLI at test time (nothing secret is
// committed): a CA and a server certificate it signs.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "lance/status.h"
#include "tests/testing/temp_dir.h"

namespace lance::testing {

/// \brief Writes `<prefix>-ca.pem`, `<prefix>-ca.key`, `<prefix>-server.pem` and
/// `<prefix>-server.key` under `dir`; the server certificate is signed by the CA and
/// carries `san` ("IP:127.0.0.1,DNS:localhost") as its subjectAltName.
/// \return IOError naming the openssl step that failed.
inline Status MakeTestCertificates(const TempDir& dir, const std::string& prefix,
                                   const std::string& san) {
  const std::string p = dir.Join(prefix);
  const std::string ext = p + "-ext.cnf";
  std::ofstream(ext) << "subjectAltName=" << san << "\n";
  const std::vector<std::string> steps = {
      "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=test-ca -keyout " + p +
          "-ca.key -out " + p + "-ca.pem",
      "openssl req -newkey rsa:2048 -nodes -subj /CN=server -keyout " + p +
          "-server.key -out " + p + "-server.csr",
      "openssl x509 -req -in " + p + "-server.csr -CA " + p + "-ca.pem -CAkey " + p +
          "-ca.key -CAcreateserial -days 2 -extfile " + ext + " -out " + p +
          "-server.pem",
  };
  for (const auto& step : steps) {
    const int rc = std::system((step + " >/dev/null 2>&1").c_str());
    if (!WIFEXITED(rc) || WEXITSTATUS(rc) != 0) return Status::IOError("failed: " + step);
  }
  return Status::OK();
}

}  // namespace lance::testing

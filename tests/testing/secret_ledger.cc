// SPDX-License-Identifier: Apache-2.0
#include "tests/testing/secret_ledger.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "lance/core/logging.h"

namespace lance::testing {

namespace {

// The first 4 characters and "***": enough to tell secrets apart in the scan report.
std::string DefaultLabel(std::string_view secret) {
  return std::string(secret.substr(0, 4)) + "***";
}

// The test processes that link this file (the S3 suites) log at the level named by
// LANCE_TEST_LOG_LEVEL (scripts/run_tests.sh sets debug), so that the library's log lines
// of the run land in ctest's log and are scanned for secrets too. A variable of its own,
// not LANCE_LOG: that one is also read by pylance, which the tests spawn.
[[maybe_unused]] const bool kLogLevelFromTestEnvironment = [] {
  const char* value = std::getenv("LANCE_TEST_LOG_LEVEL");
  if (value == nullptr || *value == '\0') return false;
  std::optional<LogLevel> level = ParseLogLevel(value);
  if (level.has_value()) SetLogLevel(*level);
  return level.has_value();
}();

}  // namespace

void RecordSecret(std::string_view secret, std::string_view label) {
  if (secret.empty()) return;
  const char* path = std::getenv("LANCE_SECRETS_LEDGER");
  if (path == nullptr || *path == '\0') return;
  std::string line = label.empty() ? DefaultLabel(secret) : std::string(label);
  line += '\t';
  line += secret;
  line += '\n';
  const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::fprintf(stderr, "secret ledger %s: cannot open (errno %d)\n", path, errno);
    return;
  }
  // One write: O_APPEND keeps lines of concurrent processes whole.
  const ssize_t n = ::write(fd, line.data(), line.size());
  if (n != static_cast<ssize_t>(line.size())) {
    std::fprintf(stderr, "secret ledger %s: short write (errno %d)\n", path, errno);
  }
  ::close(fd);
}

void RecordSecrets(const io::s3::AwsCredentials& credentials) {
  const std::string id = credentials.access_key_id.substr(0, 4) + "***";
  RecordSecret(credentials.secret_access_key, "secret of " + id);
  RecordSecret(credentials.session_token, "token of " + id);
}

void RecordSecrets(const io::StorageOptions& options) {
  std::string id;
  if (auto it = options.find("aws_access_key_id"); it != options.end()) {
    id = " of " + it->second.substr(0, 4) + "***";
  }
  for (const auto& [key, value] : options) {
    if (io::IsSecretOptionKey(key)) RecordSecret(value, key + id);
  }
}

}  // namespace lance::testing

// SPDX-License-Identifier: Apache-2.0
// The project's Python (the venv with pylance) for C++ tests that cross-check with real
// Lance: its path and a way to run it.

#pragma once

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

namespace lance::testing {

/// \brief $LANCE_PYTHON, else the project's venv (LANCE_DEFAULT_PYTHON, set for every
/// test by tests/CMakeLists.txt).
inline std::string PythonExecutable() {
  const char* env = std::getenv("LANCE_PYTHON");
  if (env != nullptr && *env != '\0') return env;
  return LANCE_DEFAULT_PYTHON;
}

/// \brief Runs `python args...` (argv as given: no shell, so scripts may hold any
/// quotes); returns its exit code (-1 if it could not run) and captures stdout+stderr in
/// *output.
inline int RunPython(const std::vector<std::string>& args, std::string* output) {
  output->clear();
  std::string python = PythonExecutable();
  std::vector<char*> argv = {python.data()};
  std::vector<std::string> copies(args);
  for (auto& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);
  int fds[2];
  if (pipe(fds) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  pid_t pid = 0;
  const int spawned =
      posix_spawn(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (spawned != 0) {
    close(fds[0]);
    *output = "cannot run " + python;
    return -1;
  }
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0)
    output->append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace lance::testing

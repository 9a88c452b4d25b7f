// SPDX-License-Identifier: Apache-2.0
// What the benchmarks share: failing loudly on any error (a benchmark that swallows one
// reports a number for work it did not do) and the clocks.

#pragma once

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "lance/result.h"
#include "lance/status.h"

namespace bench {

/// Prints "<benchmark>: <what>" and exits 1; each benchmark defines it (the S3 one also
/// removes its bucket and key file first).
[[noreturn]] void Die(const std::string& what);

inline void Check(const lance::Status& st, const std::string& what) {
  if (!st.ok()) Die(what + ": " + st.ToString());
}

template <typename T>
T Check(lance::Result<T> r, const std::string& what) {
  if (!r.ok()) Die(what + ": " + r.status().ToString());
  return r.MoveValueUnsafe();
}

/// Monotonic wall-clock seconds.
inline double Now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Memory of this process (Linux /proc): ResetPeakRss() sets the peak resident set size
/// (VmHWM) back to the current one (writes "5" to /proc/self/clear_refs), so that
/// PeakRssMb() after an operation is the peak of that operation alone (its resident
/// memory plus what the process held before it, which RssMb() before it shows).
inline void ResetPeakRss() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5" << std::flush;
  if (!f) Die("cannot reset the peak RSS (/proc/self/clear_refs)");
}

/// A field of /proc/self/status in kB (VmHWM, VmRSS), as MB (1e6 bytes).
inline double StatusMb(const std::string& field) {
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);) {
    if (line.rfind(field + ":", 0) == 0) {
      std::istringstream in(line.substr(field.size() + 1));
      double kb = 0;
      in >> kb;
      return kb * 1024 / 1e6;
    }
  }
  Die("no " + field + " in /proc/self/status");
}

inline double PeakRssMb() { return StatusMb("VmHWM"); }
inline double RssMb() { return StatusMb("VmRSS"); }

}  // namespace bench

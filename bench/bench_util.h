// SPDX-License-Identifier: Apache-2.0
// What the benchmarks share: failing loudly on any error (a benchmark that swallows one
// reports a number for work it did not do) and the clocks.

#pragma once

#include <chrono>
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

}  // namespace bench

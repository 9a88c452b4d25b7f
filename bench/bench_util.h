// SPDX-License-Identifier: Apache-2.0
// What the benchmarks share: failing loudly on any error (a benchmark that swallows one
// reports a number for work it did not do), the clocks, and the RGW the S3 benchmarks
// run against.

#pragma once

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>

#include "lance/io/storage_options.h"
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

/// The first of `names` that is set and not empty; dies naming the first one otherwise
/// (later names are older spellings of the same variable).
inline std::string RequiredEnv(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const char* v = std::getenv(name);
    if (v != nullptr && *v != '\0') return v;
  }
  Die(std::string(*names.begin()) +
      " is not set: run scripts/run_bench.sh (it starts an RGW), or export the lines "
      "`scripts/rgw.sh start DIR` prints");
}

/// The RGW of the S3 benchmarks and its long-lived key (LANCE_S3_*).
struct RgwEnv {
  std::string endpoint, region, access_key, secret_key;
};

inline RgwEnv ReadRgwEnv() {
  RgwEnv e;
  e.endpoint = RequiredEnv({"LANCE_S3_ENDPOINT"});
  e.region = RequiredEnv({"LANCE_S3_REGION"});
  e.access_key = RequiredEnv({"LANCE_S3_ACCESS_KEY"});
  e.secret_key = RequiredEnv({"LANCE_S3_SECRET_KEY", "LANCE_S3_SECRET"});
  while (!e.endpoint.empty() && e.endpoint.back() == '/') e.endpoint.pop_back();
  return e;
}

/// Storage options with the long-lived key (no vending, no refresh).
inline lance::io::StorageOptions StaticS3Options(const RgwEnv& e) {
  return {{"aws_endpoint", e.endpoint},
          {"aws_region", e.region},
          {"allow_http", "true"},
          {"aws_access_key_id", e.access_key},
          {"aws_secret_access_key", e.secret_key}};
}

}  // namespace bench

// SPDX-License-Identifier: Apache-2.0
// What the benchmarks share: failing loudly on any error (a benchmark that swallows one
// reports a number for work it did not do), the clocks, and the RGW the S3 benchmarks
// run against.

#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <type_traits>

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

/// A command-line flag of a benchmark: its name, whether a value follows it, and what it
/// does to the benchmark's arguments (`value` is "" for a flag without one; `flag` is the
/// name, for messages).
template <typename Args>
struct Flag {
  const char* name;
  bool takes_value;
  void (*apply)(Args& args, const std::string& flag, const std::string& value);
};

template <typename T>
struct MemberOf;
template <typename C, typename V>
struct MemberOf<V C::*> {
  using Class = C;
  using Value = V;
};

/// Flag action: the value into the member, as text or as a decimal int / int64_t.
template <auto Member>
void Store(typename MemberOf<decltype(Member)>::Class& args, const std::string& flag,
           const std::string& value) {
  using Value = typename MemberOf<decltype(Member)>::Value;
  if constexpr (std::is_same_v<Value, std::string>) {
    args.*Member = value;
  } else if constexpr (std::is_same_v<Value, int>) {
    args.*Member = std::stoi(value);
  } else {
    static_assert(std::is_same_v<Value, int64_t>, "Store: text, int or int64_t");
    args.*Member = std::stoll(value);
  }
}

/// Flag action of a flag without a value: sets the member to `kTo`.
template <auto Member, bool kTo>
void Set(typename MemberOf<decltype(Member)>::Class& args, const std::string& flag,
         const std::string& value) {
  args.*Member = kTo;
}

/// Applies argv[first..] to `*args` through `flags`; dies on an unknown flag or a
/// missing value.
template <typename Args, size_t N>
void ApplyFlags(int argc, char** argv, int first, const Flag<Args> (&flags)[N],
                Args* args) {
  for (int i = first; i < argc; ++i) {
    const std::string name = argv[i];
    const Flag<Args>* flag = nullptr;
    for (const auto& f : flags) {
      if (name == f.name) flag = &f;
    }
    if (flag == nullptr) Die("unknown argument " + name);
    std::string value;
    if (flag->takes_value) {
      if (i + 1 >= argc) Die("missing value for " + name);
      value = argv[++i];
    }
    flag->apply(*args, name, value);
  }
}

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

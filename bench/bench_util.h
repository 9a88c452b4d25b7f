// SPDX-License-Identifier: Apache-2.0
// What the benchmarks share: failing loudly on any error (a benchmark that swallows one
// reports a number for work it did not do), the clocks (wall, CPU of this process, of its
// children and of the server's processes), and the RGW the S3 benchmarks run against.

#pragma once

#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>  // program_invocation_short_name (GNU)
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lance/io/storage_options.h"
#include "lance/result.h"
#include "lance/status.h"

namespace bench {

/// Run once by Die before it exits: what a benchmark must not leave behind (the S3 one
/// removes its bucket and key file).
inline std::function<void()> g_before_die;

/// Prints "<benchmark>: <what>" (the binary's name) and exits 1.
[[noreturn]] inline void Die(const std::string& what) {
  std::cerr << program_invocation_short_name << ": " << what << std::endl;
  if (g_before_die) {
    auto before = std::move(g_before_die);
    g_before_die = nullptr;
    before();
  }
  std::exit(1);
}

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

inline double Seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6;
}

/// User + system CPU seconds of this process (all threads), or of its waited-for
/// children (curl processes).
inline double CpuSelf() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return Seconds(ru.ru_utime) + Seconds(ru.ru_stime);
}
inline double CpuChildren() {
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  return Seconds(ru.ru_utime) + Seconds(ru.ru_stime);
}

/// The server's processes (--server-pids: radosgw, ceph-osd, ceph-mon; Azurite's node;
/// fake-gcs-server): is the server, on the same cores, the limit?
inline std::vector<int> g_server_pids;

/// CPU seconds (user + system) of g_server_pids, from /proc/PID/stat (a pid gone counts
/// nothing).
inline double CpuServer() {
  static const double kTick = static_cast<double>(sysconf(_SC_CLK_TCK));
  double total = 0;
  for (int pid : g_server_pids) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(f, line)) continue;
    // After the ")" that ends the command name: state is field 3, utime 14, stime 15.
    std::istringstream rest(line.substr(line.rfind(')') + 2));
    std::string tok;
    double ticks = 0;
    for (int field = 3; field <= 15 && rest >> tok; ++field) {
      if (field >= 14) ticks += std::stod(tok);
    }
    total += ticks / kTick;
  }
  return total;
}

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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

/// Flag action: KEY=VALUE into the map member (--storage-option).
template <auto Member>
void StoreKeyValue(typename MemberOf<decltype(Member)>::Class& args,
                   const std::string& flag, const std::string& kv) {
  const auto eq = kv.find('=');
  if (eq == std::string::npos) Die(flag + " wants KEY=VALUE");
  (args.*Member)[kv.substr(0, eq)] = kv.substr(eq + 1);
}

/// Flag action: comma-separated pids into g_server_pids (--server-pids).
template <typename Args>
void AddServerPids(Args& args, const std::string& flag, const std::string& pids) {
  std::istringstream s(pids);
  for (std::string p; std::getline(s, p, ',');) {
    if (!p.empty()) g_server_pids.push_back(std::stoi(p));
  }
}

/// Applies argv[first..] to `*args` through the flags of `tables` (a benchmark's own, and
/// shared ones such as kObjectStoreFlags); dies on an unknown flag or a missing value.
template <typename Args>
void ApplyFlagTables(int argc, char** argv, int first,
                     std::initializer_list<std::span<const Flag<Args>>> tables,
                     Args* args) {
  for (int i = first; i < argc; ++i) {
    const std::string name = argv[i];
    const Flag<Args>* flag = nullptr;
    for (const auto& table : tables) {
      for (const auto& f : table) {
        if (name == f.name) flag = &f;
      }
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

/// ApplyFlagTables with one table.
template <typename Args, size_t N>
void ApplyFlags(int argc, char** argv, int first, const Flag<Args> (&flags)[N],
                Args* args) {
  ApplyFlagTables<Args>(argc, argv, first, {flags}, args);
}

/// The flags of both object-store benchmarks (s3_benchmark, cloud_benchmark), for an Args
/// with these members.
template <typename Args>
inline constexpr Flag<Args> kObjectStoreFlags[] = {
    // The dataset written: F files of R rows, N times.
    {"--files", true, Store<&Args::files>},
    {"--rows-per-file", true, Store<&Args::rows_per_file>},
    {"--reps", true, Store<&Args::reps>},
    // What is timed: --no-scan the writes only; --scan-uri only scans of that dataset.
    {"--no-scan", false, Set<&Args::scan, false>},
    {"--scan-uri", true, Store<&Args::scan_uri>},
    {"--server-pids", true, AddServerPids<Args>},
    {"--out", true, Store<&Args::out>},
};

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

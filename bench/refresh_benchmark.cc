// SPDX-License-Identifier: Apache-2.0
// Refresh under load (`make bench`, S3 part; docs/benchmarks.md and docs/credentials.md).
//
//   refresh_benchmark --out OUT.json --workdir DIR [--seconds N] [--threads T]
//       [--describe-delay-ms D] [--lifetime-ms L] [--offset-ms O] [--read-bytes B]
//       [--rounds R] [--none-static-key]
//
// Against the RGW named by LANCE_S3_ENDPOINT, LANCE_S3_REGION, LANCE_S3_ACCESS_KEY,
// LANCE_S3_SECRET_KEY (LANCE_S3_SECRET is accepted too), LANCE_S3_BUCKET and
// LANCE_S3_STS_ROLE_ARN (what scripts/rgw.sh prints), under a prefix of its own that it
// deletes at the end:
//
//  - set-up (untimed): a DirectoryNamespace on s3://BUCKET/PREFIX writes a small table
//    "bench" and an 8 MiB object inside the table's location (the root's long-lived key);
//  - a second DirectoryNamespace on the same root vends credentials for the table
//    (credential_vendor.enabled, STS AssumeRole with the read permission), reported to
//    live L ms (default 3000) with refresh offset O ms (default 1000), wrapped by a
//    decorator whose describe_table sleeps D ms (default 300) first: a slow catalog
//    handing out short-lived credentials;
//  - three modes, each for N seconds (default 15) of steady load, in R rounds (default
//    3) of N / R seconds in which the modes rotate (so drifting machine load hits all
//    alike); every slice opens the table afresh (untimed) and closes it after:
//    T threads (default 8, tasks of the I/O executor) each issue ranged GETs of B bytes
//    (default 65536) at random offsets of the object, back to back, through the
//    dataset's own store (so every request asks the dataset's credentials source):
//      background  ns::OpenDataset through the slow namespace; RefreshMode::kBackground
//                  (ours: requests in the refresh window keep the valid credentials and
//                  the describe runs behind them);
//      inline      the same with RefreshMode::kInline (Lance's behaviour: the request
//                  that finds the credentials in the window fetches, the others wait);
//      none        long-lived credentials, no refresh at all: the same STS credentials
//                  vended with their real lifetime (1 h) through the same slow
//                  namespace, so RGW's per-request cost of a session token is in the
//                  baseline too; --none-static-key uses the root's long-lived key
//                  instead (Dataset::Open, no provider).
//    Each mode has its own provider id (the decorator's namespace id names the mode), so
//    no mode shares a store or a credentials source with another.
//
// Per-request latency (steady clock around ObjectStore::ReadRange) gives p50 / p99 /
// p99.9 / max per mode; a request that returns an error counts as failed (the first few
// errors are printed). The source's counters (Dataset::credential_stats) give the fetches
// and the waits. Flat JSON keys: refresh_{p50,p99,p999,max,mean}_ms_{mode},
// refresh_requests_{mode}, refresh_failed_requests_{mode}, refresh_fetches_{mode},
// refresh_waits_{mode}, refresh_max_wait_ms_{mode}, refresh_failed_requests (sum over the
// modes), refresh_p99_ratio_{background,inline}_vs_none, and the settings
// (refresh_seconds, refresh_threads, refresh_describe_delay_ms, refresh_lifetime_ms,
// refresh_offset_ms, refresh_read_bytes, refresh_object_bytes, refresh_rounds,
// refresh_none_credentials). refresh_fetches_{mode} are provider calls made by the
// sources (refreshes); refresh_describes_{mode} also counts the R opens.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "bench_util.h"
#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/core/type.h"
#include "lance/dataset/dataset.h"
#include "lance/io/executor.h"
#include "lance/io/object_store.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/refreshing_credentials.h"
#include "lance/io/storage_access.h"
#include "lance/namespace/dataset_ops.h"
#include "lance/namespace/directory_namespace.h"
#include "lance/namespace/namespace.h"

namespace {

using Clock = std::chrono::steady_clock;
using lance::Result;
using lance::Status;

using bench::Check;
using bench::Die;

struct Args {
  std::string out;
  std::string workdir;
  int seconds = 15;
  int threads = 8;
  int describe_delay_ms = 300;
  int lifetime_ms = 3000;
  int offset_ms = 1000;
  int64_t read_bytes = 64 * 1024;
  int64_t object_bytes = 8 * 1024 * 1024;
  // Mode "none" with the root's long-lived key instead of long-lived vended credentials.
  bool none_static = false;
  // The modes rotate in this many slices of seconds / rounds each.
  int rounds = 3;
};

int ParseInt(const std::string& name, const std::string& value, int64_t min) {
  char* end = nullptr;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  if (end == value.c_str() || *end != '\0' || v < min || v > 1'000'000'000) {
    Die(name + " needs an integer >= " + std::to_string(min) + ", got '" + value + "'");
  }
  return static_cast<int>(v);
}

[[noreturn]] void Usage() {
  std::printf(
      "refresh_benchmark --out OUT.json --workdir DIR [--seconds N] [--threads T]\n"
      "    [--describe-delay-ms D] [--lifetime-ms L] [--offset-ms O] "
      "[--read-bytes B] [--rounds R] [--none-static-key]\n");
  std::exit(0);
}

// Flag action of an integer flag: at least kMin (ParseInt).
template <auto Member, int64_t kMin>
void StoreAtLeast(Args& args, const std::string& flag, const std::string& value) {
  args.*Member = ParseInt(flag, value, kMin);
}

using Flag = bench::Flag<Args>;
const Flag kFlags[] = {
    {"--out", true, bench::Store<&Args::out>},
    {"--workdir", true, bench::Store<&Args::workdir>},
    {"--seconds", true, StoreAtLeast<&Args::seconds, 1>},
    {"--threads", true, StoreAtLeast<&Args::threads, 1>},
    {"--describe-delay-ms", true, StoreAtLeast<&Args::describe_delay_ms, 0>},
    {"--lifetime-ms", true, StoreAtLeast<&Args::lifetime_ms, 100>},
    {"--offset-ms", true, StoreAtLeast<&Args::offset_ms, 0>},
    {"--read-bytes", true, StoreAtLeast<&Args::read_bytes, 1>},
    {"--rounds", true, StoreAtLeast<&Args::rounds, 1>},
    {"--none-static-key", false, bench::Set<&Args::none_static, true>},
    {"--help", false, [](Args&, const std::string&, const std::string&) { Usage(); }},
    {"-h", false, [](Args&, const std::string&, const std::string&) { Usage(); }},
};

Args ParseArgs(int argc, char** argv) {
  Args a;
  bench::ApplyFlags(argc, argv, 1, kFlags, &a);
  if (a.out.empty()) Die("--out FILE.json is required");
  if (a.workdir.empty()) Die("--workdir DIR is required");
  if (a.offset_ms >= a.lifetime_ms) Die("--offset-ms must be below --lifetime-ms");
  if (a.read_bytes > a.object_bytes) Die("--read-bytes is larger than the object");
  return a;
}

// The RGW, plus the bucket the benchmark reads and the role the vending namespace
// assumes.
struct Env : bench::RgwEnv {
  std::string bucket, role_arn;
};

Env ReadEnv() {
  Env e{bench::ReadRgwEnv(), {}, {}};
  e.bucket = bench::RequiredEnv({"LANCE_S3_BUCKET"});
  e.role_arn = bench::RequiredEnv({"LANCE_S3_STS_ROLE_ARN"});
  return e;
}

lance::ns::Properties RootProperties(const Env& e, const std::string& root) {
  lance::ns::Properties props{{"root", root}};
  for (const auto& [k, v] : bench::StaticS3Options(e)) props["storage." + k] = v;
  return props;
}

// A slow catalog: describe_table sleeps first, then asks the vending namespace. Its id
// names the mode, so that each mode gets its own provider id, source and store.
class SlowNamespace final : public lance::ns::LanceNamespace {
 public:
  SlowNamespace(std::shared_ptr<lance::ns::LanceNamespace> inner,
                std::chrono::milliseconds delay, std::string mode)
      : inner_(std::move(inner)), delay_(delay), mode_(std::move(mode)) {}

  std::string namespace_id() const override {
    return "SlowNamespace { mode: " + mode_ + ", inner: " + inner_->namespace_id() + " }";
  }
  Result<lance::ns::DescribeTableResponse> DescribeTable(
      const lance::ns::DescribeTableRequest& request) override {
    std::this_thread::sleep_for(delay_);  // the simulated catalog latency
    describes_.fetch_add(1);
    return inner_->DescribeTable(request);
  }
  int64_t describes() const { return describes_.load(); }

 private:
  std::shared_ptr<lance::ns::LanceNamespace> inner_;
  std::chrono::milliseconds delay_;
  std::string mode_;
  std::atomic<int64_t> describes_{0};
};

struct ModeResult {
  std::vector<double> latencies_ms;  // sorted
  int64_t failed = 0;
  int64_t fetches = 0;
  int64_t waits = 0;
  int64_t max_wait_ms = 0;
  int64_t describes = 0;
  double seconds = 0;
};

double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double rank = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(rank));
  const auto hi = static_cast<size_t>(std::ceil(rank));
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - static_cast<double>(lo));
}

// T loops of ranged reads for `seconds` on the executor.
ModeResult RunLoad(const std::string& mode, lance::io::ObjectStore& store,
                   const std::string& path, const Args& a,
                   std::chrono::milliseconds duration) {
  struct PerThread {
    std::vector<double> latencies_ms;
    int64_t failed = 0;
  };
  std::vector<PerThread> per_thread(static_cast<size_t>(a.threads));
  std::mutex error_mu;
  int printed_errors = 0;
  const auto start = Clock::now();
  const auto end = start + duration;
  {
    lance::io::TaskGroup group;
    for (int t = 0; t < a.threads; ++t) {
      Check(group.Submit([&, t]() -> Status {
        PerThread& mine = per_thread[static_cast<size_t>(t)];
        mine.latencies_ms.reserve(100'000);
        std::mt19937_64 rng(static_cast<uint64_t>(t) * 7919 + 17);
        std::uniform_int_distribution<int64_t> offset(0, a.object_bytes - a.read_bytes);
        while (Clock::now() < end) {
          const int64_t off = offset(rng);
          const auto t0 = Clock::now();
          auto got = store.ReadRange(path, off, a.read_bytes);
          const auto t1 = Clock::now();
          mine.latencies_ms.push_back(
              std::chrono::duration<double, std::milli>(t1 - t0).count());
          if (!got.ok() || (*got)->size() != a.read_bytes) {
            ++mine.failed;
            std::lock_guard<std::mutex> guard(error_mu);
            if (printed_errors++ < 5) {
              std::fprintf(stderr, "refresh_benchmark: %s: request failed: %s\n",
                           mode.c_str(),
                           got.ok() ? "short read" : got.status().ToString().c_str());
            }
          }
        }
        return Status::OK();
      }),
            "queueing a load task");
    }
    Check(group.Wait(), "running the load");
  }
  ModeResult r;
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& p : per_thread) {
    r.latencies_ms.insert(r.latencies_ms.end(), p.latencies_ms.begin(),
                          p.latencies_ms.end());
    r.failed += p.failed;
  }
  std::sort(r.latencies_ms.begin(), r.latencies_ms.end());
  return r;
}

std::string Now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%H:%M:%S", std::gmtime(&t));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = ParseArgs(argc, argv);
  const Env env = ReadEnv();
  std::filesystem::create_directories(a.workdir);
  if (a.threads > lance::io::Executor::Default().threads()) {
    Die("--threads " + std::to_string(a.threads) + " is more than the I/O executor's " +
        std::to_string(lance::io::Executor::Default().threads()) +
        " workers (set LANCE_IO_THREADS)");
  }

  const std::string prefix = "refresh-bench-" + std::to_string(::getpid()) + "-" +
                             std::to_string(std::time(nullptr));
  const std::string root = "s3://" + env.bucket + "/" + prefix;
  const lance::io::StorageOptions static_options = bench::StaticS3Options(env);
  const lance::ns::Identifier table_id = {"bench"};

  // ---- set-up: the table and the object, with the long-lived key ----
  auto plain_ns =
      Check(lance::ns::DirectoryNamespace::FromProperties(RootProperties(env, root)),
            "connecting the directory namespace on " + root);
  {
    lance::Int64Builder ids;
    for (int64_t i = 0; i < 1000; ++i) Check(ids.Append(i), "building rows");
    auto column = Check(ids.Finish(), "building rows");
    auto schema = lance::schema({lance::field("id", lance::int64(), false)});
    auto batch = Check(lance::RecordBatch::Make(schema, 1000, {column}), "building rows");
    auto reader = lance::RecordBatchReader::FromBatches(schema, {batch});
    // The namespace vends nothing and, since issue 28, hands out only the root's options
    // that are not credentials (endpoint, region): the writer brings its own key.
    lance::WriteParams write;
    write.access = lance::io::StorageAccess(static_options);
    Check(lance::ns::WriteDataset(*reader, plain_ns, table_id, write),
          "writing the table");
  }
  lance::ns::DescribeTableRequest describe;
  describe.id = table_id;
  const auto described = Check(plain_ns->DescribeTable(describe), "describing the table");
  if (!described.location) Die("describe_table returned no location");
  std::string table_uri = *described.location;
  while (!table_uri.empty() && table_uri.back() == '/') table_uri.pop_back();
  const std::string object_uri = table_uri + "/refresh-bench-object.bin";
  auto static_loc = Check(
      lance::io::ResolveObjectStore(object_uri, lance::io::StorageAccess(static_options)),
      "resolving " + object_uri);
  {
    std::string bytes(static_cast<size_t>(a.object_bytes), '\0');
    std::mt19937_64 rng(42);
    for (auto& c : bytes) c = static_cast<char>(rng());
    Check(static_loc.store->Put(static_loc.path, bytes), "uploading " + object_uri);
  }

  // ---- the vending namespace ----
  lance::ns::Properties vend_props = RootProperties(env, root);
  vend_props["credential_vendor.enabled"] = "true";
  vend_props["credential_vendor.aws_role_arn"] = env.role_arn;
  vend_props["credential_vendor.aws_region"] = env.region;
  vend_props["credential_vendor.permission"] = "read";
  vend_props["credential_vendor.reported_lifetime_millis"] =
      std::to_string(a.lifetime_ms);
  vend_props["credential_vendor.refresh_offset_millis"] = std::to_string(a.offset_ms);
  auto vending_ns = Check(lance::ns::DirectoryNamespace::FromProperties(vend_props),
                          "connecting the vending directory namespace");
  // The same vending without the short reported lifetime: the STS session's own (1 h),
  // so mode "none" reads with the same kind of credentials (RGW's per-request STS
  // checks included) and never refreshes.
  lance::ns::Properties long_props = vend_props;
  long_props.erase("credential_vendor.reported_lifetime_millis");
  auto long_lived_ns = Check(lance::ns::DirectoryNamespace::FromProperties(long_props),
                             "connecting the long-lived vending directory namespace");

  // Rounds: each mode runs seconds / rounds at a time, the modes rotating, so that a
  // change of machine load hits every mode alike. Each slice opens the table afresh
  // (untimed; the dataset of the previous slice is closed, so its source is gone too)
  // and so starts with credentials just vended.
  const std::vector<std::string> modes = {"background", "inline", "none"};
  std::map<std::string, std::shared_ptr<SlowNamespace>> slow;
  for (const auto& mode : modes) {
    slow[mode] = std::make_shared<SlowNamespace>(
        mode == "none" ? long_lived_ns : vending_ns,
        std::chrono::milliseconds(a.describe_delay_ms), mode);
  }
  const int rounds = std::max(1, std::min(a.rounds, a.seconds));
  const auto slice = std::chrono::milliseconds(int64_t{a.seconds} * 1000 / rounds);
  std::map<std::string, ModeResult> results;
  for (int round = 0; round < rounds; ++round) {
    for (size_t k = 0; k < modes.size(); ++k) {
      const std::string& mode = modes[(static_cast<size_t>(round) + k) % modes.size()];
      std::shared_ptr<lance::Dataset> dataset;
      if (mode == "none" && a.none_static) {
        lance::OpenOptions open;
        open.access = lance::io::StorageAccess(static_options);
        dataset = Check(lance::Dataset::Open(table_uri, open), "opening " + table_uri);
      } else {
        lance::ns::NamespaceAccessOptions access_options;
        access_options.refresh.mode = mode == "inline"
                                          ? lance::io::RefreshMode::kInline
                                          : lance::io::RefreshMode::kBackground;
        dataset = Check(lance::ns::OpenDataset(slow[mode], table_id, {}, access_options),
                        "opening the table through the " + mode + " namespace");
      }
      // The dataset's own store and credentials source.
      auto loc =
          Check(lance::io::ResolveObjectStore(object_uri, dataset->storage_access()),
                "resolving " + object_uri + " with the dataset's access");
      std::fprintf(stderr,
                   "refresh_benchmark: %s round %d/%d mode %s: %d threads x %lld ms of "
                   "%lld-byte reads\n",
                   Now().c_str(), round + 1, rounds, mode.c_str(), a.threads,
                   static_cast<long long>(slice.count()),
                   static_cast<long long>(a.read_bytes));
      ModeResult part = RunLoad(mode, *loc.store, loc.path, a, slice);
      ModeResult& r = results[mode];
      r.latencies_ms.insert(r.latencies_ms.end(), part.latencies_ms.begin(),
                            part.latencies_ms.end());
      r.failed += part.failed;
      r.seconds += part.seconds;
    }
  }
  const std::vector<lance::io::ProviderRefreshStats> counters =
      lance::io::CredentialRefreshStats();
  for (const auto& mode : modes) {
    ModeResult& r = results[mode];
    std::sort(r.latencies_ms.begin(), r.latencies_ms.end());
    const std::string marker = "SlowNamespace { mode: " + mode + ",";
    for (const auto& entry : counters) {
      if (entry.provider_id.find(marker) == std::string::npos) continue;
      r.fetches += entry.stats.fetches;
      r.waits += entry.stats.waits;
      r.max_wait_ms = std::max<int64_t>(r.max_wait_ms, entry.stats.max_wait.count());
      std::string line;
      for (const auto& [k, v] : lance::io::RefreshStatsFields(entry)) {
        line += " " + k + "=" + std::to_string(v);
      }
      std::fprintf(stderr, "refresh_benchmark: %s counters:%s\n", mode.c_str(),
                   line.c_str());
    }
    r.describes = slow[mode]->describes();
    std::fprintf(
        stderr,
        "refresh_benchmark: %s: %zu requests, p50 %.2f ms, p99 %.2f ms, max %.1f "
        "ms, %lld failed, %lld fetches, %lld describes (%d of them opens)\n",
        mode.c_str(), r.latencies_ms.size(), Percentile(r.latencies_ms, 0.5),
        Percentile(r.latencies_ms, 0.99),
        r.latencies_ms.empty() ? 0.0 : r.latencies_ms.back(),
        static_cast<long long>(r.failed), static_cast<long long>(r.fetches),
        static_cast<long long>(r.describes),
        mode == "none" && a.none_static ? 0 : rounds);
  }

  // ---- clean-up ----
  auto root_loc =
      Check(lance::io::ResolveObjectStore(root, lance::io::StorageAccess(static_options)),
            "resolving " + root);
  const Status cleaned = root_loc.store->DeletePrefix(root_loc.path);
  if (!cleaned.ok()) {
    std::fprintf(stderr, "refresh_benchmark: warning: deleting %s: %s\n", root.c_str(),
                 cleaned.ToString().c_str());
  }

  // ---- the JSON ----
  nlohmann::ordered_json out;
  out["refresh_seconds"] = a.seconds;
  out["refresh_threads"] = a.threads;
  out["refresh_describe_delay_ms"] = a.describe_delay_ms;
  out["refresh_lifetime_ms"] = a.lifetime_ms;
  out["refresh_offset_ms"] = a.offset_ms;
  out["refresh_read_bytes"] = a.read_bytes;
  out["refresh_object_bytes"] = a.object_bytes;
  out["refresh_rounds"] = rounds;
  out["refresh_none_credentials"] = a.none_static ? "static-key" : "sts-1h";
  int64_t failed_total = 0;
  auto round3 = [](double v) { return std::round(v * 1000.0) / 1000.0; };
  for (const auto& [mode, r] : results) {
    const auto& l = r.latencies_ms;
    double sum = 0;
    for (double v : l) sum += v;
    out["refresh_p50_ms_" + mode] = round3(Percentile(l, 0.50));
    out["refresh_p99_ms_" + mode] = round3(Percentile(l, 0.99));
    out["refresh_p999_ms_" + mode] = round3(Percentile(l, 0.999));
    out["refresh_max_ms_" + mode] = round3(l.empty() ? 0.0 : l.back());
    out["refresh_mean_ms_" + mode] =
        round3(l.empty() ? 0.0 : sum / static_cast<double>(l.size()));
    out["refresh_requests_" + mode] = static_cast<int64_t>(l.size());
    out["refresh_requests_per_s_" + mode] =
        round3(r.seconds > 0 ? static_cast<double>(l.size()) / r.seconds : 0.0);
    out["refresh_failed_requests_" + mode] = r.failed;
    out["refresh_fetches_" + mode] = r.fetches;
    out["refresh_describes_" + mode] = r.describes;
    out["refresh_waits_" + mode] = r.waits;
    out["refresh_max_wait_ms_" + mode] = r.max_wait_ms;
    failed_total += r.failed;
  }
  out["refresh_failed_requests"] = failed_total;
  const double none_p99 = Percentile(results["none"].latencies_ms, 0.99);
  for (const std::string mode : {"background", "inline"}) {
    out["refresh_p99_ratio_" + mode + "_vs_none"] = round3(
        none_p99 > 0 ? Percentile(results[mode].latencies_ms, 0.99) / none_p99 : 0.0);
  }
  std::ofstream file(a.out);
  file << out.dump(2) << "\n";
  if (!file) Die("writing " + a.out);
  std::fprintf(stderr, "refresh_benchmark: wrote %s\n", a.out.c_str());
  return 0;  // failed requests are a result (in the JSON), not a failure of the run
}

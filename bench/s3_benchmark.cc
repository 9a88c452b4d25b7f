// SPDX-License-Identifier: Apache-2.0
// The S3 part of `make bench` (scripts/run_bench.sh; docs/benchmarks.md, "S3").
//
//   s3_benchmark --out OUT.json --workdir DIR [--reps N] [--files F]
//       [--rows-per-file R] [--parallel P] [--bucket NAME] [--storage-option K=V]...
//       [--no-unsigned-write] [--no-scan] [--no-curl] [--diag-reps D]
//       [--server-pids PID,PID,...] [--keep]
//   s3_benchmark --scan-uri s3://BUCKET/DS --out OUT.json --workdir DIR [--reps N]
//       [--files F] [--rows-per-file R]
//
// --keep leaves the bucket and the last written dataset (its URI is "kept_dataset" in
// the JSON) for pylance (bench/pylance_bench.py s3), whose own dataset of the same rows
// --scan-uri then scans (N timed scans after one untimed full check; F and R must be
// those of the write, so that the generated input is the same). Every timed run records
// this process's peak RSS (VmHWM, reset just before it).
// --storage-option adds Lance storage options to every lance-cpp measurement (e.g.
// lance_cpp_multipart_part_size=67108864); --server-pids names the server's processes,
// whose CPU time is then recorded next to ours.
//
// Against the S3 server named by LANCE_S3_ENDPOINT, LANCE_S3_REGION,
// LANCE_S3_ACCESS_KEY, LANCE_S3_SECRET_KEY (what scripts/rgw.sh prints), in a bucket of
// its own that it creates and deletes with everything in it:
//
//  - write: Dataset::Write of F * R generated rows (~1.1 GiB by default, F data files)
//    to s3://BUCKET/wI.lance, N times; each against
//  - curl PUT: the same data files' bytes (downloaded once, untimed, to DIR) PUT by P
//    parallel `curl` processes, one per object (UNSIGNED-PAYLOAD, curl's own SigV4);
//  - scan: Dataset::Open + a streamed full scan of all columns of the last written
//    dataset (batches are checked and dropped), N times, after one untimed scan that is
//    compared with the input in full; each against
//  - curl GET: the same data files fetched whole by P parallel `curl` processes
//    (to /dev/null), and by one (P = 1) for reference.
// Diagnostics, to tell where a gap to curl comes from (--diag-reps times, default 2;
// skipped with --no-curl): S3Client::PutObject / GetObjectInto of the same objects,
// whole, on P threads -- the client alone, as curl does it, signed and unsigned payload.
// --no-scan (writes only) and --no-curl (lance-cpp only) are for experiments.
// Measurements alternate (write, PUT, write, PUT, ...; scan, GET, scan, GET, ...) so a
// change of machine load hits both sides. MB/s = bytes of the data files (as stored;
// what curl moves) / wall time, 1e6 B/s; median of N with min and max.
//
// Write variants: the headline uses the store's defaults (signed payload: the client
// hashes every part with SHA-256 and RGW verifies it); unless --no-unsigned-write, the
// same write with aws_unsigned_payload=true is measured too, which is what curl sends.
//
// Each measurement's objects are deleted right after it (untimed; RGW garbage-collects
// them in the background, 10 s later with scripts/rgw.sh's settings), and whatever is
// left, and the bucket, at the end and on failure.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_data.h"
#include "bench_util.h"
#include "io/s3/s3_client.h"
#include "lance/core/array.h"
#include "lance/core/array_data.h"
#include "lance/core/buffer.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/s3_object_store.h"

extern char** environ;

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Set once the bucket exists: Die() deletes it (and all in it) before exiting.
std::function<void()> g_cleanup;
// curl's config file with the key pair: Die() removes it too.
std::string g_secret_file;

// Run by bench::Die before it exits (main installs it).
void BeforeDie() {
  if (!g_secret_file.empty()) ::unlink(g_secret_file.c_str());
  if (g_cleanup) {
    auto c = std::move(g_cleanup);
    g_cleanup = nullptr;
    c();
  }
}

using bench::Check;
using bench::CpuChildren;
using bench::CpuSelf;
using bench::CpuServer;
using bench::Die;
using bench::Generate;
using bench::Input;
using bench::Median;
using bench::Now;

// ---------------------------------------------------------------------------------------
// Samples

struct Sample {
  double wall = 0;
  double cpu_self = 0;      // this process
  double cpu_children = 0;  // curl processes
  double cpu_server = 0;    // RGW + OSD + mon (when their pids are given)
  double peak_rss_mb = 0;   // this process's peak RSS during the run (VmHWM)
  double rss_before_mb = 0;
  json extra;  // request counts etc.
};

struct Timer {
  // The peak RSS is reset first (bench::ResetPeakRss), so Stop() reads the run's own.
  bool reset = (bench::ResetPeakRss(), true);
  double rss0 = bench::RssMb();
  double w0 = Now(), c0 = CpuSelf(), k0 = CpuChildren(), s0 = CpuServer();
  Sample Stop() const {
    Sample s;
    s.wall = Now() - w0;
    s.peak_rss_mb = bench::PeakRssMb();
    s.rss_before_mb = rss0;
    s.cpu_self = CpuSelf() - c0;
    s.cpu_children = CpuChildren() - k0;
    s.cpu_server = CpuServer() - s0;
    return s;
  }
};

json Summarize(const std::vector<Sample>& samples, int64_t bytes) {
  std::vector<double> wall, self, children, server;
  double peak = 0;
  json per_rep = json::array();
  for (const auto& s : samples) {
    peak = std::max(peak, s.peak_rss_mb);
    wall.push_back(s.wall);
    self.push_back(s.cpu_self);
    children.push_back(s.cpu_children);
    server.push_back(s.cpu_server);
    json r = s.extra.is_null() ? json::object() : s.extra;
    r["wall_s"] = s.wall;
    r["mb_s"] = static_cast<double>(bytes) / s.wall / 1e6;
    r["cpu_self_s"] = s.cpu_self;
    r["cpu_curl_s"] = s.cpu_children;
    r["cpu_server_s"] = s.cpu_server;
    r["peak_rss_mb"] = s.peak_rss_mb;
    r["rss_before_mb"] = s.rss_before_mb;
    per_rep.push_back(std::move(r));
  }
  const double med = Median(wall);
  const double lo = *std::min_element(wall.begin(), wall.end());
  const double hi = *std::max_element(wall.begin(), wall.end());
  return json{{"bytes", bytes},
              {"median_s", med},
              {"mb_s", static_cast<double>(bytes) / med / 1e6},
              {"min_mb_s", static_cast<double>(bytes) / hi / 1e6},
              {"max_mb_s", static_cast<double>(bytes) / lo / 1e6},
              {"cpu_self_median_s", Median(self)},
              {"cpu_curl_median_s", Median(children)},
              {"cpu_server_median_s", Median(server)},
              {"samples_s", wall},
              {"peak_rss_mb", peak},
              {"reps", per_rep}};
}

// ---------------------------------------------------------------------------------------
// The server

using Env = bench::RgwEnv;

std::shared_ptr<lance::io::S3ObjectStore> StoreFor(
    const std::string& bucket, const lance::io::StorageOptions& opts) {
  auto loc = Check(lance::io::ResolveObjectStore("s3://" + bucket, opts),
                   "resolving s3://" + bucket);
  auto s3 = std::dynamic_pointer_cast<lance::io::S3ObjectStore>(loc.store);
  if (!s3) Die("s3://" + bucket + " did not resolve to an S3ObjectStore");
  return s3;
}

std::vector<lance::io::ObjectMeta> ListAll(lance::io::ObjectStore& store,
                                           const std::string& prefix) {
  std::vector<lance::io::ObjectMeta> out;
  lance::io::ListOptions lo;
  lo.recursive = true;
  for (;;) {
    auto page = Check(store.List(prefix, lo), "listing " + prefix);
    for (auto& o : page.objects) out.push_back(std::move(o));
    if (page.next_token.empty()) break;
    lo.continuation_token = page.next_token;
  }
  return out;
}

struct StatsSnap {
  int64_t requests, retries, received, sent;
};
StatsSnap Snap(lance::io::S3ObjectStore& s) {
  auto& st = s.client()->stats();
  return {st.requests.load(), st.retries.load(), st.bytes_received.load(),
          st.bytes_sent.load()};
}
json StatsDelta(const StatsSnap& a, const StatsSnap& b) {
  const int64_t req = b.requests - a.requests;
  return json{{"requests", req},
              {"retries", b.retries - a.retries},
              {"bytes_received", b.received - a.received},
              {"bytes_sent", b.sent - a.sent},
              {"avg_bytes_received_per_request",
               req ? static_cast<double>(b.received - a.received) / req : 0.0},
              {"avg_bytes_sent_per_request",
               req ? static_cast<double>(b.sent - a.sent) / req : 0.0}};
}

// ---------------------------------------------------------------------------------------
// curl: one process per object, `parallel` at a time.

struct CurlJob {
  std::vector<std::string> args;  // after the common ones
  int64_t expect_bytes = 0;
  std::string what;
};

class Curl {
 public:
  Curl(const Env& env, const std::string& bucket, const std::string& workdir)
      : env_(env), bucket_(bucket), dir_(workdir + "/curl") {
    fs::create_directories(dir_);
    // The key pair goes in a config file readable only by us, not on a command line
    // that `ps` shows.
    cfg_ = dir_ + "/auth.cfg";
    g_secret_file = cfg_;
    const int fd = ::open(cfg_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) Die("cannot create " + cfg_);
    const std::string line = "user = \"" + env.access_key + ":" + env.secret_key + "\"\n";
    if (::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
      Die("cannot write " + cfg_);
    ::close(fd);
  }
  ~Curl() {
    fs::remove_all(dir_);
    g_secret_file.clear();
  }

  std::string Url(const std::string& key) const {
    return env_.endpoint + "/" + bucket_ + "/" + key;
  }

  // Runs the jobs, `parallel` at a time; dies on any failure or size mismatch.
  void Run(const std::vector<CurlJob>& jobs, int parallel, const char* size_var) {
    std::atomic<size_t> next{0};
    std::mutex mu;
    std::string error;
    auto worker = [&](int w) {
      const std::string out = dir_ + "/w" + std::to_string(w) + ".out";
      const std::string err = dir_ + "/w" + std::to_string(w) + ".err";
      for (size_t i; (i = next.fetch_add(1)) < jobs.size();) {
        const CurlJob& job = jobs[i];
        std::vector<std::string> argv = {"curl",
                                         "-sS",
                                         "--fail",
                                         "-K",
                                         cfg_,
                                         "--aws-sigv4",
                                         "aws:amz:" + env_.region + ":s3",
                                         "-H",
                                         "x-amz-content-sha256: UNSIGNED-PAYLOAD",
                                         "-w",
                                         std::string("%{http_code} %{") + size_var + "}"};
        argv.insert(argv.end(), job.args.begin(), job.args.end());
        std::string problem = Spawn(argv, out, err);
        if (problem.empty()) {
          std::ifstream f(out);
          int code = 0;
          int64_t size = -1;
          f >> code >> size;
          if (code < 200 || code > 299 || size != job.expect_bytes) {
            problem = "HTTP " + std::to_string(code) + ", " + std::to_string(size) +
                      " bytes, expected " + std::to_string(job.expect_bytes);
          }
        }
        if (!problem.empty()) {
          std::ifstream e(err);
          std::string msg((std::istreambuf_iterator<char>(e)), {});
          std::lock_guard<std::mutex> lock(mu);
          if (error.empty()) {
            error = "curl ";
            error += job.what;
            error += ": ";
            error += problem;
            error += " ";
            error += msg;
          }
        }
      }
    };
    std::vector<std::thread> pool;
    pool.reserve(static_cast<size_t>(parallel));
    for (int w = 0; w < parallel; ++w) pool.emplace_back(worker, w);
    for (auto& t : pool) t.join();
    if (!error.empty()) Die(error);
  }

 private:
  // posix_spawn + wait; stdout/stderr to files. Returns "" on exit status 0.
  static std::string Spawn(const std::vector<std::string>& args, const std::string& out,
                           const std::string& err) {
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, "curl", &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return std::string("cannot run curl: ") + std::strerror(rc);
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) return "waitpid failed";
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      return "exit status " +
             std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    return "";
  }

  Env env_;
  std::string bucket_;
  std::string dir_;
  std::string cfg_;
};

// Runs fn(i) for i in [0, n) on `parallel` threads (each takes the next index).
void ParallelFor(int64_t n, int parallel, const std::function<void(int64_t, int)>& fn) {
  std::atomic<int64_t> next{0};
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(parallel));
  for (int w = 0; w < parallel; ++w) {
    pool.emplace_back([&, w] {
      for (int64_t i; (i = next.fetch_add(1)) < n;) fn(i, w);
    });
  }
  for (auto& t : pool) t.join();
}

// ---------------------------------------------------------------------------------------
// The measurements

struct Args {
  std::string out, workdir, bucket;
  int reps = 3;
  int diag_reps = 2;
  int files = 16;
  int64_t rows_per_file = 512 * 1024;
  int64_t batch_rows = 128 * 1024;
  int parallel = 4;
  bool unsigned_write = true;
  bool scan = true;      // --no-scan: writes only (for experiments with write options)
  bool curl = true;      // --no-curl: lance-cpp only
  bool keep = false;     // --keep: leave the bucket and the last written dataset
  std::string scan_uri;  // --scan-uri: only time scans of this dataset (another's)
  lance::io::StorageOptions extra_options;
};

std::string DefaultBucket() {
  char buf[64];
  std::snprintf(buf, sizeof buf, "lance-bench-%lx-%d",
                static_cast<unsigned long>(std::time(nullptr)),
                static_cast<int>(getpid()));
  return buf;
}

std::string Key(const std::string& dataset, const std::string& rest) {
  return dataset + "/" + rest;
}

// Streams all columns of the dataset and drops the batches; checks the row count and
// the id sum. With `full_check`, also compares every batch with the input rows it should
// hold (streamed, so no second copy of the data is built).
json ScanOnce(const std::string& uri, const lance::io::StorageOptions& opts,
              const Input& in, bool full_check = false) {
  lance::OpenOptions oo;
  oo.access.storage_options = opts;
  auto ds = Check(lance::Dataset::Open(uri, oo), "opening " + uri);
  auto reader = Check(ds->Scan(), "scanning " + uri);
  int64_t rows = 0, id_sum = 0, batches = 0;
  size_t in_batch = 0;  // the input position of the next scanned row
  int64_t in_offset = 0;
  for (;;) {
    auto b = Check(reader->Next(), "scanning " + uri);
    if (!b) break;
    ++batches;
    rows += b->num_rows();
    const auto& ids = static_cast<const lance::Int64Array&>(*b->column(0));
    for (int64_t i = 0; i < ids.length(); ++i) id_sum += ids.Value(i);
    if (!full_check) continue;
    for (int64_t done = 0; done < b->num_rows();) {
      if (in_batch >= in.batches.size()) Die("scan of " + uri + " returned extra rows");
      const auto& src = in.batches[in_batch];
      const int64_t n = std::min(b->num_rows() - done, src->num_rows() - in_offset);
      if (!b->Slice(done, n)->Equals(*src->Slice(in_offset, n))) {
        Die("scan of " + uri + " differs from the input at row " +
            std::to_string(rows - b->num_rows() + done));
      }
      done += n;
      in_offset += n;
      if (in_offset == src->num_rows()) {
        ++in_batch;
        in_offset = 0;
      }
    }
  }
  if (rows != in.rows || id_sum != in.id_sum) {
    Die("scan of " + uri + " returned " + std::to_string(rows) + " rows (id sum " +
        std::to_string(id_sum) + "), expected " + std::to_string(in.rows) + " (" +
        std::to_string(in.id_sum) + ")");
  }
  return json{{"batches", batches}};
}

using Flag = bench::Flag<Args>;
// Besides bench::kObjectStoreFlags.
const Flag kFlags[] = {
    // Where: the scratch directory, the bucket (deleted at the end unless --keep).
    {"--workdir", true, bench::Store<&Args::workdir>},
    {"--bucket", true, bench::Store<&Args::bucket>},
    {"--keep", false, bench::Set<&Args::keep, true>},
    // lance-cpp's writes: further storage options; no unsigned-payload series.
    {"--storage-option", true, bench::StoreKeyValue<&Args::extra_options>},
    {"--no-unsigned-write", false, bench::Set<&Args::unsigned_write, false>},
    // curl and the client diagnostics: P processes (threads) at a time, D repetitions.
    {"--parallel", true, bench::Store<&Args::parallel>},
    {"--no-curl", false, bench::Set<&Args::curl, false>},
    {"--diag-reps", true, bench::Store<&Args::diag_reps>},
};

}  // namespace

int main(int argc, char** argv) {
  bench::g_before_die = BeforeDie;
  Args a;
  bench::ApplyFlagTables<Args>(argc, argv, 1, {kFlags, bench::kObjectStoreFlags<Args>},
                               &a);
  if (a.out.empty() || a.workdir.empty()) Die("--out and --workdir are required");
  if (a.reps < 1 || a.files < 1 || a.rows_per_file < 1 || a.parallel < 1)
    Die("--reps, --files, --rows-per-file and --parallel must be >= 1");
  if (a.bucket.empty()) a.bucket = DefaultBucket();

  const Env env = bench::ReadRgwEnv();
  lance::io::StorageOptions opts = bench::StaticS3Options(env);
  for (const auto& [k, v] : a.extra_options) opts[k] = v;
  lance::io::StorageOptions unsigned_opts = opts;
  unsigned_opts["aws_unsigned_payload"] = "true";

  json out;
  out["engine"] = "lance-cpp";
  out["endpoint"] = env.endpoint;
  out["bucket"] = a.bucket;
  out["hardware_threads"] = std::thread::hardware_concurrency();

  if (!a.scan_uri.empty()) {
    // Scans of another engine's dataset of the same rows (pylance's, written from
    // lance-cpp's): one untimed scan compared with the input in full, then N timed.
    const Input in = Generate(a.files * a.rows_per_file, a.batch_rows);
    std::cerr << "[s3] scan of " << a.scan_uri << " (untimed, checked)" << std::flush;
    double c0 = Now();
    ScanOnce(a.scan_uri, opts, in, /*full_check=*/true);
    std::cerr << ": " << Now() - c0 << " s, equal" << std::endl;
    std::vector<Sample> scans;
    for (int rep = 0; rep < a.reps; ++rep) {
      Timer t;
      json info = ScanOnce(a.scan_uri, opts, in);
      scans.push_back(t.Stop());
      scans.back().extra = info;
      std::cerr << "[s3] scan " << rep + 1 << "/" << a.reps << ": " << scans.back().wall
                << " s" << std::endl;
    }
    out["scan_uri"] = a.scan_uri;
    out["rows"] = in.rows;
    out["scan_other"] = Summarize(scans, 0);  // MB/s: report.py (lance-cpp's bytes)
    std::ofstream f(a.out);
    f << out.dump(2) << "\n";
    if (!f) Die("cannot write " + a.out);
    return 0;
  }

  // ---- bucket (deleted with everything in it at the end, or by Die)
  auto store = StoreFor(a.bucket, opts);
  out["store"] = store->ToString();
  Check(store->client()->CreateBucket(), "creating bucket " + a.bucket);
  g_cleanup = [store, bucket = a.bucket] {
    const double t0 = Now();
    auto st = store->DeletePrefix("");
    if (st.ok()) st = store->client()->DeleteBucket();
    if (!st.ok()) {
      std::cerr << "s3_benchmark: cleaning up bucket " << bucket << ": " << st.ToString()
                << std::endl;
    } else {
      std::cerr << "[s3] deleted bucket " << bucket << " and its objects in "
                << Now() - t0 << " s" << std::endl;
    }
  };
  std::cerr << "[s3] bucket s3://" << a.bucket << " on " << env.endpoint << std::endl;

  // ---- data
  double t0 = Now();
  const Input in = Generate(a.files * a.rows_per_file, a.batch_rows);
  std::cerr << "[s3] generated " << in.rows << " rows, " << in.logical_bytes
            << " logical bytes in " << Now() - t0 << " s" << std::endl;
  out["rows"] = in.rows;
  out["logical_bytes"] = in.logical_bytes;

  lance::WriteParams wp;
  wp.max_rows_per_file = a.rows_per_file;
  wp.access.storage_options = opts;
  lance::WriteParams wp_unsigned = wp;
  wp_unsigned.access.storage_options = unsigned_opts;
  auto unsigned_store = StoreFor(a.bucket, unsigned_opts);  // held: the writes use it

  Curl curl(env, a.bucket, a.workdir);
  const std::string put_src = a.workdir + "/curl-put-src";
  fs::create_directories(put_src);

  // ---- writes, alternating with curl PUTs
  std::vector<Sample> writes, writes_unsigned, puts;
  std::vector<lance::io::ObjectMeta> data_files;
  int64_t data_bytes = 0;
  std::string last_ds;
  auto timed_write = [&](const std::string& ds, const lance::WriteParams& p,
                         lance::io::S3ObjectStore& s) {
    auto reader = lance::RecordBatchReader::FromBatches(in.schema, in.batches);
    const StatsSnap before = Snap(s);
    Timer t;
    Check(lance::Dataset::Write(*reader, "s3://" + a.bucket + "/" + ds, p),
          "writing s3://" + a.bucket + "/" + ds);
    Sample smp = t.Stop();
    smp.extra = StatsDelta(before, Snap(s));
    smp.extra["dataset"] = ds;
    return smp;
  };
  // Each measurement's objects are deleted (untimed) once measured: a run writes ~15
  // times the data, more than the test RGW's 16 GiB store holds.
  auto drop = [&](const std::string& prefix) {
    Check(store->DeletePrefix(prefix), "deleting " + prefix);
  };
  for (int rep = 0; rep < a.reps; ++rep) {
    const std::string ds = "w" + std::to_string(rep) + ".lance";
    std::cerr << "[s3] write " << rep + 1 << "/" << a.reps << std::flush;
    writes.push_back(timed_write(ds, wp, *store));
    std::cerr << ": " << writes.back().wall << " s" << std::flush;
    auto files = ListAll(*store, Key(ds, "data/"));
    int64_t bytes = 0;
    for (const auto& f : files) bytes += f.size;
    if (rep == 0) {
      data_files = files;
      data_bytes = bytes;
      if (static_cast<int>(files.size()) != a.files)
        Die("expected " + std::to_string(a.files) + " data files, got " +
            std::to_string(files.size()));
      if (a.curl) {
        // The PUT source: the data files' own bytes, fetched once (untimed).
        std::vector<CurlJob> jobs;
        jobs.reserve(files.size());
        for (const auto& f : files) {
          jobs.push_back({{"-o", put_src + "/" + fs::path(f.path).filename().string(),
                           curl.Url(f.path)},
                          f.size,
                          "GET " + f.path});
        }
        curl.Run(jobs, a.parallel, "size_download");
      }
    } else if (bytes != data_bytes || files.size() != data_files.size()) {
      // Same input, same writer: the files must come out the same size.
      Die("write " + std::to_string(rep) + " produced " + std::to_string(bytes) +
          " bytes of data files, the first " + std::to_string(data_bytes));
    }
    if (!last_ds.empty()) drop(last_ds + "/");
    last_ds = ds;  // kept for the scans

    if (a.unsigned_write) {
      const std::string uds = "u" + std::to_string(rep) + ".lance";
      writes_unsigned.push_back(timed_write(uds, wp_unsigned, *unsigned_store));
      std::cerr << ", unsigned payload " << writes_unsigned.back().wall << " s"
                << std::flush;
      drop(uds + "/");
    }

    if (a.curl) {
      std::vector<CurlJob> jobs;
      jobs.reserve(data_files.size());
      for (const auto& f : data_files) {
        const std::string name = fs::path(f.path).filename().string();
        std::string key = "curl-put" + std::to_string(rep);
        key += "/";
        key += name;
        std::string src = put_src;
        src += "/";
        src += name;
        jobs.push_back(
            {{"-o", "/dev/null", "-T", src, curl.Url(key)}, f.size, "PUT " + name});
      }
      Timer t;
      curl.Run(jobs, a.parallel, "size_upload");
      puts.push_back(t.Stop());
      std::cerr << ", curl PUT " << puts.back().wall << " s";
      drop("curl-put" + std::to_string(rep) + "/");
    }
    std::cerr << std::endl;
  }
  out["data_files"] = data_files.size();
  out["data_file_bytes"] = data_bytes;
  {
    json sizes = json::array();
    for (const auto& f : data_files) sizes.push_back(f.size);
    out["data_file_sizes"] = sizes;
  }

  // ---- diagnostics: where a gap to curl comes from. S3Client::PutObject /
  // GetObjectInto of the same objects, whole, P at a time, as curl does: the client
  // alone, without the Lance writer or reader.
  std::vector<Sample> client_puts, client_puts_unsigned, client_gets;
  if (a.curl && a.diag_reps > 0) {
    std::vector<std::string> bodies;
    int64_t largest = 0;
    for (const auto& f : data_files) {
      std::ifstream src(put_src + "/" + fs::path(f.path).filename().string(),
                        std::ios::binary);
      std::string body(static_cast<size_t>(f.size), '\0');
      if (!src.read(body.data(), f.size)) Die("cannot read the PUT source of " + f.path);
      bodies.push_back(std::move(body));
      largest = std::max(largest, f.size);
    }
    // GETs read the dataset that is kept (the earlier ones are deleted by now).
    const auto get_files = ListAll(*store, Key(last_ds, "data/"));
    for (const auto& f : get_files) largest = std::max(largest, f.size);
    std::vector<std::unique_ptr<uint8_t[]>> sinks(static_cast<size_t>(a.parallel));
    for (auto& b : sinks) b.reset(new uint8_t[static_cast<size_t>(largest)]);
    auto& client = *store->client();
    for (int rep = 0; rep < a.diag_reps; ++rep) {
      std::mutex mu;
      lance::Status first;
      auto note = [&](const lance::Status& st) {
        std::lock_guard<std::mutex> lock(mu);
        if (first.ok() && !st.ok()) first = st;
      };
      auto client_put = [&](lance::io::S3ObjectStore& s, const std::string& prefix) {
        std::cerr << " " << prefix << " x" << a.parallel << std::flush;
        const StatsSnap before = Snap(s);
        Timer t;
        ParallelFor(
            static_cast<int64_t>(data_files.size()), a.parallel, [&](int64_t i, int) {
              const std::string key = prefix + std::to_string(rep) + "/" +
                                      fs::path(data_files[i].path).filename().string();
              note(s.client()->PutObject(key, bodies[i]).status());
            });
        Sample smp = t.Stop();
        smp.extra = StatsDelta(before, Snap(s));
        Check(first, "client PUT");
        std::cerr << ": " << smp.wall << " s," << std::flush;
        drop(prefix + std::to_string(rep) + "/");
        return smp;
      };
      std::cerr << "[s3]";
      client_puts.push_back(client_put(*store, "client-put"));
      if (a.unsigned_write)
        client_puts_unsigned.push_back(
            client_put(*unsigned_store, "client-put-unsigned"));
      std::cerr << " client GET x" << a.parallel << std::flush;

      const StatsSnap before_get = Snap(*store);
      Timer g;
      ParallelFor(static_cast<int64_t>(get_files.size()), a.parallel,
                  [&](int64_t i, int w) {
                    auto got = client.GetObjectInto(get_files[i].path, 0,
                                                    get_files[i].size, sinks[w].get());
                    if (got.ok() && *got != get_files[i].size)
                      got = lance::Status::IOError("short GET");
                    note(got.status());
                  });
      client_gets.push_back(g.Stop());
      client_gets.back().extra = StatsDelta(before_get, Snap(*store));
      Check(first, "client GET");
      std::cerr << ": " << client_gets.back().wall << " s" << std::flush;

      std::cerr << std::endl;
    }
  }
  fs::remove_all(put_src);

  // ---- scans, alternating with curl GETs (P streams, and 1 for reference)
  std::vector<Sample> scans, gets, gets1;
  if (a.scan) {
    const std::string scan_uri = "s3://" + a.bucket + "/" + last_ds;
    {
      // Untimed: the scan equals the input, and connections are warm.
      std::cerr << "[s3] scan (untimed, checked against the input)" << std::flush;
      t0 = Now();
      ScanOnce(scan_uri, opts, in, /*full_check=*/true);
      std::cerr << ": " << Now() - t0 << " s, equal" << std::endl;
    }
    std::vector<CurlJob> get_jobs;
    for (const auto& f : ListAll(*store, Key(last_ds, "data/")))
      get_jobs.push_back(
          {{"-o", "/dev/null", curl.Url(f.path)}, f.size, "GET " + f.path});
    for (int rep = 0; rep < a.reps; ++rep) {
      std::cerr << "[s3] scan " << rep + 1 << "/" << a.reps << std::flush;
      const StatsSnap before = Snap(*store);
      Timer t;
      json info = ScanOnce(scan_uri, opts, in);
      scans.push_back(t.Stop());
      scans.back().extra = StatsDelta(before, Snap(*store));
      scans.back().extra.update(info);
      std::cerr << ": " << scans.back().wall << " s" << std::flush;
      if (a.curl) {
        Timer g;
        curl.Run(get_jobs, a.parallel, "size_download");
        gets.push_back(g.Stop());
        std::cerr << ", curl GET x" << a.parallel << " " << gets.back().wall << " s"
                  << std::flush;
        Timer g1;
        curl.Run(get_jobs, 1, "size_download");
        gets1.push_back(g1.Stop());
        std::cerr << ", curl GET x1 " << gets1.back().wall << " s";
      }
      std::cerr << std::endl;
    }
  }

  auto put = [&](const char* key, const std::vector<Sample>& samples) {
    if (!samples.empty()) out[key] = Summarize(samples, data_bytes);
  };
  put("write", writes);
  put("write_unsigned_payload", writes_unsigned);
  put("curl_put", puts);
  put("scan", scans);
  put("curl_get", gets);
  put("curl_get_1", gets1);
  put("client_put", client_puts);
  put("client_put_unsigned_payload", client_puts_unsigned);
  put("client_get", client_gets);
  const auto& so = store->client()->options();
  out["settings"] = {
      {"reps", a.reps},
      {"diag_reps", a.diag_reps},
      {"files", a.files},
      {"rows_per_file", a.rows_per_file},
      {"input_batch_rows", a.batch_rows},
      {"curl_parallel", a.parallel},
      {"multipart_part_size", so.multipart_part_size},
      {"multipart_concurrency", so.multipart_concurrency},
      {"read_chunk_size", so.read_chunk_size},
      {"max_connections", so.max_connections},
      {"unsigned_payload_default", so.unsigned_payload},
      {"scan_batch_size", lance::ScanOptions{}.batch_size},
  };

  // ---- cleanup (with --keep the bucket and the last dataset stay, for pylance)
  auto c = std::move(g_cleanup);
  g_cleanup = nullptr;
  if (a.keep) {
    out["kept_dataset"] = "s3://" + a.bucket + "/" + last_ds;
  } else {
    c();
  }

  std::ofstream f(a.out);
  f << out.dump(2) << "\n";
  if (!f) Die("cannot write " + a.out);

  std::cerr << "[s3] MB/s:";
  for (const char* k :
       {"write", "write_unsigned_payload", "curl_put", "client_put",
        "client_put_unsigned_payload", "scan", "curl_get", "curl_get_1", "client_get"}) {
    if (out.contains(k)) std::cerr << " " << k << " " << out[k]["mb_s"].get<double>();
  }
  std::cerr << " -> " << a.out << std::endl;
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// The Azure and GCS parts of `make bench` (scripts/run_bench.sh; docs/benchmarks.md,
// "Azure and GCS (emulators)"): lance-cpp's side. Public API only.
//
//   cloud_benchmark --root az://CONTAINER | gs://BUCKET --out OUT.json [--reps N]
//       [--files F] [--rows-per-file R] [--storage-option K=V]... [--server-pids P,...]
//       [--no-scan]
//   cloud_benchmark --scan-uri URI --out OUT.json [--reps N] [--files F]
//       [--rows-per-file R] [--storage-option K=V]... [--server-pids P,...]
//
// The first form writes F * R generated rows (bench/bench_data.h: the S3 part's rows) as
// a dataset of F data files, ROOT/wI.lance, N times (each copy but the last deleted right
// after it, untimed), then scans the last copy: one untimed scan compared with the input
// in full, then N timed scans. The last copy stays ("kept_dataset" in the JSON, with its
// data files' keys and sizes): bench/cloud_bench.py then times curl GET / PUT of exactly
// those objects and pylance's scan of that dataset and write of the same rows. The second
// form scans another engine's dataset of the same rows (F and R as its writer's): one
// checked scan, then N timed. --no-scan: the writes only (the GCS part times lance-cpp's
// write through the same translating proxy as pylance's too).
//
// A scan reads every value: Dataset::Open, a streamed scan of all columns, and per batch
// the sums of id, x and k and the total length of s (checked: row count, id sum, string
// bytes). Every timed run records wall and CPU seconds of this process, of the server's
// processes (--server-pids: Azurite's node, fake-gcs-server), and the peak RSS.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_data.h"
#include "bench_util.h"
#include "lance/dataset/dataset.h"
#include "lance/io/object_store_registry.h"

using json = nlohmann::json;

namespace {

using bench::Check;
using bench::CpuSelf;
using bench::CpuServer;
using bench::Die;
using bench::Median;
using bench::Now;

struct Sample {
  double wall = 0, cpu_self = 0, cpu_server = 0, peak_rss_mb = 0;
};

struct Timer {
  bool reset = (bench::ResetPeakRss(), true);
  double w0 = Now(), c0 = CpuSelf(), s0 = CpuServer();
  Sample Stop() const {
    return {Now() - w0, CpuSelf() - c0, CpuServer() - s0, bench::PeakRssMb()};
  }
};

// MB/s over `bytes` (the data files' bytes; 0 when not known here: report.py divides).
json Summarize(const std::vector<Sample>& samples, int64_t bytes) {
  std::vector<double> wall, self, server;
  double peak = 0;
  for (const auto& s : samples) {
    wall.push_back(s.wall);
    self.push_back(s.cpu_self);
    server.push_back(s.cpu_server);
    peak = std::max(peak, s.peak_rss_mb);
  }
  const double med = Median(wall);
  return json{{"bytes", bytes},
              {"median_s", med},
              {"mb_s", bytes > 0 ? static_cast<double>(bytes) / med / 1e6 : 0.0},
              {"samples_s", wall},
              {"cpu_self_median_s", Median(self)},
              {"cpu_server_median_s", Median(server)},
              {"peak_rss_mb", peak}};
}

// One scan of all columns, every value read (see the top); with `full_check` every batch
// is also compared with the input rows it should hold.
void ScanOnce(const std::string& uri, const lance::io::StorageOptions& opts,
              const bench::Input& in, bool full_check = false) {
  lance::OpenOptions oo;
  oo.access.storage_options = opts;
  auto ds = Check(lance::Dataset::Open(uri, oo), "opening " + uri);
  auto reader = Check(ds->Scan(), "scanning " + uri);
  int64_t rows = 0, id_sum = 0, k_sum = 0, s_bytes = 0;
  double x_sum = 0;
  size_t in_batch = 0;
  int64_t in_offset = 0;
  for (;;) {
    auto b = Check(reader->Next(), "scanning " + uri);
    if (!b) break;
    const int64_t n = b->num_rows();
    const auto& id = static_cast<const lance::Int64Array&>(*b->column(0));
    const auto& x = static_cast<const lance::DoubleArray&>(*b->column(1));
    const auto& k = static_cast<const lance::Int64Array&>(*b->column(2));
    const auto& s = static_cast<const lance::StringArray&>(*b->column(3));
    for (int64_t i = 0; i < n; ++i) {
      id_sum += id.Value(i);
      x_sum += x.Value(i);
      k_sum += k.Value(i);  // wraps: only read, never compared
      s_bytes += static_cast<int64_t>(s.GetView(i).size());
    }
    rows += n;
    if (!full_check) continue;
    for (int64_t done = 0; done < n;) {
      if (in_batch >= in.batches.size()) Die("scan of " + uri + " returned extra rows");
      const auto& src = in.batches[in_batch];
      const int64_t m = std::min(n - done, src->num_rows() - in_offset);
      if (!b->Slice(done, m)->Equals(*src->Slice(in_offset, m))) {
        Die("scan of " + uri + " differs from the input at row " +
            std::to_string(rows - n + done));
      }
      done += m;
      in_offset += m;
      if (in_offset == src->num_rows()) {
        ++in_batch;
        in_offset = 0;
      }
    }
  }
  if (rows != in.rows || id_sum != in.id_sum || s_bytes != in.string_bytes || x_sum < 0 ||
      k_sum == 1) {
    Die("scan of " + uri + " returned " + std::to_string(rows) + " rows (id sum " +
        std::to_string(id_sum) + ", " + std::to_string(s_bytes) +
        " string bytes), expected " + std::to_string(in.rows) + " (" +
        std::to_string(in.id_sum) + ", " + std::to_string(in.string_bytes) + ")");
  }
}

struct Args {
  std::string root, out, scan_uri;
  int reps = 3;
  int files = 4;
  int64_t rows_per_file = 256 * 1024;
  int64_t batch_rows = 128 * 1024;
  bool scan = true;  // --no-scan: the writes only
  lance::io::StorageOptions options;
};

using Flag = bench::Flag<Args>;
// Besides bench::kObjectStoreFlags.
const Flag kFlags[] = {
    {"--root", true, bench::Store<&Args::root>},
    {"--storage-option", true, bench::StoreKeyValue<&Args::options>},
};

std::vector<Sample> TimedScans(const std::string& uri, const Args& a,
                               const bench::Input& in, const char* tag) {
  std::cerr << "[" << tag << "] scan of " << uri << " (untimed, checked)" << std::flush;
  const double c0 = Now();
  ScanOnce(uri, a.options, in, /*full_check=*/true);
  std::cerr << ": " << Now() - c0 << " s, equal" << std::endl;
  std::vector<Sample> scans;
  for (int rep = 0; rep < a.reps; ++rep) {
    Timer t;
    ScanOnce(uri, a.options, in);
    scans.push_back(t.Stop());
    std::cerr << "[" << tag << "] scan " << rep + 1 << "/" << a.reps << ": "
              << scans.back().wall << " s" << std::endl;
  }
  return scans;
}

void WriteJson(const std::string& path, const json& out) {
  std::ofstream f(path);
  f << out.dump(2) << "\n";
  if (!f) Die("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  bench::ApplyFlagTables<Args>(argc, argv, 1, {kFlags, bench::kObjectStoreFlags<Args>},
                               &a);
  if (a.out.empty() || (a.root.empty() == a.scan_uri.empty()))
    Die("--out and one of --root / --scan-uri are required");
  if (a.reps < 1 || a.files < 1 || a.rows_per_file < 1)
    Die("--reps, --files and --rows-per-file must be >= 1");
  const bench::Input in = bench::Generate(a.files * a.rows_per_file, a.batch_rows);
  json out{{"engine", "lance-cpp"},
           {"rows", in.rows},
           {"logical_bytes", in.logical_bytes},
           {"hardware_threads", std::thread::hardware_concurrency()},
           {"settings",
            {{"reps", a.reps}, {"files", a.files}, {"rows_per_file", a.rows_per_file}}}};
  const char* tag =
      (a.root.empty() ? a.scan_uri : a.root).rfind("az://", 0) == 0 ? "azure" : "gcs";
  if (!a.scan_uri.empty()) {
    out["scan_uri"] = a.scan_uri;
    out["scan_other"] = Summarize(TimedScans(a.scan_uri, a, in, tag), 0);
    WriteJson(a.out, out);
    return 0;
  }

  while (!a.root.empty() && a.root.back() == '/') a.root.pop_back();
  auto loc =
      Check(lance::io::ResolveObjectStore(a.root, a.options), "resolving " + a.root);
  auto& store = *loc.store;
  std::string prefix = loc.path;
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  out["store"] = store.ToString();

  lance::WriteParams wp;
  wp.max_rows_per_file = a.rows_per_file;
  wp.access.storage_options = a.options;
  std::vector<Sample> writes;
  std::string last;
  std::vector<lance::io::ObjectMeta> files;
  for (int rep = 0; rep < a.reps; ++rep) {
    const std::string ds = "w" + std::to_string(rep) + ".lance";
    auto reader = lance::RecordBatchReader::FromBatches(in.schema, in.batches);
    Timer t;
    Check(lance::Dataset::Write(*reader, a.root + "/" + ds, wp), "writing " + ds);
    writes.push_back(t.Stop());
    std::cerr << "[" << tag << "] write " << rep + 1 << "/" << a.reps << ": "
              << writes.back().wall << " s" << std::endl;
    auto listed = Check(store.ListAll(prefix + ds + "/data/", true), "listing " + ds);
    if (static_cast<int>(listed.objects.size()) != a.files)
      Die("expected " + std::to_string(a.files) + " data files in " + ds + ", got " +
          std::to_string(listed.objects.size()));
    files = std::move(listed.objects);
    if (!last.empty()) Check(store.DeletePrefix(prefix + last + "/"), "deleting " + last);
    last = ds;
  }
  int64_t data_bytes = 0;
  json keys = json::array(), sizes = json::array();
  for (const auto& f : files) {
    data_bytes += f.size;
    keys.push_back(f.path);
    sizes.push_back(f.size);
  }
  const std::string kept = a.root + "/" + last;
  out["write"] = Summarize(writes, data_bytes);
  if (a.scan) out["scan"] = Summarize(TimedScans(kept, a, in, tag), data_bytes);
  out["kept_dataset"] = kept;
  out["data_files"] = files.size();
  out["data_file_bytes"] = data_bytes;
  out["data_file_keys"] = keys;  // relative to the container / bucket
  out["data_file_sizes"] = sizes;
  WriteJson(a.out, out);
  std::cerr << "[" << tag << "] MB/s: write " << out["write"]["mb_s"].get<double>()
            << (a.scan ? " scan " + std::to_string(out["scan"]["mb_s"].get<double>())
                       : "")
            << " -> " << a.out << std::endl;
  return 0;
}

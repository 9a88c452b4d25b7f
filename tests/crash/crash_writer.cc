// SPDX-License-Identifier: Apache-2.0
// crash_writer: the victim of the crash harness (tests/crash/test_crash.py,
// scripts/soak.sh).
//
//   crash_writer --uri URI --seed S --ops N --ledger FILE [--first-op K]
//                [--force-kind KIND] [--large-rows R]
//                [--kill-at-store-op N [--kill-mode kill|tear|after] [--kill-in-op K]]
//                [--fsync 0|1]
//
// Runs ops K .. K+N-1 of the seeded sequence on URI (a path or s3://; for s3 the test
// RGW's LANCE_S3_* environment gives the storage options). Op 0 creates the dataset;
// every later op is, by hash(seed, op), an append, overwrite, delete or a distributed
// write (WriteFragments + Commit of an Append), unless --force-kind names one ("append",
// "append_large", "overwrite", "delete", "fragments", "create"). Rows of op k: ids
// k*1e6 + i (i < n_k), opk = k, v = id / 4, s = "row-<id>"; n_k and the delete ranges
// come from hash(seed, k) so the driver rebuilds the expected table (same hash in
// test_crash.py). Before an op starts, "intent k KIND" is appended to the ledger and
// fsynced; after its commit returned, "done k version V".
//
// The dataset is reached through a FaultStore decorator (tests/testing/fault_store.h)
// installed as "crash://w/<key>" over the store the URI resolves to: it forwards every
// call unchanged, except that with --kill-at-store-op N the N-th mutating store call of
// op --kill-in-op (default: the first op run) SIGKILLs this process -- before the call
// (kill), after writing half its bytes where a crash leaves them (tear), or after the
// call (after). The ledger gets "kill STEP_NAME N" first. --fsync 0 (local disk only)
// writes without fsync: a process kill loses nothing the kernel holds, so the calls
// and their order are the same, only faster.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/builder.h"
#include "lance/dataset/dataset.h"
#include "lance/io/local_object_store.h"
#include "lance/io/object_store_registry.h"
#include "lance/macros.h"
#include "tests/testing/fault_store.h"
#include "tests/testing/s3_env.h"

namespace {

using lance::Status;
using lance::testing::FaultSpec;
using lance::testing::FaultStore;
using lance::testing::StepRecord;
using lance::testing::StoreFault;

constexpr uint64_t kMask = ~uint64_t{0};
constexpr int64_t kIdStride = 1000000;

uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  uint64_t z = x;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return (z ^ (z >> 31)) & kMask;
}

// The one hash of the harness; test_crash.py has the same.
uint64_t H(uint64_t seed, uint64_t k, uint64_t salt) {
  return Mix(Mix(seed) ^ (k * 1315423911ULL + salt));
}

std::string KindOf(uint64_t seed, uint64_t k) {
  if (k == 0) return "create";
  static const char* kKinds[] = {"append", "append", "overwrite",
                                 "delete", "delete", "fragments"};
  return kKinds[H(seed, k, 1) % 6];
}

int64_t RowsOf(uint64_t seed, uint64_t k, const std::string& kind, int64_t large_rows) {
  if (kind == "append_large") return large_rows;
  return 1 + static_cast<int64_t>(H(seed, k, 2) % 60);
}

std::string DeletePredicate(uint64_t seed, uint64_t k) {
  const uint64_t j = H(seed, k, 3) % k;
  const int64_t lo =
      static_cast<int64_t>(j) * kIdStride + static_cast<int64_t>(H(seed, k, 4) % 50);
  const int64_t hi = lo + 1 + static_cast<int64_t>(H(seed, k, 5) % 30);
  return "id >= " + std::to_string(lo) + " AND id < " + std::to_string(hi);
}

lance::SchemaPtr RowSchema() {
  return lance::schema({lance::field("id", lance::int64(), false),
                        lance::field("opk", lance::int32(), false),
                        lance::field("v", lance::float64()),
                        lance::field("s", lance::utf8())});
}

lance::Result<std::unique_ptr<lance::RecordBatchReader>> Rows(int64_t k, int64_t n) {
  std::vector<std::shared_ptr<lance::RecordBatch>> batches;
  constexpr int64_t kBatch = 65536;
  for (int64_t start = 0; start < n; start += kBatch) {
    const int64_t len = std::min(kBatch, n - start);
    lance::Int64Builder ids;
    lance::Int32Builder opk;
    lance::DoubleBuilder v;
    lance::StringBuilder s;
    for (int64_t i = start; i < start + len; ++i) {
      const int64_t id = k * kIdStride + i;
      LANCE_RETURN_NOT_OK(ids.Append(id));
      LANCE_RETURN_NOT_OK(opk.Append(static_cast<int32_t>(k)));
      LANCE_RETURN_NOT_OK(v.Append(static_cast<double>(id) / 4.0));
      LANCE_RETURN_NOT_OK(s.Append("row-" + std::to_string(id)));
    }
    LANCE_ASSIGN_OR_RAISE(auto a, ids.Finish());
    LANCE_ASSIGN_OR_RAISE(auto b, opk.Finish());
    LANCE_ASSIGN_OR_RAISE(auto c, v.Finish());
    LANCE_ASSIGN_OR_RAISE(auto d, s.Finish());
    LANCE_ASSIGN_OR_RAISE(auto batch,
                          lance::RecordBatch::Make(RowSchema(), len, {a, b, c, d}));
    batches.push_back(std::move(batch));
  }
  return lance::RecordBatchReader::FromBatches(RowSchema(), std::move(batches));
}

class Ledger {
 public:
  explicit Ledger(const std::string& path)
      : fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) {}
  ~Ledger() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return fd_ >= 0; }
  void Line(const std::string& text) const {
    const std::string line = text + "\n";
    // One write of a short line to an O_APPEND file: never interleaved, never torn by
    // a kill (the kill comes between system calls).
    if (::write(fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size()) ||
        ::fsync(fd_) != 0) {
      std::perror("crash_writer: writing the ledger");
      std::exit(3);
    }
  }

 private:
  int fd_;
};

struct Args {
  std::string uri;
  uint64_t seed = 0;
  int64_t ops = 1;
  int64_t first_op = 0;
  std::string ledger;
  std::string force_kind;
  int64_t large_rows = 600000;
  int64_t kill_at = 0;
  std::string kill_mode = "kill";
  std::optional<int64_t> kill_in_op;
  bool fsync = true;
};

Status RunOp(const Args& args, const std::string& uri,
             const lance::io::StorageAccess& access, int64_t k, const std::string& kind,
             uint64_t* version) {
  lance::WriteParams params;
  params.access = access;
  params.max_rows_per_file = 25;  // several fragments, hence several files, per op
  if (kind == "create" || kind == "append" || kind == "append_large" ||
      kind == "overwrite") {
    params.mode = kind == "create"      ? lance::WriteMode::kCreate
                  : kind == "overwrite" ? lance::WriteMode::kOverwrite
                                        : lance::WriteMode::kAppend;
    if (kind == "append_large") params.max_rows_per_file = 1 << 20;
    LANCE_ASSIGN_OR_RAISE(auto reader,
                          Rows(k, RowsOf(args.seed, k, kind, args.large_rows)));
    LANCE_ASSIGN_OR_RAISE(auto ds, lance::Dataset::Write(*reader, uri, params));
    *version = ds->version();
    return Status::OK();
  }
  lance::OpenOptions open;
  open.access = access;
  LANCE_ASSIGN_OR_RAISE(auto ds, lance::Dataset::Open(uri, open));
  if (kind == "delete") {
    LANCE_RETURN_NOT_OK(ds->Delete(DeletePredicate(args.seed, k)));
    *version = ds->version();
    return Status::OK();
  }
  if (kind == "fragments") {
    params.mode = lance::WriteMode::kAppend;
    LANCE_ASSIGN_OR_RAISE(auto reader,
                          Rows(k, RowsOf(args.seed, k, kind, args.large_rows)));
    LANCE_ASSIGN_OR_RAISE(auto frags, lance::WriteFragments(*reader, uri, params));
    LANCE_ASSIGN_OR_RAISE(auto committed,
                          lance::Dataset::Commit(uri, lance::AppendOp{std::move(frags)},
                                                 ds->version(), access));
    *version = committed->version();
    return Status::OK();
  }
  return Status::Invalid("unknown op kind '" + kind + "'");
}

// Every flag takes a value: its name and where the value goes.
struct Flag {
  const char* name;
  void (*set)(Args&, const std::string&);
};
const Flag kFlags[] = {
    {"--uri", [](Args& a, const std::string& v) { a.uri = v; }},
    {"--seed",
     [](Args& a, const std::string& v) {
       a.seed = std::strtoull(v.c_str(), nullptr, 10);
     }},
    {"--ops", [](Args& a, const std::string& v) { a.ops = std::atoll(v.c_str()); }},
    {"--first-op",
     [](Args& a, const std::string& v) { a.first_op = std::atoll(v.c_str()); }},
    {"--ledger", [](Args& a, const std::string& v) { a.ledger = v; }},
    {"--force-kind", [](Args& a, const std::string& v) { a.force_kind = v; }},
    {"--large-rows",
     [](Args& a, const std::string& v) { a.large_rows = std::atoll(v.c_str()); }},
    {"--kill-at-store-op",
     [](Args& a, const std::string& v) { a.kill_at = std::atoll(v.c_str()); }},
    {"--kill-mode", [](Args& a, const std::string& v) { a.kill_mode = v; }},
    {"--kill-in-op",
     [](Args& a, const std::string& v) { a.kill_in_op = std::atoll(v.c_str()); }},
    {"--fsync", [](Args& a, const std::string& v) { a.fsync = v != "0"; }},
};

const Flag* FindFlag(const std::string& name) {
  for (const auto& flag : kFlags) {
    if (name == flag.name) return &flag;
  }
  return nullptr;
}

int Usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s --uri URI --seed S --ops N --ledger FILE [--first-op K] "
               "[--force-kind KIND] [--large-rows R] [--kill-at-store-op N "
               "[--kill-mode kill|tear|after] [--kill-in-op K]]\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return Usage(argv[0]);
    const std::string v = argv[++i];
    const auto* flag = FindFlag(a);
    if (flag == nullptr) return Usage(argv[0]);
    flag->set(args, v);
  }
  if (args.uri.empty() || args.ledger.empty()) return Usage(argv[0]);
  StoreFault kill_action = StoreFault::kKill;
  if (args.kill_mode == "tear") {
    kill_action = StoreFault::kKillTear;
  } else if (args.kill_mode == "after") {
    kill_action = StoreFault::kKillAfter;
  } else if (args.kill_mode != "kill") {
    return Usage(argv[0]);
  }

  lance::io::StorageAccess access;
  if (args.uri.rfind("s3://", 0) == 0) {
    auto env = lance::testing::S3TestEnv::Get();
    if (!env.ok()) {
      std::fprintf(stderr, "crash_writer: %s\n", env.status().ToString().c_str());
      return 2;
    }
    access.storage_options = env->Options();
    // Parts of 5 MiB, so that a large data file is a multipart upload with steps inside.
    access.storage_options["lance_cpp_multipart_part_size"] = std::to_string(5 << 20);
  }
  auto resolved = lance::io::ResolveObjectStore(args.uri, access);
  if (!resolved.ok()) {
    std::fprintf(stderr, "crash_writer: %s\n", resolved.status().ToString().c_str());
    return 2;
  }
  std::shared_ptr<lance::io::ObjectStore> target = resolved->store;
  if (!args.fsync && target->is_local() && target->has_directories()) {
    // A kill -9 loses nothing the kernel has (only a power cut would): without fsync the
    // same calls happen in the same order, faster.
    lance::io::LocalObjectStoreOptions options;
    options.fsync = false;
    auto local = lance::io::LocalObjectStore::Make("/", options);
    if (!local.ok()) {
      std::fprintf(stderr, "crash_writer: %s\n", local.status().ToString().c_str());
      return 2;
    }
    target = *local;
  }
  auto store = std::make_shared<FaultStore>(target);
  if (Status st = lance::testing::RegisterFaultScheme("crash"); !st.ok()) {
    std::fprintf(stderr, "crash_writer: %s\n", st.ToString().c_str());
    return 2;
  }
  lance::testing::InstallFaultStore("w", store);
  const std::string uri = "crash://w/" + resolved->path;

  Ledger ledger(args.ledger);
  if (!ledger.ok()) {
    std::perror("crash_writer: opening the ledger");
    return 2;
  }
  const int64_t kill_in = args.kill_in_op.value_or(args.first_op);
  for (int64_t k = args.first_op; k < args.first_op + args.ops; ++k) {
    const std::string kind = k == 0 ? "create"
                             : !args.force_kind.empty()
                                 ? args.force_kind
                                 : KindOf(args.seed, static_cast<uint64_t>(k));
    FaultSpec spec;
    // Steps inside a large data file: with 5 MiB parts, the kills at 6 and 9 MiB land
    // while a multipart upload is open (a part sent, the upload not completed).
    spec.write_step_bytes = 3 << 20;
    if (args.kill_at > 0 && k == kill_in) {
      spec.action = kill_action;
      spec.nth = args.kill_at;
      spec.on_fire = [&ledger](const StepRecord& step, StoreFault) {
        ledger.Line("kill " + std::string(lance::testing::StoreStepName(step.step)) +
                    " " + std::to_string(step.index));
      };
    }
    store->Arm(spec);
    ledger.Line("intent " + std::to_string(k) + " " + kind);
    uint64_t version = 0;
    Status st = RunOp(args, uri, resolved->access, k, kind, &version);
    if (!st.ok()) {
      std::fprintf(stderr, "crash_writer: op %lld (%s) failed: %s\n",
                   static_cast<long long>(k), kind.c_str(), st.ToString().c_str());
      return 1;
    }
    ledger.Line("done " + std::to_string(k) + " version " + std::to_string(version));
  }
  if (args.kill_at > 0) {
    std::printf("steps %lld\n", static_cast<long long>(store->steps_seen()));
  }
  return 0;
}

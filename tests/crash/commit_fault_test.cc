// SPDX-License-Identifier: Apache-2.0
// Every step of every kind of commit, failed: for create, append, overwrite, delete,
// update, write_fragments + commit, compaction and cleanup, each mutating store call k
// (tests/testing/fault_store.h) fails in turn -- before the call, torn (half the bytes
// written where a crash leaves them, unpublished) or after the call went through (the
// acknowledgement lost). Then: the operation returned an error exactly when step k was
// not after the commit point (the create-only put of the manifest) -- except a lost
// acknowledgement of that put, which the commit resolves by reading the manifest back
// (docs/commit-protocol.md, "Lost acknowledgements") --, the dataset opens at exactly
// the old or the new version as step k says, its rows are the old or the new ones, and
// running the operation again succeeds (leftovers never block).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lance/dataset/dataset.h"
#include "lance/io/local_object_store.h"
#include "tests/dataset/table_test_util.h"
#include "tests/testing/fault_store.h"
#include "tests/testing/temp_dir.h"

namespace lance {
namespace {

using table_testing::Scores;
using table_testing::WriteRows;
using testing::FaultSpec;
using testing::FaultStore;
using testing::StoreFault;
using testing::StoreStep;

using Rows = std::map<int64_t, double>;

struct CommitKind {
  std::string name;
  // Brings a fresh dataset to the state the operation starts from.
  std::function<Status(const std::string& uri)> setup;
  std::function<Status(const std::string& uri)> run;
  // The rows after the operation, from the rows before.
  std::function<Rows(const Rows&)> apply;
  // False for operations that commit no version (cleanup).
  bool commits = true;
};

Status Setup3(const std::string& uri) {
  WriteParams params;
  params.max_rows_per_file = 10;
  LANCE_ASSIGN_OR_RAISE(auto ds, WriteRows(uri, 0, 30, params));  // v1: 3 fragments
  LANCE_RETURN_NOT_OK(ds->Delete("id = 5"));                      // v2: a deletion file
  params.mode = WriteMode::kAppend;
  LANCE_ASSIGN_OR_RAISE(ds, WriteRows(uri, 30, 4, params));  // v3: a small fragment
  return Status::OK();
}

Rows AddRows(Rows rows, int64_t start, int64_t n) {
  for (int64_t i = start; i < start + n; ++i) rows[i] = static_cast<double>(i) / 2.0;
  return rows;
}

std::vector<CommitKind> Kinds() {
  std::vector<CommitKind> kinds;
  kinds.push_back({"create", [](const std::string&) { return Status::OK(); },
                   [](const std::string& uri) {
                     WriteParams params;
                     params.max_rows_per_file = 10;
                     return WriteRows(uri, 0, 25, params).status();
                   },
                   [](const Rows&) { return AddRows({}, 0, 25); }});
  kinds.push_back({"append", Setup3,
                   [](const std::string& uri) {
                     WriteParams params;
                     params.mode = WriteMode::kAppend;
                     params.max_rows_per_file = 10;
                     return WriteRows(uri, 100, 20, params).status();
                   },
                   [](const Rows& old) { return AddRows(old, 100, 20); }});
  kinds.push_back({"overwrite", Setup3,
                   [](const std::string& uri) {
                     WriteParams params;
                     params.mode = WriteMode::kOverwrite;
                     return WriteRows(uri, 200, 15, params).status();
                   },
                   [](const Rows&) { return AddRows({}, 200, 15); }});
  kinds.push_back({"delete", Setup3,
                   [](const std::string& uri) -> Status {
                     LANCE_ASSIGN_OR_RAISE(auto ds, Dataset::Open(uri));
                     return ds->Delete("id >= 8 AND id < 14");
                   },
                   [](const Rows& old) {
                     Rows out = old;
                     for (int64_t i = 8; i < 14; ++i) out.erase(i);
                     return out;
                   }});
  kinds.push_back({"update", Setup3,
                   [](const std::string& uri) -> Status {
                     LANCE_ASSIGN_OR_RAISE(auto ds, Dataset::Open(uri));
                     return ds->Update({{"score", "score + 1000"}}, "id < 4").status();
                   },
                   [](const Rows& old) {
                     Rows out = old;
                     for (auto& [id, score] : out) {
                       if (id < 4) score += 1000;
                     }
                     return out;
                   }});
  kinds.push_back(
      {"write_fragments", Setup3,
       [](const std::string& uri) -> Status {
         LANCE_ASSIGN_OR_RAISE(auto ds, Dataset::Open(uri));
         WriteParams params;
         params.mode = WriteMode::kAppend;
         params.max_rows_per_file = 5;
         auto reader = table_testing::ReaderOf({table_testing::MakeBatch(300, 12)});
         LANCE_ASSIGN_OR_RAISE(auto frags, WriteFragments(*reader, uri, params));
         return Dataset::Commit(uri, AppendOp{std::move(frags)}, ds->version()).status();
       },
       [](const Rows& old) { return AddRows(old, 300, 12); }});
  kinds.push_back({"compaction", Setup3,
                   [](const std::string& uri) -> Status {
                     LANCE_ASSIGN_OR_RAISE(auto ds, Dataset::Open(uri));
                     CompactionOptions options;
                     options.target_rows_per_fragment = 100;
                     return ds->CompactFiles(options).status();
                   },
                   [](const Rows& old) { return old; }});
  kinds.push_back({"cleanup", Setup3,
                   [](const std::string& uri) -> Status {
                     LANCE_ASSIGN_OR_RAISE(auto ds, Dataset::Open(uri));
                     CleanupOptions options;
                     // By count, not age: "older than now" loses the versions
                     // committed in the same millisecond, so the steps would depend
                     // on the machine's speed.
                     options.older_than_ms = std::nullopt;
                     options.retain_versions = 1;
                     options.delete_unverified = true;
                     LANCE_ASSIGN_OR_RAISE(CleanupStats stats,
                                           ds->CleanupOldVersions(options));
                     if (stats.failed_deletes != 0) {
                       return Status::IOError(std::to_string(stats.failed_deletes) +
                                              " deletes failed");
                     }
                     return Status::OK();
                   },
                   [](const Rows& old) { return old; }, /*commits=*/false});
  return kinds;
}

// The version and rows at `uri` (version 0, no rows: no dataset).
struct State {
  uint64_t version = 0;
  Rows rows;
};

State Read(const std::string& uri) {
  State out;
  auto ds = Dataset::Open(uri);
  if (!ds.ok()) {
    EXPECT_TRUE(ds.status().IsNotFound()) << ds.status();
    return out;
  }
  out.version = (*ds)->version();
  out.rows = Scores(**ds);
  return out;
}

class CommitFaultTest : public ::testing::TestWithParam<CommitKind> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(testing::RegisterFaultScheme("fault").ok());
    io::LocalObjectStoreOptions options;
    options.fsync = false;  // no power is lost here; only the order of calls matters
    auto local = io::LocalObjectStore::Make(dir_.path(), options);
    ASSERT_TRUE(local.ok()) << local.status();
    store_ = std::make_shared<FaultStore>(*local);
    name_ = "t" + std::to_string(reinterpret_cast<uintptr_t>(this));
    testing::InstallFaultStore(name_, store_);
  }

  std::string NewUri() {
    return "fault://" + name_ + "/ds" + std::to_string(n_++) + ".lance";
  }

  testing::TempDir dir_;
  std::shared_ptr<FaultStore> store_;
  std::string name_;
  int n_ = 0;
};

TEST_P(CommitFaultTest, EveryStepFailsCleanly) {
  const CommitKind& kind = GetParam();
  // A clean run: how many steps, and which one publishes the manifest.
  const std::string probe = NewUri();
  ASSERT_TRUE(kind.setup(probe).ok());
  const State before_probe = Read(probe);
  store_->Arm(FaultSpec{});
  ASSERT_TRUE(kind.run(probe).ok());
  const std::vector<testing::StepRecord> steps = store_->log();
  ASSERT_FALSE(steps.empty());
  // The create-only puts of manifests: the commit points (compaction has two: the
  // reservation of fragment ids, then the Rewrite, as Lance commits them).
  // A put that lost the race for a version (compaction's Rewrite, planned on the version
  // before its own reservation, loses to it and is rebased) is no commit point.
  std::vector<int64_t> commit_steps;
  std::set<std::string> manifests;
  for (const auto& s : steps) {
    if (s.step == StoreStep::kPutIfNotExists &&
        s.path.find("/_versions/") != std::string::npos &&
        manifests.insert(s.path).second) {
      commit_steps.push_back(s.index);
    }
  }
  if (kind.commits) {
    ASSERT_FALSE(commit_steps.empty()) << "no manifest put among the steps";
  } else {
    ASSERT_TRUE(commit_steps.empty());
  }
  const int64_t last_commit = commit_steps.empty() ? 0 : commit_steps.back();
  const auto commits = static_cast<uint64_t>(commit_steps.size());
  const State after_probe = Read(probe);
  EXPECT_EQ(after_probe.version, before_probe.version + commits);
  EXPECT_EQ(after_probe.rows, kind.apply(before_probe.rows));

  int checked = 0;
  for (StoreFault action :
       {StoreFault::kFail, StoreFault::kTear, StoreFault::kFailAfter}) {
    for (int64_t k = 1; k <= static_cast<int64_t>(steps.size()); ++k) {
      SCOPED_TRACE(kind.name + ": " + std::string(testing::StoreFaultName(action)) +
                   " at step " + std::to_string(k) + " (" +
                   std::string(testing::StoreStepName(steps[k - 1].step)) + " " +
                   steps[k - 1].path + ")");
      const std::string uri = NewUri();
      store_->Arm(FaultSpec{});
      ASSERT_TRUE(kind.setup(uri).ok());
      const State old = Read(uri);
      FaultSpec spec;
      spec.action = action;
      spec.nth = k;
      store_->Arm(spec);
      const Status st = kind.run(uri);
      const bool fired = store_->fired();
      store_->Arm(FaultSpec{});
      ASSERT_TRUE(fired);
      // The version hint is best effort: its failure changes nothing.
      const std::string& path = steps[k - 1].path;
      const std::string hint = "_versions/latest_version_hint.json";
      const bool ignored =
          (path.size() >= hint.size() &&
           path.substr(path.size() - hint.size()) == hint) ||
          // A manifest put whose acknowledgement is lost changes nothing either: a put
          // that won its version is read back and found to be ours (committed, once);
          // one that lost the race fails anyway.
          (action == StoreFault::kFailAfter &&
           steps[k - 1].step == StoreStep::kPutIfNotExists &&
           path.find("/_versions/") != std::string::npos);
      // Versions published before step k, and by step k when only its acknowledgement
      // was lost; the operation is done when its last commit point is.
      uint64_t landed = 0;
      for (int64_t c : commit_steps) {
        if (ignored || c < k || (c == k && action == StoreFault::kFailAfter)) ++landed;
      }
      const bool committed = kind.commits && landed == commits;
      const State now = Read(uri);
      // Errors after the last commit point are not the caller's problem; everything
      // before it is. Cleanup reports every failed delete.
      EXPECT_EQ(st.ok(), kind.commits && (ignored || k > last_commit)) << st;
      EXPECT_EQ(now.version, old.version + landed);
      EXPECT_EQ(now.rows, committed ? kind.apply(old.rows) : old.rows);
      // Again, without faults: succeeds whatever the failure left behind (a create
      // that went through finds its dataset).
      const Status retry = kind.run(uri);
      const State again = Read(uri);
      if (!committed) {
        ASSERT_TRUE(retry.ok()) << retry;
        EXPECT_EQ(again.version, now.version + commits);
        EXPECT_EQ(again.rows, kind.apply(old.rows));
      } else if (kind.name == "create") {
        EXPECT_TRUE(retry.IsAlreadyExists()) << retry;
      } else {
        ASSERT_TRUE(retry.ok()) << retry;
        EXPECT_GE(again.version, now.version);
      }
      if (!kind.commits) {
        auto ds = Dataset::Open(uri);
        ASSERT_TRUE(ds.ok());
        auto versions = (*ds)->Versions();
        ASSERT_TRUE(versions.ok());
        EXPECT_EQ(versions->size(), 1u);  // the retried cleanup finished the job
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3 * static_cast<int>(steps.size()));
}

INSTANTIATE_TEST_SUITE_P(AllKinds, CommitFaultTest, ::testing::ValuesIn(Kinds()),
                         [](const ::testing::TestParamInfo<CommitKind>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace lance

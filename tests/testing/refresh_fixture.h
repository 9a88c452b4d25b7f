// SPDX-License-Identifier: Apache-2.0
// What the credential-refresh suites share, whatever vends their credentials (RGW keys
// minted and revoked by tests/s3/namespace_refresh_test.cc, an Azure SAS or a Google
// token in tests/testing/vended_refresh_scenarios.h): a namespace wrapper that counts the
// calls, the data helpers, and a fixture mixin with the checks on those counts and on the
// refresh statistics of the test's providers.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/format/file_reader.h"
#include "lance/format/file_writer.h"
#include "lance/io/refreshing_credentials.h"
#include "lance/io/storage_access.h"
#include "lance/namespace/dataset_ops.h"
#include "lance/namespace/storage_options_provider.h"
#include "tests/testing/matchers.h"
#include "tests/testing/named_rows.h"

namespace lance::testing::refresh {

using Millis = std::chrono::milliseconds;

inline int64_t NowMillis() {
  return std::chrono::duration_cast<Millis>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline RecordBatchPtr Rows(int64_t start, int64_t n) { return NamedRows(start, n); }

inline TablePtr TableOf(std::vector<RecordBatchPtr> batches) {
  auto s = batches.front()->schema();
  return Table::Make(s, std::move(batches)).value();
}

inline std::vector<int64_t> SortedIds(const Table& table) {
  std::vector<int64_t> out;
  for (const auto& batch : table.batches()) {
    const auto& a = static_cast<const Int64Array&>(*batch->GetColumnByName("id"));
    for (int64_t i = 0; i < a.length(); ++i) out.push_back(a.Value(i));
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline format::LanceSchema FileSchema() {
  return format::LanceSchema::Assign(Rows(0, 1)->schema()).value();
}

/// The dataset's rows equal `expected` (in scan order).
inline ::testing::AssertionResult HasRows(const Dataset& ds,
                                          std::vector<RecordBatchPtr> expected) {
  auto table = ds.ToTable();
  if (!table.ok()) {
    return ::testing::AssertionFailure() << "scan failed: " << table.status();
  }
  auto want = TableOf(std::move(expected));
  if (!(*table)->Equals(*want)) {
    return ::testing::AssertionFailure() << "rows differ: got " << (*table)->num_rows()
                                         << " rows, want " << want->num_rows();
  }
  return ::testing::AssertionSuccess();
}

/// Writes `batches` into a new Lance file at `uri` through `access`.
inline void WriteFile(const std::string& uri, const io::StorageAccess& access,
                      const std::vector<RecordBatchPtr>& batches) {
  ASSERT_OK_AND_ASSIGN(auto writer,
                       format::LanceFileWriter::OpenUri(uri, FileSchema(), access));
  for (const auto& batch : batches) ASSERT_OK(writer->WriteBatch(*batch));
  ASSERT_OK(writer->Close().status());
}

/// The Lance file at `uri`, read through `access`, holds exactly `expected`.
inline void ExpectFileHolds(const std::string& uri, const io::StorageAccess& access,
                            std::vector<RecordBatchPtr> expected) {
  ASSERT_OK_AND_ASSIGN(auto reader, format::LanceFileReader::OpenUri(uri, access));
  ASSERT_OK_AND_ASSIGN(auto table, reader->ReadTable());
  EXPECT_TRUE(table->Equals(*TableOf(std::move(expected))));
}

/// The refresh counters of every provider whose id names `root` (a test's unique root),
/// summed.
inline io::RefreshStats RootRefreshStats(const std::string& root) {
  io::RefreshStats sum;
  for (const auto& entry : io::CredentialRefreshStats()) {
    if (entry.provider_id.find(root) == std::string::npos) continue;
    sum.fetches += entry.stats.fetches;
    sum.forced_refreshes += entry.stats.forced_refreshes;
    sum.background_refreshes += entry.stats.background_refreshes;
    sum.blocking_refreshes += entry.stats.blocking_refreshes;
    sum.failures += entry.stats.failures;
    sum.failed_requests += entry.stats.failed_requests;
  }
  return sum;
}

/// Each of `threads` threads reads `ds` until `crossed()` (the credentials of the open
/// are no longer good on the server), then twice more: each one crosses the expiry (the
/// refresh happens in between, while they read) and reads with the refreshed
/// credentials. Before the crossing a thread pauses `pause` between reads; `guard` only
/// stops a hang. Expects every read to see `want`, and every thread to read at least once
/// with the first `credentials` and twice after the `crossing`. Returns the reads made.
inline int ReadAcrossExpiry(const Dataset& ds, const Table& want, int threads,
                            const std::function<bool()>& crossed, Millis pause,
                            Millis guard, const std::string& credentials,
                            const std::string& crossing) {
  const auto deadline = std::chrono::steady_clock::now() + guard;
  std::atomic<int> failures{0};
  std::atomic<int> reads{0};
  std::mutex first_error_mu;
  std::string first_error;
  std::vector<int> before(threads, 0), after(threads, 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      while (after[t] < 2 && std::chrono::steady_clock::now() < deadline) {
        const bool done = crossed();
        auto table = ds.ToTable();
        if (!table.ok() || !(*table)->Equals(want)) {
          ++failures;
          std::lock_guard lock(first_error_mu);
          if (first_error.empty()) {
            first_error = table.ok() ? "rows differ" : table.status().ToString();
          }
        }
        ++reads;
        ++(done ? after[t] : before[t]);
        if (!done) std::this_thread::sleep_for(pause);
      }
    });
  }
  for (auto& worker : workers) worker.join();
  EXPECT_EQ(failures.load(), 0) << first_error;
  for (int t = 0; t < threads; ++t) {
    EXPECT_GE(before[t], 1) << "thread " << t << " never read with the first "
                            << credentials;
    EXPECT_EQ(after[t], 2) << "thread " << t << " did not read after the " << crossing;
  }
  return reads.load();
}

/// A LanceNamespace that forwards to inner() and counts the calls that hand out
/// credentials; each of their answers' storage options goes through OnVended (which
/// may rewrite them) before the caller sees it.
class CountingNamespace : public ns::LanceNamespace {
 public:
  std::string namespace_id() const override { return inner()->namespace_id(); }

  Result<ns::DescribeTableResponse> DescribeTable(
      const ns::DescribeTableRequest& r) override {
    ++describes_;
    {
      std::lock_guard lock(counts_mu_);
      ++describes_by_table_[ns::JoinIdentifier(r.id)];
    }
    return Vending(r, &ns::LanceNamespace::DescribeTable);
  }
  Result<ns::DeclareTableResponse> DeclareTable(
      const ns::DeclareTableRequest& r) override {
    ++declares_;
    return Vending(r, &ns::LanceNamespace::DeclareTable);
  }
  Result<ns::CreateEmptyTableResponse> CreateEmptyTable(
      const ns::CreateEmptyTableRequest& r) override {
    ++create_empties_;
    return Vending(r, &ns::LanceNamespace::CreateEmptyTable);
  }
  Result<ns::ListTablesResponse> ListTables(const ns::ListTablesRequest& r) override {
    return inner()->ListTables(r);
  }
  Status TableExists(const ns::TableExistsRequest& r) override {
    return inner()->TableExists(r);
  }

  int describes() const { return describes_.load(); }
  int declares() const { return declares_.load(); }
  int create_empties() const { return create_empties_.load(); }
  int describes_of(const ns::Identifier& id) const {
    std::lock_guard lock(counts_mu_);
    auto it = describes_by_table_.find(ns::JoinIdentifier(id));
    return it == describes_by_table_.end() ? 0 : it->second;
  }

 protected:
  virtual const std::shared_ptr<ns::LanceNamespace>& inner() const = 0;
  virtual Status OnVended(const ns::Identifier& id,
                          std::optional<ns::Properties>* options) = 0;

 private:
  // inner()'s answer to `call`, its storage options through OnVended.
  template <class Request, class Response>
  Result<Response> Vending(const Request& r,
                           Result<Response> (ns::LanceNamespace::*call)(const Request&)) {
    LANCE_ASSIGN_OR_RAISE(Response response, ((*inner()).*call)(r));
    LANCE_RETURN_NOT_OK(OnVended(r.id, &response.storage_options));
    return response;
  }

  std::atomic<int> describes_{0};
  std::atomic<int> declares_{0};
  std::atomic<int> create_empties_{0};
  mutable std::mutex counts_mu_;
  std::map<std::string, int> describes_by_table_;
};

/// The checks of a refresh suite, on top of `Base` (a gtest fixture with `root_`, the
/// test's unique root) and its counting namespace ns_ of type `Ns`.
template <class Base, class Ns>
class RefreshFixture : public Base {
 protected:
  using Base::Base;

  /// "declare=1 describe=2" for messages.
  virtual std::string Counts() const {
    return "declare=" + std::to_string(ns_->declares()) +
           " describe=" + std::to_string(ns_->describes());
  }
  void ExpectCounts(int declares, int describes) const {
    EXPECT_EQ(ns_->declares(), declares) << Counts();
    EXPECT_EQ(ns_->describes(), describes) << Counts();
  }

  /// The dataset's rows equal `expected`; a failure also says the counts.
  ::testing::AssertionResult HasRows(const Dataset& ds,
                                     std::vector<RecordBatchPtr> expected) const {
    ::testing::AssertionResult result = refresh::HasRows(ds, std::move(expected));
    if (!result) result << " (" << Counts() << ")";
    return result;
  }

  /// Rows start..start+n-1 written through the namespace as table `id` (`mode`).
  Result<std::shared_ptr<Dataset>> WriteRowsTo(const ns::Identifier& id, int64_t start,
                                               int64_t n,
                                               WriteMode mode = WriteMode::kCreate) {
    auto batch = Rows(start, n);
    auto data = RecordBatchReader::FromBatches(batch->schema(), {batch});
    return ns::WriteDataset(*data, ns_, id, {.mode = mode});
  }

  /// A provider-backed access seeded with `options` for table `id` of ns_.
  io::StorageAccess AccessFor(const ns::Identifier& id, const ns::Properties& options) {
    auto access = io::ResolveStorageAccess(io::StorageAccess(
        options, std::make_shared<ns::LanceNamespaceStorageOptionsProvider>(ns_, id)));
    EXPECT_THAT(access, IsOk());
    return access.ok() ? *access : io::StorageAccess{};
  }

  /// Declares table `id`, then describes it: the access the description gives (and, with
  /// `location`, the table's location without a trailing '/'). Expects these two to be
  /// the namespace's only calls so far.
  void DeclareAndDescribe(const ns::Identifier& id, io::StorageAccess* access,
                          std::string* location = nullptr) {
    ASSERT_OK(ns_->DeclareTable({.id = id}).status());
    ASSERT_OK_AND_ASSIGN(auto described, ns_->DescribeTable({.id = id}));
    ASSERT_TRUE(described.storage_options.has_value());
    if (location != nullptr) {
      ASSERT_TRUE(described.location.has_value());
      *location = *described.location;
      while (!location->empty() && location->back() == '/') location->pop_back();
    }
    *access = AccessFor(id, *described.storage_options);
    ExpectCounts(1, 1);
  }

  /// Rows 0..59 written through the namespace as table `id`, in three fragments (so that
  /// each read is several requests), then opened: one declare and one describe.
  void WriteThreeFragmentsAndOpen(const ns::Identifier& id,
                                  std::shared_ptr<Dataset>* opened) {
    auto batch = Rows(0, 60);
    auto data = RecordBatchReader::FromBatches(batch->schema(), {batch});
    WriteParams params;
    params.max_rows_per_file = 20;
    ASSERT_OK(ns::WriteDataset(*data, ns_, id, params).status());
    ASSERT_OK_AND_ASSIGN(*opened, ns::OpenDataset(ns_, id));
    ExpectCounts(1, 1);
  }

  /// Declares table `id`; three workers write its fragments (rows 0..4), each with its
  /// own provider and access built from the declared options, as remote workers would;
  /// one commit: `*committed`. No namespace call beyond the declare.
  void WriteDistributed(const ns::Identifier& id, std::shared_ptr<Dataset>* committed) {
    ASSERT_OK_AND_ASSIGN(auto declared, ns_->DeclareTable({.id = id}));
    ExpectCounts(1, 0);
    ASSERT_TRUE(declared.location.has_value());
    ASSERT_TRUE(declared.storage_options.has_value());
    const std::string location = *declared.location;
    const ns::Properties options = *declared.storage_options;
    const std::vector<std::pair<int64_t, int64_t>> slices = {{0, 2}, {2, 2}, {4, 1}};
    std::vector<std::vector<FragmentMetadata>> per_worker(slices.size());
    std::vector<std::thread> workers;
    for (size_t w = 0; w < slices.size(); ++w) {
      workers.emplace_back([&, w] {
        WriteParams params;
        params.access = AccessFor(id, options);
        auto batch = Rows(slices[w].first, slices[w].second);
        auto data = RecordBatchReader::FromBatches(batch->schema(), {batch});
        auto fragments = WriteFragments(*data, location, params);
        EXPECT_THAT(fragments, IsOk());
        if (fragments.ok()) per_worker[w] = *fragments;
      });
    }
    for (auto& t : workers) t.join();
    ExpectCounts(1, 0);
    std::vector<FragmentMetadata> all;
    for (auto& f : per_worker) all.insert(all.end(), f.begin(), f.end());
    ASSERT_EQ(all.size(), 3u);
    ASSERT_OK_AND_ASSIGN(*committed,
                         Dataset::Commit(location, OverwriteOp{Rows(0, 1)->schema(), all},
                                         std::nullopt, AccessFor(id, options)));
    ExpectCounts(1, 0);
  }

  io::RefreshStats RootRefreshStats() const {
    return refresh::RootRefreshStats(this->root_);
  }

  /// The timed refresh did the work: `fetches` fetches, none forced by a refusal and
  /// none failed.
  void ExpectTimedRefreshes(int64_t fetches) const {
    const io::RefreshStats stats = RootRefreshStats();
    EXPECT_EQ(stats.forced_refreshes, 0) << Counts();
    EXPECT_EQ(stats.failures, 0) << Counts();
    EXPECT_EQ(stats.failed_requests, 0) << Counts();
    EXPECT_EQ(stats.fetches, fetches) << Counts();
  }

  std::shared_ptr<Ns> ns_;
};

}  // namespace lance::testing::refresh

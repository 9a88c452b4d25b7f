// SPDX-License-Identifier: Apache-2.0
// The Dataset API on s3:// URIs against the real RGW of the tests: every write mode,
// scans, versions, deletes, distributed writes, racing committers (the If-None-Match
// commit primitive), multipart data files and refused credentials. Everything goes
// through storage options, the way users configure Lance.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "io/s3/s3_client.h"
#include "lance/core/builder.h"
#include "lance/dataset/dataset.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/s3_object_store.h"
#include "table/manifest.h"
#include "tests/s3/s3_fixture.h"
#include "tests/testing/cloud_dataset_fixture.h"
#include "tests/testing/counting_store.h"
#include "tests/testing/matchers.h"

namespace lance {
namespace {

using io::StorageOptions;
using namespace table_testing;  // NOLINT(build/namespaces)
namespace ti = ::lance::table_internal;

// Each test gets a fresh dataset location under the shared test bucket and removes
// everything below it afterwards (RGW's store is a small sparse file).
class S3DatasetTest : public testing::CloudDatasetTest<::lance::testing::S3EnvTest> {
 protected:
  std::string DatasetUri() override { return env_.UniqueUri("ds.lance"); }

  void TearDown() override {
    for (const auto& [uri, options] : cleanup_) testing::DeleteBelow(uri, options);
  }

  // `uri`, removed at the end of the test.
  std::string Track(const std::string& uri, const StorageOptions& options) {
    cleanup_.emplace_back(uri, options);
    return uri;
  }
  std::string Uri() { return Track(uri_, options_); }

  // Names of the objects directly under the dataset's _versions/.
  std::vector<std::string> VersionObjects(const std::string& uri) {
    ti::DatasetDir dir = Dir(uri);
    auto listing = dir.store()->ListAll(dir.Key("_versions/"), /*recursive=*/true);
    EXPECT_TRUE(listing.ok()) << listing.status();
    std::vector<std::string> names;
    if (!listing.ok()) return names;
    for (const auto& o : listing->objects) {
      names.push_back(o.path.substr(o.path.rfind('/') + 1));
    }
    return names;
  }

  std::vector<std::pair<std::string, StorageOptions>> cleanup_;
};

TEST_F(S3DatasetTest, CreateAppendOverwriteScanVersionsCheckout) {
  const std::string uri = Uri();
  ASSERT_EQ(uri.rfind("s3://" + env_.bucket + "/", 0), 0u) << uri;
  std::shared_ptr<Dataset> v2;
  ASSERT_NO_FATAL_FAILURE(CreateThenAppend(uri, &v2));
  EXPECT_EQ(v2->fragments().back().id, 3u);

  // Projection, filter (its columns dropped), paging, row ids -- all from S3.
  ScanOptions scan;
  scan.columns = {"score", "id"};
  scan.filter = "id >= 30 AND id < 120 AND name IS NOT NULL";
  ASSERT_OK_AND_ASSIGN(auto table, v2->ToTable(scan));
  ASSERT_EQ(table->schema()->num_fields(), 2);
  EXPECT_EQ(table->schema()->field(0)->name(), "score");
  std::vector<int64_t> expected;
  for (int64_t i = 30; i < 120; ++i) {
    if (i % 7 != 3) expected.push_back(i);
  }
  EXPECT_EQ(Int64Column(*table, "id"), expected);
  ASSERT_OK_AND_ASSIGN(auto combined, table->CombineBatches());
  const auto& scores = static_cast<const DoubleArray&>(*combined->column(0));
  for (int64_t i = 0; i < scores.length(); ++i) {
    EXPECT_EQ(scores.Value(i), static_cast<double>(expected[i]) / 2.0);
  }
  EXPECT_EQ(*v2->CountRows("id >= 30 AND id < 120 AND name IS NOT NULL"),
            static_cast<int64_t>(expected.size()));
  ScanOptions page;
  page.offset = 35;
  page.limit = 20;
  page.batch_size = 7;
  EXPECT_EQ(Ids(*v2, page), Iota(35, 55));
  ScanOptions row_ids;
  row_ids.columns = {"id", "_rowid"};
  ASSERT_OK_AND_ASSIGN(table, v2->ToTable(row_ids));
  auto rids = Int64Column(*table, "_rowid");
  ASSERT_EQ(rids.size(), 150u);
  EXPECT_EQ(rids[40], int64_t{1} << 32);
  EXPECT_EQ(rids[100], int64_t{3} << 32);

  std::shared_ptr<Dataset> v3;
  ASSERT_NO_FATAL_FAILURE(OverwriteAs(uri, 3, &v3));
  ASSERT_OK_AND_ASSIGN(auto versions, v3->Versions());
  for (size_t i = 0; i < versions.size(); ++i) {
    EXPECT_EQ(versions[i].version, i + 1);
    EXPECT_GT(versions[i].timestamp_ms, 1600000000000);
  }
  EXPECT_EQ(versions[1].metadata.at("total_rows"), "150");
  EXPECT_EQ(versions[2].metadata.at("total_rows"), "30");

  ASSERT_OK_AND_ASSIGN(auto old, v3->CheckoutVersion(2));
  EXPECT_EQ(*old->CountRows(), 150);
  EXPECT_EQ(Ids(*old), Iota(0, 150));
  EXPECT_EQ(*old->LatestVersion(), 3u);
  ASSERT_OK_AND_ASSIGN(auto first, Dataset::Open(uri, Open(1)));
  EXPECT_EQ(Ids(*first), Iota(0, 100));
  EXPECT_THAT(Dataset::Open(uri, Open(9)),
              IsErrorWith(StatusCode::kNotFound, "latest is 3"));
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(uri, Open()));
  EXPECT_EQ(latest->version(), 3u);

  // On S3: V2 manifest names, one object per version, no version hint (S3 has no
  // directories to keep one consistent), and every .txn file is there.
  std::vector<std::string> names = VersionObjects(uri);
  ASSERT_EQ(names.size(), 3u) << ::testing::PrintToString(names);
  std::set<uint64_t> seen;
  for (const std::string& name : names) {
    auto parsed = ti::ParseManifestFileName(name);
    ASSERT_TRUE(parsed.has_value()) << name;
    EXPECT_EQ(parsed->scheme, ti::NamingScheme::kV2) << name;
    seen.insert(parsed->version);
  }
  EXPECT_EQ(seen, (std::set<uint64_t>{1, 2, 3}));
  ti::DatasetDir dir = Dir(uri);
  ASSERT_OK_AND_ASSIGN(auto manifests, ti::ListManifests(dir));
  for (const auto& m : manifests) {
    ASSERT_OK_AND_ASSIGN(auto loaded, ti::ReadManifest(dir, m));
    EXPECT_TRUE(*dir.store()->Exists(
        dir.Key("_transactions/" + loaded.manifest.transaction_file())));
  }
}

TEST_F(S3DatasetTest, V1NamesAndDeletes) {
  const std::string uri = Uri();
  WriteParams create = Params();
  create.max_rows_per_file = 6000;
  create.enable_v2_manifest_paths = false;
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRows(uri, 0, 12100, create));  // 6000/6000/100
  ASSERT_EQ(ds->fragments().size(), 3u);

  ASSERT_OK(ds->Delete("id >= 1000 AND id < 1600"));  // .arrow deletion file
  ASSERT_TRUE(ds->fragments()[0].deletion_file.has_value());
  EXPECT_EQ(ds->fragments()[0].deletion_file->file_type,
            DeletionFileMeta::Type::kArrowArray);
  ASSERT_OK(ds->Delete("id >= 6000 AND id < 11500"));  // .bin (bitmap) deletion file
  EXPECT_EQ(ds->fragments()[1].deletion_file->file_type, DeletionFileMeta::Type::kBitmap);
  ASSERT_OK(
      ds->Delete("id < 5 OR (id >= 1598 AND id < 1602)"));  // merges with fragment 0's
  EXPECT_EQ(ds->fragments()[0].deletion_file->num_deleted_rows, 607u);
  ASSERT_OK(ds->Delete("id >= 12000"));  // drops fragment 2
  EXPECT_EQ(ds->fragments().size(), 2u);
  EXPECT_EQ(ds->version(), 5u);

  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 12000; ++i) {
    if ((i >= 1000 && i < 1602) || i < 5 || (i >= 6000 && i < 11500)) continue;
    expected.push_back(i);
  }
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(uri, Open()));
  EXPECT_EQ(reopened->version(), 5u);
  EXPECT_EQ(*reopened->CountRows(), static_cast<int64_t>(expected.size()));
  EXPECT_EQ(Ids(*reopened), expected);
  EXPECT_EQ(*reopened->CountRows("id < 100"), 95);
  ASSERT_OK_AND_ASSIGN(auto v1, reopened->CheckoutVersion(1));
  EXPECT_EQ(*v1->CountRows(), 12100);

  // The deletion files are objects in the bucket, and the manifests have V1 names.
  ti::DatasetDir dir = Dir(uri);
  ASSERT_OK_AND_ASSIGN(auto deletions,
                       dir.store()->ListAll(dir.Key("_deletions/"), true));
  EXPECT_EQ(deletions.objects.size(), 3u);  // fragment 0 twice, fragment 1 once
  for (uint64_t v = 1; v <= 5; ++v) {
    EXPECT_TRUE(
        *dir.store()->Exists(dir.Key("_versions/" + std::to_string(v) + ".manifest")))
        << v;
  }

  // A stale object deleting in a fragment someone else changed conflicts; in another
  // fragment it rebases.
  ASSERT_OK_AND_ASSIGN(auto a, Dataset::Open(uri, Open()));
  ASSERT_OK_AND_ASSIGN(auto b, Dataset::Open(uri, Open()));
  ASSERT_OK_AND_ASSIGN(auto c, Dataset::Open(uri, Open()));
  ASSERT_OK(a->Delete("id = 10"));     // fragment 0
  ASSERT_OK(b->Delete("id = 11700"));  // fragment 1: rebased
  EXPECT_EQ(b->version(), 7u);
  EXPECT_THAT(c->Delete("id = 20"), IsErrorWith(StatusCode::kConflict, "fragment 0"));
  EXPECT_EQ(c->version(), 5u);
  ASSERT_OK_AND_ASSIGN(auto last, Dataset::Open(uri, Open()));
  EXPECT_EQ(*last->CountRows(), static_cast<int64_t>(expected.size()) - 2);
}

TEST_F(S3DatasetTest, WriteFragmentsThenCommit) {
  const std::string uri = Uri();
  std::vector<FragmentMetadata> all;
  for (int w = 0; w < 3; ++w) {
    auto reader = ReaderOf({MakeBatch(w * 10, 10)});
    ASSERT_OK_AND_ASSIGN(auto frags,
                         WriteFragments(*reader, uri, Params(WriteMode::kOverwrite)));
    ASSERT_EQ(frags.size(), 1u);
    ASSERT_OK_AND_ASSIGN(auto back, FragmentMetadata::FromJson(frags[0].ToJson()));
    all.push_back(back);
  }
  // Data files are in the bucket, but nothing is committed yet.
  ti::DatasetDir dir = Dir(uri);
  ASSERT_OK_AND_ASSIGN(auto data, dir.store()->ListAll(dir.Key("data/"), true));
  EXPECT_EQ(data.objects.size(), 3u);
  EXPECT_THAT(Dataset::Open(uri, Open()), IsError(StatusCode::kNotFound));

  ASSERT_OK_AND_ASSIGN(auto ds,
                       Dataset::Commit(uri, OverwriteOp{MakeBatch(0, 1)->schema(), all},
                                       std::nullopt, options_));
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_EQ(Ids(*ds), Iota(0, 30));

  // An append planned against version 1 commits after another append landed.
  auto reader = ReaderOf({MakeBatch(30, 5)});
  ASSERT_OK_AND_ASSIGN(auto frags,
                       WriteFragments(*reader, uri, Params(WriteMode::kAppend)));
  ASSERT_OK(WriteRows(uri, 100, 1, Params(WriteMode::kAppend)).status());
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Commit(uri, AppendOp{frags}, 1, options_));
  EXPECT_EQ(ds->version(), 3u);
  EXPECT_EQ(*ds->CountRows(), 36);
  EXPECT_EQ(ds->fragments().back().id, 4u);
  EXPECT_EQ(SortedIds(*ds), [] {
    auto v = Iota(0, 35);
    v.push_back(100);
    return v;
  }());
  // An overwrite planned against version 1 wins over the appends, as in Lance: it lands
  // as version 4 with only its own rows.
  ASSERT_OK_AND_ASSIGN(
      ds, Dataset::Commit(uri, OverwriteOp{MakeBatch(0, 1)->schema(), {all[0]}}, 1,
                          options_));
  EXPECT_EQ(ds->version(), 4u);
  EXPECT_EQ(Ids(*ds), Iota(0, 10));
}

// Eight threads append to one dataset at once: every commit races for the next
// manifest key with If-None-Match, losers rebase and retry. All land, in consecutive
// versions, with exactly one manifest object per version.
TEST_F(S3DatasetTest, EightThreadsAppendingConcurrentlyAllLand) {
  const std::string uri = Uri();
  constexpr int kThreads = 8;
  constexpr int kAppends = 3;
  constexpr int kRows = 7;
  constexpr uint64_t kLast = 1 + kThreads * kAppends;
  std::shared_ptr<Dataset> ds;
  ASSERT_NO_FATAL_FAILURE(ExpectRacingAppendsLand(uri, kThreads, kAppends, kRows, &ds));
  std::vector<int64_t> expected = Iota(0, 10);
  for (int64_t id : Iota(1000, 1000 + kThreads * kAppends * kRows))
    expected.push_back(id);
  EXPECT_EQ(SortedIds(*ds), expected);
  // Fragment ids are unique across the racing writers.
  std::set<uint64_t> fragment_ids;
  for (const auto& f : ds->fragments()) fragment_ids.insert(f.id);
  EXPECT_EQ(fragment_ids.size(), ds->fragments().size());
  EXPECT_EQ(ds->fragments().size(), 1u + kThreads * kAppends);

  // Exactly one manifest object per version, nothing else in _versions/.
  std::vector<std::string> names = VersionObjects(uri);
  std::vector<uint64_t> listed;
  for (const std::string& name : names) {
    auto parsed = ti::ParseManifestFileName(name);
    ASSERT_TRUE(parsed.has_value()) << "unexpected object _versions/" << name;
    listed.push_back(parsed->version);
  }
  std::sort(listed.begin(), listed.end());
  std::vector<uint64_t> all_versions(kLast);
  std::iota(all_versions.begin(), all_versions.end(), 1);
  EXPECT_EQ(listed, all_versions);
  ASSERT_OK_AND_ASSIGN(auto history, ds->Versions());
  ASSERT_EQ(history.size(), kLast);
  for (size_t i = 0; i < history.size(); ++i) {
    EXPECT_EQ(history[i].version, i + 1);
    EXPECT_EQ(history[i].metadata.at("total_rows"), std::to_string(10 + i * kRows));
  }
}

// The commit primitive itself: writers racing for one manifest key, started together.
// Exactly one If-None-Match PUT wins, the others see AlreadyExists, and the object is
// the winner's, whole.
TEST_F(S3DatasetTest, RaceOnTheManifestKeyHasExactlyOneWinner) {
  const std::string uri = Uri();
  ti::DatasetDir dir = Dir(uri);
  ASSERT_NE(dir.store(), nullptr);
  ASSERT_TRUE(dir.store()->supports_conditional_put());
  constexpr int kWriters = 8;
  constexpr int kRounds = 5;
  for (int round = 0; round < kRounds; ++round) {
    const std::string key = dir.ManifestKey(round + 1, ti::NamingScheme::kV2);
    std::vector<Status> results(kWriters);
    std::barrier start(kWriters);
    std::vector<std::thread> threads;
    for (int w = 0; w < kWriters; ++w) {
      threads.emplace_back([&, w] {
        // Distinct, non-trivial bodies so a mixed or partial object would show.
        const std::string body(64 * 1024 + w, static_cast<char>('a' + w));
        start.arrive_and_wait();
        results[w] = dir.store()->PutIfNotExists(key, body);
      });
    }
    for (auto& th : threads) th.join();
    int winner = -1;
    for (int w = 0; w < kWriters; ++w) {
      if (results[w].ok()) {
        EXPECT_EQ(winner, -1) << "round " << round << ": two winners, " << winner
                              << " and " << w;
        winner = w;
      } else {
        EXPECT_THAT(results[w], IsError(StatusCode::kAlreadyExists))
            << "round " << round << " writer " << w;
      }
    }
    ASSERT_NE(winner, -1) << "round " << round << ": no winner";
    ASSERT_OK_AND_ASSIGN(auto stored, dir.store()->Read(key));
    EXPECT_EQ(stored->ToStringView(),
              std::string(64 * 1024 + winner, static_cast<char>('a' + winner)));
    // A late writer loses too, and leaves the winner's object alone.
    EXPECT_THAT(dir.store()->PutIfNotExists(key, "late"),
                IsError(StatusCode::kAlreadyExists));
    ASSERT_OK_AND_ASSIGN(auto again, dir.store()->Head(key));
    EXPECT_EQ(again.size, 64 * 1024 + winner);
  }
}

// One data file of ~40 MB with 5 MiB parts: the writer uploads it in parts (the ETag of
// a multipart object is "<md5 of part md5s>-<parts>"), and it reads back equal.
TEST_F(S3DatasetTest, MultipartDataFileReadsBackEqual) {
  StorageOptions options = options_;
  options["lance_cpp_multipart_part_size"] = "5242880";
  const std::string uri = Track(env_.UniqueUri("big.lance"), options);

  constexpr int64_t kRows = 40'000;
  constexpr int kValueBytes = 1000;
  auto value_of = [](int64_t i) {
    // Varied bytes (not one repeated character) so nothing is trivially compressible.
    std::string v(kValueBytes, '\0');
    uint64_t x = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull + 1;
    for (char& c : v) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      c = static_cast<char>('!' + x % 90);
    }
    return v;
  };
  std::vector<RecordBatchPtr> batches;
  auto s = schema({field("id", int64(), false), field("payload", utf8())});
  for (int64_t start = 0; start < kRows; start += 5000) {
    Int64Builder ids;
    StringBuilder payload;
    for (int64_t i = start; i < start + 5000; ++i) {
      ASSERT_OK(ids.Append(i));
      ASSERT_OK(payload.Append(value_of(i)));
    }
    ASSERT_OK_AND_ASSIGN(auto id_arr, ids.Finish());
    ASSERT_OK_AND_ASSIGN(auto payload_arr, payload.Finish());
    ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(s, 5000, {id_arr, payload_arr}));
    batches.push_back(batch);
  }
  WriteParams params;
  params.access.storage_options = options;
  params.max_rows_per_group = 5000;
  auto reader = ReaderOf(batches);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Write(*reader, uri, params));
  ASSERT_EQ(ds->fragments().size(), 1u);
  ASSERT_EQ(ds->fragments()[0].files.size(), 1u);
  const auto& file = ds->fragments()[0].files[0];
  // Several 5 MiB parts (2.2 compresses the payload a little, so not the raw 40 MB).
  EXPECT_GT(file.file_size_bytes, uint64_t{4} * 5242880);

  auto loc = io::ResolveObjectStore(uri, options);
  ASSERT_OK(loc.status());
  auto* s3 = dynamic_cast<io::S3ObjectStore*>(loc->store.get());
  ASSERT_NE(s3, nullptr) << loc->store->ToString();
  EXPECT_EQ(s3->client()->options().multipart_part_size, 5242880);
  const std::string key = loc->path + "/data/" + file.path;
  ASSERT_OK_AND_ASSIGN(auto info, s3->client()->HeadObject(key));
  EXPECT_EQ(info.size, static_cast<int64_t>(file.file_size_bytes));
  const size_t dash = info.etag.rfind('-');
  ASSERT_NE(dash, std::string::npos) << "not a multipart object: ETag " << info.etag;
  const int parts = std::stoi(info.etag.substr(dash + 1));
  EXPECT_EQ(parts, static_cast<int>((info.size + 5242880 - 1) / 5242880)) << info.etag;

  // Read back through a fresh open (a store with the default options reads it too).
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(uri, Open()));
  EXPECT_EQ(*reopened->CountRows(), kRows);
  ASSERT_OK_AND_ASSIGN(auto table, reopened->ToTable());
  ASSERT_EQ(table->num_rows(), kRows);
  int64_t row = 0;
  int64_t mismatches = 0;
  for (const auto& batch : table->batches()) {
    const auto& ids = static_cast<const Int64Array&>(*batch->GetColumnByName("id"));
    const auto& payload =
        static_cast<const StringArray&>(*batch->GetColumnByName("payload"));
    for (int64_t i = 0; i < batch->num_rows(); ++i, ++row) {
      if (ids.Value(i) != row || payload.GetString(i) != value_of(row)) ++mismatches;
    }
  }
  EXPECT_EQ(mismatches, 0);
  ScanOptions filtered;
  filtered.filter = "id >= 39990";
  filtered.columns = {"id", "payload"};
  ASSERT_OK_AND_ASSIGN(auto tail, reopened->ToTable(filtered));
  ASSERT_OK_AND_ASSIGN(auto tail_batch, tail->CombineBatches());
  ASSERT_EQ(tail_batch->num_rows(), 10);
  EXPECT_EQ(static_cast<const StringArray&>(*tail_batch->column(1)).GetString(9),
            value_of(kRows - 1));
}

using CountingStore = ::lance::testing::OpenCountingStore;

// Manifests record every file's size, so scans, counts with filters and deletes open
// data and deletion files without a HEAD (S3 round trips are the cost of a scan).
TEST_F(S3DatasetTest, ScansOpenFilesWithTheirKnownSizeAndNoHead) {
  static std::shared_ptr<CountingStore> counting;  // the store the factory built last
  static std::once_flag registered;
  std::call_once(registered, [] {
    Status st = io::ObjectStoreRegistry::Default().Register(
        "s3count",
        [](const io::Uri& root, const io::StorageOptions& options,
           const std::shared_ptr<io::CredentialsSource>& credentials)
            -> Result<std::shared_ptr<io::ObjectStore>> {
          LANCE_ASSIGN_OR_RAISE(auto s3, io::S3ObjectStore::FromStorageOptions(
                                             root.authority, options, credentials));
          counting = std::make_shared<CountingStore>(s3);
          return counting;
        });
    ASSERT_OK(st);
  });
  const std::string uri = "s3count://" + env_.UniqueUri("counted.lance").substr(5);
  Track("s3://" + uri.substr(std::string("s3count://").size()), options_);
  WriteParams create = Params();
  create.max_rows_per_file = 40;
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRows(uri, 0, 100, create));  // 3 fragments
  ASSERT_OK(ds->Delete("id = 3 OR id = 50"));
  ASSERT_NE(counting, nullptr);
  ASSERT_OK_AND_ASSIGN(auto opened, Dataset::Open(uri, Open()));
  ASSERT_EQ(opened->fragments().size(), 3u);
  counting->heads = 0;
  counting->open_reader = 0;
  counting->open_reader_with_size = 0;
  EXPECT_EQ(Ids(*opened).size(), 98u);
  EXPECT_EQ(*opened->CountRows("name IS NULL"), 13);  // 14 nulls, id 3 deleted
  EXPECT_EQ(counting->heads.load(), 0);
  EXPECT_EQ(counting->open_reader.load(), 0);
  // 3 data files + 2 deletion files, twice (scan, then filtered count).
  EXPECT_GE(counting->open_reader_with_size.load(), 6);
}

// RGW with STS enabled answers a wrong secret or an unknown key id with 403
// AccessDenied (Forbidden), where AWS (and RGW without STS) says SignatureDoesNotMatch /
// InvalidAccessKeyId (Unauthorized): either is a refusal.
bool IsRefusal(const Status& status) {
  return status.code() == StatusCode::kUnauthorized ||
         status.code() == StatusCode::kForbidden;
}

// Refused credentials give a clear error that names the location but never the secret,
// and a refused write leaves nothing behind.
TEST_F(S3DatasetTest, WrongCredentialsAreAClearErrorWithoutTheSecret) {
  const std::string uri = Uri();
  ASSERT_OK(WriteRows(uri, 0, 10, Params()).status());

  const std::string bad_secret = "WrongSecretDoNotPrint0123456789abcdefXYZ";
  StorageOptions wrong_secret = options_;
  wrong_secret["aws_secret_access_key"] = bad_secret;
  OpenOptions open;
  open.access.storage_options = wrong_secret;
  auto opened = Dataset::Open(uri, open);
  ASSERT_FALSE(opened.ok());
  EXPECT_TRUE(IsRefusal(opened.status())) << opened.status();
  const std::string message = opened.status().ToString();
  EXPECT_EQ(message.find(bad_secret), std::string::npos) << message;
  EXPECT_EQ(message.find(env_.secret_key), std::string::npos) << message;
  EXPECT_NE(message.find(uri.substr(0, uri.rfind('/'))), std::string::npos) << message;
  EXPECT_NE(message.find("HTTP 403"), std::string::npos) << message;

  // An unknown key id.
  StorageOptions unknown_key = options_;
  unknown_key["aws_access_key_id"] = "LCTNOSUCHKEY0000";
  unknown_key["aws_secret_access_key"] = bad_secret;
  open.access.storage_options = unknown_key;
  opened = Dataset::Open(uri, open);
  ASSERT_FALSE(opened.ok());
  EXPECT_TRUE(IsRefusal(opened.status())) << opened.status();
  EXPECT_EQ(opened.status().ToString().find(bad_secret), std::string::npos)
      << opened.status();
  EXPECT_NE(opened.status().ToString().find("HTTP 403"), std::string::npos)
      << opened.status();

  // A write with a wrong secret fails the same way and publishes nothing.
  const std::string other = Track(env_.UniqueUri("refused.lance"), options_);
  WriteParams params;
  params.access.storage_options = wrong_secret;
  auto written = WriteRows(other, 0, 10, params);
  ASSERT_FALSE(written.ok());
  EXPECT_TRUE(IsRefusal(written.status())) << written.status();
  EXPECT_EQ(written.status().ToString().find(bad_secret), std::string::npos)
      << written.status();
  auto loc = io::ResolveObjectStore(other, options_);
  ASSERT_OK(loc.status());
  ASSERT_OK_AND_ASSIGN(auto left, loc->store->ListAll(loc->path + "/", true));
  EXPECT_TRUE(left.objects.empty()) << left.objects.front().path;

  // The good credentials still work afterwards (the registry did not keep the bad ones).
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri, Open()));
  EXPECT_EQ(*ds->CountRows(), 10);
}

TEST_F(S3DatasetTest, MalformedStorageOptionsAreInvalid) {
  StorageOptions no_http = options_;
  no_http.erase("allow_http");
  OpenOptions open;
  open.access.storage_options = no_http;
  // An http:// endpoint is refused unless allow_http is set (unless AWS_ALLOW_HTTP is).
  if (std::getenv("AWS_ALLOW_HTTP") == nullptr) {
    EXPECT_THAT(Dataset::Open(uri_, open),
                IsErrorWith(StatusCode::kInvalid, "allow_http"));
  }
  StorageOptions bad_retries = options_;
  bad_retries["client_max_retries"] = "many";
  open.access.storage_options = bad_retries;
  EXPECT_THAT(Dataset::Open(uri_, open),
              IsErrorWith(StatusCode::kInvalid, "client_max_retries"));
}

}  // namespace
}  // namespace lance

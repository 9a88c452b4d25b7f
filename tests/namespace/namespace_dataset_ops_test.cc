// SPDX-License-Identifier: Apache-2.0
// The namespace entry points (WriteDataset / OpenDataset),
// LanceNamespaceStorageOptionsProvider, the provider glue of the io layer
// (ResolveStorageAccess) and LanceFileSession, on local and memory:// roots: exact
// namespace call counts, and the rule that local and in-memory stores never call the
// provider. The same entry points against RGW with real, revocable keys:
// tests/s3/namespace_refresh_test.cc.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

#include "lance/core/builder.h"
#include "lance/core/clock.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/format/file_session.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/refreshing_credentials.h"
#include "lance/io/storage_access.h"
#include "lance/namespace/dataset_ops.h"
#include "lance/namespace/directory_namespace.h"
#include "lance/namespace/storage_options_provider.h"
#include "tests/testing/matchers.h"
#include "tests/testing/named_rows.h"
#include "tests/testing/temp_dir.h"

namespace lance::ns {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)

// Rows id = start.., name = "r<id>".
RecordBatchPtr Rows(int64_t start, int64_t n) {
  return ::lance::testing::NamedRows(start, n, "r");
}

std::unique_ptr<RecordBatchReader> ReaderOf(RecordBatchPtr batch) {
  auto s = batch->schema();
  return RecordBatchReader::FromBatches(s, std::vector<RecordBatchPtr>{std::move(batch)});
}

std::vector<int64_t> Ids(const Dataset& ds) {
  std::vector<int64_t> out;
  auto table = ds.ToTable({.columns = {"id"}});
  EXPECT_THAT(table, IsOk());
  if (!table.ok()) return out;
  for (const auto& batch : (*table)->batches()) {
    const auto& a = static_cast<const Int64Array&>(*batch->column(0));
    for (int64_t i = 0; i < a.length(); ++i) out.push_back(a.Value(i));
  }
  return out;
}

// Wraps a namespace, counts the calls that locate a table, and (optionally) replaces the
// storage options of their responses by fake vended credentials that expire `ttl` after
// the call on `clock`. Optionally refuses declare_table (a namespace older than it).
class CountingNamespace final : public LanceNamespace {
 public:
  CountingNamespace(std::shared_ptr<LanceNamespace> inner, std::shared_ptr<Clock> clock,
                    bool vend, bool declare_unsupported = false)
      : inner_(std::move(inner)),
        clock_(std::move(clock)),
        vend_(vend),
        declare_unsupported_(declare_unsupported) {}

  std::string namespace_id() const override { return inner_->namespace_id(); }

  Result<DescribeTableResponse> DescribeTable(const DescribeTableRequest& r) override {
    ++describes;
    LANCE_ASSIGN_OR_RAISE(auto response, inner_->DescribeTable(r));
    Vend(&response.storage_options);
    return response;
  }
  Result<DeclareTableResponse> DeclareTable(const DeclareTableRequest& r) override {
    ++declares;
    if (declare_unsupported_) return Unsupported("declare_table");
    LANCE_ASSIGN_OR_RAISE(auto response, inner_->DeclareTable(r));
    Vend(&response.storage_options);
    return response;
  }
  Result<CreateEmptyTableResponse> CreateEmptyTable(
      const CreateEmptyTableRequest& r) override {
    ++create_empties;
    LANCE_ASSIGN_OR_RAISE(auto response, inner_->CreateEmptyTable(r));
    Vend(&response.storage_options);
    return response;
  }
  Result<ListTablesResponse> ListTables(const ListTablesRequest& r) override {
    return inner_->ListTables(r);
  }

  std::atomic<int> describes{0};
  std::atomic<int> declares{0};
  std::atomic<int> create_empties{0};
  std::chrono::milliseconds ttl{60'000};

 private:
  void Vend(std::optional<Properties>* options) {
    if (!vend_) return;
    if (!options->has_value()) *options = Properties{};
    const int n = ++vended_;
    (**options)["aws_access_key_id"] = "AKIAFAKE" + std::to_string(n);
    (**options)["aws_secret_access_key"] = "fake-secret-" + std::to_string(n);
    (**options)["expires_at_millis"] = std::to_string(clock_->NowMillis() + ttl.count());
    (**options)["refresh_offset_millis"] = "1000";
  }

  std::shared_ptr<LanceNamespace> inner_;
  std::shared_ptr<Clock> clock_;
  bool vend_;
  bool declare_unsupported_;
  std::atomic<int> vended_{0};
};

// A provider that counts its fetches and hands out fake credentials.
class CountingProvider final : public io::StorageOptionsProvider {
 public:
  explicit CountingProvider(std::string id) : id_(std::move(id)) {}
  Result<std::optional<io::StorageOptions>> FetchStorageOptions() override {
    ++fetches;
    return std::optional<io::StorageOptions>(
        io::StorageOptions{{"aws_access_key_id", "AKIAFETCHED"},
                           {"aws_secret_access_key", "fetched-secret"}});
  }
  std::string provider_id() const override { return id_; }
  std::atomic<int> fetches{0};

 private:
  std::string id_;
};

// -- LanceNamespaceStorageOptionsProvider --------------------------------------------

class NamespaceProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = DirectoryNamespace::FromProperties(
        {{"root", tmp_.Join("root")}, {"storage.aws_region", "us-east-1"}});
    ASSERT_THAT(dir, IsOk());
    dir_ = *dir;
    clock_ = std::make_shared<ManualClock>();
    ns_ = std::make_shared<CountingNamespace>(dir_, clock_, /*vend=*/true);
  }

  lance::testing::TempDir tmp_;
  std::shared_ptr<DirectoryNamespace> dir_;
  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<CountingNamespace> ns_;
};

TEST_F(NamespaceProviderTest, ProviderIdNamesNamespaceAndTable) {
  LanceNamespaceStorageOptionsProvider provider(ns_, {"team", "events"});
  EXPECT_EQ(
      provider.provider_id(),
      "LanceNamespaceStorageOptionsProvider { namespace: DirectoryNamespace { root: \"" +
          tmp_.Join("root") + "\" }, table_id: [\"team\", \"events\"] }");
  // Stable and equal for equal (namespace, table); different for another table.
  EXPECT_EQ(LanceNamespaceStorageOptionsProvider(ns_, {"team", "events"}).provider_id(),
            provider.provider_id());
  EXPECT_NE(LanceNamespaceStorageOptionsProvider(ns_, {"team", "other"}).provider_id(),
            provider.provider_id());
  EXPECT_EQ(ns_->describes, 0);  // naming it calls nothing

  EXPECT_THAT(LanceNamespaceStorageOptionsProvider::Make(nullptr, {"t"}),
              IsError(StatusCode::kInvalid));
  EXPECT_THAT(LanceNamespaceStorageOptionsProvider::Make(ns_, {}),
              IsError(StatusCode::kInvalid));
}

TEST_F(NamespaceProviderTest, FetchIsOneDescribeTable) {
  ASSERT_OK(ns_->DeclareTable({.id = {"t"}}).status());
  ASSERT_OK_AND_ASSIGN(auto provider,
                       LanceNamespaceStorageOptionsProvider::Make(ns_, {"t"}));
  ASSERT_OK_AND_ASSIGN(auto fetched, provider->FetchStorageOptions());
  EXPECT_EQ(ns_->describes, 1);
  ASSERT_TRUE(fetched.has_value());
  EXPECT_EQ(fetched->at("aws_region"), "us-east-1");  // the namespace's own options
  EXPECT_EQ(fetched->at("aws_access_key_id"), "AKIAFAKE2");
  ASSERT_OK_AND_ASSIGN(fetched, provider->FetchStorageOptions());
  EXPECT_EQ(ns_->describes, 2);
  EXPECT_EQ(fetched->at("aws_access_key_id"), "AKIAFAKE3");

  // Errors keep the namespace's kind and name the table; they carry no secret.
  ASSERT_OK_AND_ASSIGN(auto missing,
                       LanceNamespaceStorageOptionsProvider::Make(ns_, {"nope"}));
  auto failed = missing->FetchStorageOptions();
  EXPECT_THAT(failed, IsErrorWith(StatusCode::kNotFound, "TableNotFound"));
  EXPECT_THAT(failed.status().message(), HasSubstr("[\"nope\"]"));
  EXPECT_EQ(NamespaceErrorCode(failed.status()), ErrorCode::kTableNotFound);
}

TEST_F(NamespaceProviderTest, ResponseWithoutOptionsIsNullopt) {
  auto plain = std::make_shared<CountingNamespace>(
      *DirectoryNamespace::FromProperties({{"root", tmp_.Join("bare")}}), clock_,
      /*vend=*/false);
  ASSERT_OK(plain->DeclareTable({.id = {"t"}}).status());
  LanceNamespaceStorageOptionsProvider provider(plain, {"t"});
  ASSERT_OK_AND_ASSIGN(auto fetched, provider.FetchStorageOptions());
  EXPECT_FALSE(fetched.has_value());
}

// -- ResolveStorageAccess -------------------------------------------------------------

TEST(StorageAccessTest, NullProviderMeansStaticOptions) {
  io::StorageOptions options{{"aws_access_key_id", "AKIAX"},
                             {"aws_secret_access_key", "s"},
                             {"aws_region", "r"}};
  ASSERT_OK_AND_ASSIGN(auto source, io::MakeCredentialsSource(options, nullptr));
  EXPECT_EQ(source, nullptr);
  ASSERT_OK_AND_ASSIGN(auto access, io::ResolveStorageAccess(io::StorageAccess(options)));
  EXPECT_EQ(access.storage_options, options);
  EXPECT_EQ(access.credentials, nullptr);
}

TEST(StorageAccessTest, ProviderTakesOverCredentialsAndLifetime) {
  auto provider = std::make_shared<CountingProvider>("p1");
  io::StorageOptions options{
      {"aws_access_key_id", "AKIAINITIAL"},   {"AWS_SECRET_ACCESS_KEY", "initial-secret"},
      {"aws_session_token", "tok"},           {"expires_at_millis", "4102444800000"},
      {"refresh_offset_millis", "1000"},      {"aws_region", "eu-west-1"},
      {"aws_endpoint", "http://127.0.0.1:9"}, {"allow_http", "true"}};
  // The caller only attaches the provider; resolving builds the source.
  io::StorageAccess unresolved(options, provider);
  EXPECT_FALSE(unresolved.resolved());
  ASSERT_OK_AND_ASSIGN(auto access, io::ResolveStorageAccess(unresolved));
  EXPECT_TRUE(access.resolved());
  EXPECT_EQ(access.provider, provider);
  EXPECT_EQ(access.storage_options,
            (io::StorageOptions{{"aws_region", "eu-west-1"},
                                {"aws_endpoint", "http://127.0.0.1:9"},
                                {"allow_http", "true"}}));
  ASSERT_NE(access.credentials, nullptr);
  EXPECT_EQ(access.credentials->id(), "provider:p1");
  // Seeded: the initial credentials are served without a fetch.
  ASSERT_OK_AND_ASSIGN(auto creds, access.credentials->Current());
  EXPECT_EQ(creds->aws.access_key_id, "AKIAINITIAL");
  EXPECT_EQ(creds->aws.session_token, "tok");
  EXPECT_EQ(provider->fetches, 0);
  EXPECT_THAT(access.credentials->ToString(), Not(HasSubstr("initial-secret")));

  // Malformed lifetimes are reported, naming the key.
  options["expires_at_millis"] = "soon";
  EXPECT_THAT(io::ResolveStorageAccess(io::StorageAccess(options, provider)),
              IsErrorWith(StatusCode::kInvalid, "expires_at_millis"));
}

// The registry keys stores by the provider id, so every handle on one provider shares one
// store (and one refresh) across refreshed seeds, and two providers never share.
TEST(StorageAccessTest, StoresSharedPerProviderAcrossSeeds) {
  io::ObjectStoreRegistry registry;
  ASSERT_OK(io::RegisterBuiltinObjectStores(&registry));
  auto p1 = std::make_shared<CountingProvider>("table-1");
  auto p1_again = std::make_shared<CountingProvider>("table-1");
  auto p2 = std::make_shared<CountingProvider>("table-2");
  auto seed = [](int n) {
    return io::StorageOptions{{"aws_access_key_id", "AKIA" + std::to_string(n)},
                              {"aws_secret_access_key", "secret" + std::to_string(n)},
                              {"expires_at_millis", std::to_string(4102444800000 + n)},
                              {"aws_region", "us-east-1"},
                              {"aws_endpoint", "http://127.0.0.1:9"},
                              {"allow_http", "true"}};
  };
  // Unresolved accesses: the registry resolves them (one source per provider id).
  ASSERT_OK_AND_ASSIGN(
      auto r1, registry.Resolve("s3://bucket/t1.lance", io::StorageAccess(seed(1), p1)));
  ASSERT_OK_AND_ASSIGN(auto r1b, registry.Resolve("s3://bucket/t1.lance",
                                                  io::StorageAccess(seed(2), p1_again)));
  ASSERT_OK_AND_ASSIGN(
      auto r2, registry.Resolve("s3://bucket/t2.lance", io::StorageAccess(seed(1), p2)));
  EXPECT_EQ(r1.access.credentials, r1b.access.credentials);
  EXPECT_NE(r1.access.credentials, r2.access.credentials);
  EXPECT_EQ(r1.store, r1b.store);
  EXPECT_NE(r1.store, r2.store);
  EXPECT_EQ(registry.num_cached_stores(), 2u);
  EXPECT_THAT(r1.store->ToString(), Not(HasSubstr("secret1")));
  EXPECT_EQ(p1->fetches + p1_again->fetches + p2->fetches, 0);
}

// -- Local and memory stores never call the provider
// -------------------------------------

TEST(StorageAccessTest, LocalAndMemoryStoresNeverCallTheProvider) {
  lance::testing::TempDir tmp;
  auto clock = std::make_shared<ManualClock>();
  for (const std::string& uri : std::vector<std::string>{
           tmp.Join("local.lance"),
           "memory://h9-never-" + std::to_string(::getpid()) + "/m.lance"}) {
    SCOPED_TRACE(uri);
    auto provider = std::make_shared<CountingProvider>("never-" + uri);
    // Credentials that are already expired: any store that asked would fetch at once.
    io::StorageOptions expired{
        {"aws_access_key_id", "AKIAOLD"},
        {"aws_secret_access_key", "old"},
        {"expires_at_millis", std::to_string(clock->NowMillis() - 1)}};
    ASSERT_OK_AND_ASSIGN(auto access, io::ResolveStorageAccess(
                                          io::StorageAccess(expired, provider), clock));
    WriteParams params;
    params.access = access;
    auto data = ReaderOf(Rows(0, 3));
    ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Write(*data, uri, params));
    params.mode = WriteMode::kAppend;
    data = ReaderOf(Rows(3, 2));
    ASSERT_OK(Dataset::Write(*data, uri, params).status());
    ASSERT_OK_AND_ASSIGN(auto opened, Dataset::Open(uri, {.access = access}));
    EXPECT_THAT(Ids(*opened), ElementsAre(0, 1, 2, 3, 4));
    ASSERT_OK(opened->Versions().status());

    ASSERT_OK_AND_ASSIGN(auto session,
                         format::LanceFileSession::Open(uri + "-files", access));
    ASSERT_OK_AND_ASSIGN(auto lschema, format::LanceSchema::Assign(Rows(0, 1)->schema()));
    ASSERT_OK_AND_ASSIGN(auto writer, session->OpenWriter("f.lance", lschema));
    ASSERT_OK(writer->WriteBatch(*Rows(0, 4)));
    ASSERT_OK(writer->Close().status());
    ASSERT_OK_AND_ASSIGN(auto reader, session->OpenReader("f.lance"));
    EXPECT_EQ(reader->num_rows(), 4);

    EXPECT_EQ(provider->fetches, 0);
    auto* refreshing =
        dynamic_cast<io::RefreshingCredentialsSource*>(access.credentials.get());
    ASSERT_NE(refreshing, nullptr);
    EXPECT_EQ(refreshing->stats().fetches, 0);
  }
}

// -- WriteDataset / OpenDataset call counts ---------------------------------------------

struct RootParam {
  bool manifest;
  bool memory;
};

class NamespaceDatasetOpsTest : public ::testing::TestWithParam<RootParam> {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    root_ = GetParam().memory ? "memory://h9-nsops-" + std::to_string(::getpid()) + "-" +
                                    std::to_string(counter++) + "/root"
                              : tmp_.Join("root");
    auto dir = DirectoryNamespace::FromProperties(
        {{"root", root_},
         {"manifest_enabled", GetParam().manifest ? "true" : "false"},
         {"storage.aws_region", "us-east-1"}});
    ASSERT_THAT(dir, IsOk());
    clock_ = std::make_shared<ManualClock>();
    ns_ = std::make_shared<CountingNamespace>(*dir, clock_, /*vend=*/true);
    access_.clock = clock_;
  }

  void ExpectCounts(int declares, int describes) {
    EXPECT_EQ(ns_->declares, declares);
    EXPECT_EQ(ns_->describes, describes);
  }

  lance::testing::TempDir tmp_;
  std::string root_;
  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<CountingNamespace> ns_;
  NamespaceAccessOptions access_;
};

INSTANTIATE_TEST_SUITE_P(Roots, NamespaceDatasetOpsTest,
                         ::testing::Values(RootParam{true, false},
                                           RootParam{false, false}, RootParam{true, true},
                                           RootParam{false, true}),
                         [](const auto& info) {
                           return std::string(info.param.manifest ? "Manifest"
                                                                  : "Plain") +
                                  (info.param.memory ? "Memory" : "Local");
                         });

TEST_P(NamespaceDatasetOpsTest, CreateAppendOverwriteOpenCounts) {
  const Identifier id{"events"};
  auto data = ReaderOf(Rows(0, 2));
  ASSERT_OK_AND_ASSIGN(auto created, WriteDataset(*data, ns_, id, {}, access_));
  ExpectCounts(1, 0);
  EXPECT_EQ(created->version(), 1u);  // declaring wrote no version
  EXPECT_THAT(Ids(*created), ElementsAre(0, 1));
  ExpectCounts(1, 0);

  // The provider was attached (namespace returned options) but local/memory never ask.
  clock_->Advance(std::chrono::hours(1));
  EXPECT_THAT(Ids(*created), ElementsAre(0, 1));
  ExpectCounts(1, 0);

  data = ReaderOf(Rows(2, 1));
  ASSERT_OK_AND_ASSIGN(
      auto appended, WriteDataset(*data, ns_, id, {.mode = WriteMode::kAppend}, access_));
  ExpectCounts(1, 1);
  EXPECT_EQ(appended->version(), 2u);
  EXPECT_THAT(Ids(*appended), ElementsAre(0, 1, 2));

  ASSERT_OK_AND_ASSIGN(auto opened, OpenDataset(ns_, id, {}, access_));
  ExpectCounts(1, 2);
  EXPECT_EQ(opened->version(), 2u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(*opened->CountRows(), 3);
  ExpectCounts(1, 2);

  data = ReaderOf(Rows(10, 2));
  ASSERT_OK_AND_ASSIGN(
      auto overwritten,
      WriteDataset(*data, ns_, id, {.mode = WriteMode::kOverwrite}, access_));
  ExpectCounts(1, 3);
  EXPECT_EQ(overwritten->version(), 3u);
  EXPECT_THAT(Ids(*overwritten), ElementsAre(10, 11));
  clock_->Advance(std::chrono::hours(1));
  EXPECT_EQ(*overwritten->CountRows(), 2);
  ASSERT_OK(overwritten->Versions().status());
  ExpectCounts(1, 3);
  EXPECT_EQ(ns_->create_empties, 0);
}

TEST_P(NamespaceDatasetOpsTest, NestedIdInManifestMode) {
  if (!GetParam().manifest) {
    // The plain layout has only the root namespace: a nested id is refused by the
    // namespace.
    auto data = ReaderOf(Rows(0, 1));
    EXPECT_THAT(WriteDataset(*data, ns_, {"team", "events"}, {}, access_),
                IsError(StatusCode::kNotImplemented));
    ExpectCounts(1, 0);
    return;
  }
  auto data = ReaderOf(Rows(0, 2));
  ASSERT_OK_AND_ASSIGN(auto created,
                       WriteDataset(*data, ns_, {"team", "events"}, {}, access_));
  ASSERT_OK_AND_ASSIGN(auto opened, OpenDataset(ns_, {"team", "events"}, {}, access_));
  ExpectCounts(1, 1);
  EXPECT_THAT(Ids(*opened), ElementsAre(0, 1));
}

TEST_P(NamespaceDatasetOpsTest, ErrorsKeepTheirKind) {
  auto data = ReaderOf(Rows(0, 1));
  ASSERT_OK(WriteDataset(*data, ns_, {"t"}, {}, access_).status());
  // Create of an existing table: the namespace's TableAlreadyExists, one declare more.
  data = ReaderOf(Rows(0, 1));
  auto again = WriteDataset(*data, ns_, {"t"}, {}, access_);
  EXPECT_THAT(again, IsErrorWith(StatusCode::kAlreadyExists, "TableAlreadyExists"));
  EXPECT_EQ(NamespaceErrorCode(again.status()), ErrorCode::kTableAlreadyExists);
  ExpectCounts(2, 0);
  // Append / open of a missing table: TableNotFound from the one describe.
  data = ReaderOf(Rows(0, 1));
  EXPECT_THAT(
      WriteDataset(*data, ns_, {"missing"}, {.mode = WriteMode::kAppend}, access_),
      IsErrorWith(StatusCode::kNotFound, "TableNotFound"));
  EXPECT_THAT(OpenDataset(ns_, {"missing"}, {}, access_),
              IsErrorWith(StatusCode::kNotFound, "TableNotFound"));
  ExpectCounts(2, 2);
  EXPECT_THAT(OpenDataset(nullptr, {"t"}), IsError(StatusCode::kInvalid));
  EXPECT_THAT(OpenDataset(ns_, {}), IsError(StatusCode::kInvalid));
  ExpectCounts(2, 2);
}

TEST_P(NamespaceDatasetOpsTest, CreateFallsBackToCreateEmptyTable) {
  auto old_ns = std::make_shared<CountingNamespace>(
      *DirectoryNamespace::FromProperties(
          {{"root", root_ + "-old"},
           {"manifest_enabled", GetParam().manifest ? "true" : "false"}}),
      clock_, /*vend=*/true, /*declare_unsupported=*/true);
  auto data = ReaderOf(Rows(0, 2));
  ASSERT_OK_AND_ASSIGN(auto created, WriteDataset(*data, old_ns, {"t"}, {}, access_));
  EXPECT_EQ(old_ns->declares, 1);
  EXPECT_EQ(old_ns->create_empties, 1);
  EXPECT_EQ(old_ns->describes, 0);
  EXPECT_EQ(created->version(), 1u);
  EXPECT_THAT(Ids(*created), ElementsAre(0, 1));
}

// The user's options first, the namespace's added where the user has none, vended
// credentials (and their expiry) winning; ignore_namespace_storage_options attaches no
// provider.
TEST(MergeStorageOptionsTest, UserFirstVendedCredentialsWin) {
  Properties merged = MergeStorageOptions({{"aws_region", "user-region"},
                                           {"aws_access_key_id", "AKIAUSER"},
                                           {"aws_secret_access_key", "user-secret"},
                                           {"expires_at_millis", "1"},
                                           {"timeout", "5s"}},
                                          {{"aws_region", "ns-region"},
                                           {"aws_endpoint", "http://ns"},
                                           {"aws_access_key_id", "AKIANS"},
                                           {"aws_secret_access_key", "ns-secret"},
                                           {"aws_session_token", "ns-token"},
                                           {"expires_at_millis", "2"},
                                           {"refresh_offset_millis", "3"}});
  EXPECT_EQ(merged, (Properties{{"aws_region", "user-region"},
                                {"aws_endpoint", "http://ns"},
                                {"aws_access_key_id", "AKIANS"},
                                {"aws_secret_access_key", "ns-secret"},
                                {"aws_session_token", "ns-token"},
                                {"expires_at_millis", "2"},
                                {"refresh_offset_millis", "3"},
                                {"timeout", "5s"}}));
  EXPECT_TRUE(IsVendedCredentialKey("aws_session_token"));
  EXPECT_TRUE(IsVendedCredentialKey("expires_at_millis"));
  EXPECT_FALSE(IsVendedCredentialKey("aws_region"));
  EXPECT_FALSE(IsVendedCredentialKey("aws_endpoint"));
  // Nothing from the namespace: the user's options as they are.
  EXPECT_EQ(MergeStorageOptions({{"a", "1"}}, {}), (Properties{{"a", "1"}}));
}

TEST_P(NamespaceDatasetOpsTest, MergesOptionsUserFirstVendedCredentialsWin) {
  ASSERT_OK(ns_->DeclareTable({.id = {"t"}}).status());
  ExpectCounts(1, 0);
  ASSERT_OK_AND_ASSIGN(
      auto table,
      MakeTableAccess(ns_, {"t"}, "loc",
                      Properties{{"aws_region", "ns-region"},
                                 {"aws_endpoint", "http://ns"},
                                 {"aws_access_key_id", "AKIANS"},
                                 {"aws_secret_access_key", "ns-secret"}},
                      io::StorageOptions{{"aws_region", "user-region"},
                                         {"timeout", "5s"},
                                         {"aws_access_key_id", "AKIAUSER"},
                                         {"aws_secret_access_key", "user-secret"}},
                      access_));
  EXPECT_EQ(table.location, "loc");
  EXPECT_EQ(table.access.storage_options,
            (io::StorageOptions{{"aws_endpoint", "http://ns"},
                                {"aws_region", "user-region"},
                                {"timeout", "5s"}}));
  ASSERT_NE(table.access.credentials, nullptr);
  EXPECT_EQ(table.access.credentials->id(),
            "provider:" + LanceNamespaceStorageOptionsProvider(ns_, {"t"}).provider_id());
  ASSERT_OK_AND_ASSIGN(auto creds, table.access.credentials->Current());
  EXPECT_EQ(creds->aws.access_key_id, "AKIANS");  // seeded, no call
  EXPECT_EQ(creds->aws.secret_access_key, "ns-secret");
  ExpectCounts(1, 0);

  NamespaceAccessOptions ignore = access_;
  ignore.ignore_namespace_storage_options = true;
  ASSERT_OK_AND_ASSIGN(table, MakeTableAccess(ns_, {"t"}, "loc", Properties{{"a", "b"}},
                                              io::StorageOptions{{"c", "d"}}, ignore));
  EXPECT_EQ(table.access.storage_options, (io::StorageOptions{{"c", "d"}}));
  EXPECT_EQ(table.access.credentials, nullptr);
  // No options from the namespace: no provider either (as Lance).
  ASSERT_OK_AND_ASSIGN(table, MakeTableAccess(ns_, {"t"}, "loc", std::nullopt,
                                              io::StorageOptions{{"c", "d"}}, access_));
  EXPECT_EQ(table.access.credentials, nullptr);
  EXPECT_THAT(MakeTableAccess(ns_, {"t"}, "", std::nullopt, io::StorageAccess(), access_),
              IsError(StatusCode::kInvalid));
}

// -- LanceFileSession ------------------------------------------------------------------

TEST(LanceFileSessionTest, ContainsListWriteReadOnLocalAndMemory) {
  lance::testing::TempDir tmp;
  for (const std::string& base : std::vector<std::string>{
           tmp.Join("files"),
           "memory://h9-session-" + std::to_string(::getpid()) + "/base"}) {
    SCOPED_TRACE(base);
    ASSERT_OK_AND_ASSIGN(auto session, format::LanceFileSession::Open(base));
    EXPECT_EQ(session->base_uri(), base);
    ASSERT_OK_AND_ASSIGN(bool has, session->Contains("a.lance"));
    EXPECT_FALSE(has);
    ASSERT_OK_AND_ASSIGN(auto listed, session->List());
    EXPECT_THAT(listed, IsEmpty());

    ASSERT_OK_AND_ASSIGN(auto lschema, format::LanceSchema::Assign(Rows(0, 1)->schema()));
    for (const std::string path : {"a.lance", "sub/b.lance", "sub/deeper/c.lance"}) {
      ASSERT_OK_AND_ASSIGN(auto writer, session->OpenWriter(path, lschema));
      ASSERT_OK(writer->WriteBatch(*Rows(0, 3)));
      ASSERT_OK(writer->WriteBatch(*Rows(3, 2)));
      ASSERT_OK(writer->Close().status());
    }
    ASSERT_OK_AND_ASSIGN(has, session->Contains("a.lance"));
    EXPECT_TRUE(has);
    ASSERT_OK_AND_ASSIGN(listed, session->List());
    EXPECT_THAT(listed, ElementsAre("a.lance", "sub/b.lance", "sub/deeper/c.lance"));
    ASSERT_OK_AND_ASSIGN(listed, session->List("sub"));
    EXPECT_THAT(listed, ElementsAre("sub/b.lance", "sub/deeper/c.lance"));
    ASSERT_OK_AND_ASSIGN(listed,
                         session->List("su"));  // a directory, not a string prefix
    EXPECT_THAT(listed, IsEmpty());

    ASSERT_OK_AND_ASSIGN(auto reader, session->OpenReader("sub/b.lance"));
    ASSERT_OK_AND_ASSIGN(auto table, reader->ReadTable());
    ASSERT_OK_AND_ASSIGN(auto expected, Table::Make(Rows(0, 5)->schema(), {Rows(0, 5)}));
    EXPECT_TRUE(table->Equals(*expected));

    EXPECT_THAT(session->OpenReader("missing.lance"), IsError(StatusCode::kNotFound));
    for (const std::string bad : {"", "/abs.lance", "../up.lance", "a//b.lance",
                                  "./a.lance", "s3://b/x.lance", "dir/"}) {
      EXPECT_THAT(session->Contains(bad), IsError(StatusCode::kInvalid)) << bad;
      EXPECT_THAT(session->OpenReader(bad), IsError(StatusCode::kInvalid)) << bad;
    }
    EXPECT_THAT(session->List("../x"), IsError(StatusCode::kInvalid));
  }
  // A sibling with the base as a string prefix is not part of the session.
  ASSERT_OK_AND_ASSIGN(auto sibling, format::LanceFileSession::Open(tmp.Join("files2")));
  ASSERT_OK_AND_ASSIGN(auto lschema, format::LanceSchema::Assign(Rows(0, 1)->schema()));
  ASSERT_OK_AND_ASSIGN(auto writer, sibling->OpenWriter("x.lance", lschema));
  ASSERT_OK(writer->WriteBatch(*Rows(0, 1)));
  ASSERT_OK(writer->Close().status());
  ASSERT_OK_AND_ASSIGN(auto session, format::LanceFileSession::Open(tmp.Join("files")));
  ASSERT_OK_AND_ASSIGN(auto listed, session->List());
  EXPECT_EQ(listed.size(), 3u);
}

}  // namespace
}  // namespace lance::ns

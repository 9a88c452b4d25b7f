// SPDX-License-Identifier: Apache-2.0
#include "lance/io/object_store_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <latch>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "lance/io/local_object_store.h"
#include "lance/io/memory_object_store.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance::io {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using ::lance::testing::TempDir;

class ObjectStoreRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(RegisterBuiltinObjectStores(&registry_)); }
  ObjectStoreRegistry registry_;
};

TEST_F(ObjectStoreRegistryTest, FileUrisResolveToTheFileSystemRoot) {
  ASSERT_OK_AND_ASSIGN(ResolvedLocation loc, registry_.Resolve("file:///data/ds.lance"));
  EXPECT_EQ(loc.store->uri(), "file:///");
  EXPECT_EQ(loc.store->root(), "/");
  EXPECT_EQ(loc.path, "data/ds.lance");
  EXPECT_TRUE(loc.store->is_local());
  EXPECT_EQ(loc.store->ObjectUri(loc.path), "file:///data/ds.lance");
}

TEST_F(ObjectStoreRegistryTest, PlainPathsAreLocalFiles) {
  ASSERT_OK_AND_ASSIGN(ResolvedLocation abs, registry_.Resolve("/data/ds.lance"));
  EXPECT_EQ(abs.path, "data/ds.lance");
  ASSERT_OK_AND_ASSIGN(ResolvedLocation rel, registry_.Resolve("ds.lance"));
  EXPECT_EQ("/" + rel.path, (std::filesystem::current_path() / "ds.lance").string());
  EXPECT_EQ(abs.store, rel.store);  // one local store for every local path
}

TEST_F(ObjectStoreRegistryTest, ResolvedLocalStoreReadsAndWritesTheRightFiles) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(ResolvedLocation loc, registry_.Resolve(dir.Join("ds.lance")));
  ASSERT_OK(loc.store->Put(loc.path + "/_versions/1.manifest", "m"));
  EXPECT_TRUE(std::filesystem::exists(dir.Join("ds.lance/_versions/1.manifest")));
  ASSERT_OK_AND_ASSIGN(ResolvedLocation again,
                       registry_.Resolve("file://" + dir.Join("ds.lance/")));
  EXPECT_EQ(again.path, loc.path);
  ASSERT_OK_AND_ASSIGN(auto data,
                       again.store->Read(again.path + "/_versions/1.manifest"));
  EXPECT_EQ(data->ToStringView(), "m");
}

TEST_F(ObjectStoreRegistryTest, MemoryUrisShareNamedStores) {
  ASSERT_OK_AND_ASSIGN(ResolvedLocation written,
                       registry_.Resolve("memory://registry-test/tables/t1.lance"));
  EXPECT_EQ(written.path, "tables/t1.lance");
  EXPECT_EQ(written.store->uri(), "memory://registry-test");
  ASSERT_OK(written.store->Put(written.path + "/data.bin", "rows"));

  // Another registry (another handle, a fresh cache) still reaches the same contents.
  ObjectStoreRegistry other;
  ASSERT_OK(RegisterBuiltinObjectStores(&other));
  ASSERT_OK_AND_ASSIGN(ResolvedLocation reopened,
                       other.Resolve("memory://registry-test/tables/t1.lance"));
  ASSERT_OK_AND_ASSIGN(auto data, reopened.store->Read("tables/t1.lance/data.bin"));
  EXPECT_EQ(data->ToStringView(), "rows");
  EXPECT_EQ(reopened.store, MemoryObjectStore::Named("registry-test"));

  ASSERT_OK_AND_ASSIGN(ResolvedLocation elsewhere, registry_.Resolve("memory://else/x"));
  EXPECT_THAT(elsewhere.store->Head("tables/t1.lance/data.bin"),
              IsError(StatusCode::kNotFound));
  MemoryObjectStore::DropNamed("registry-test");
  MemoryObjectStore::DropNamed("else");
}

TEST_F(ObjectStoreRegistryTest, S3ResolvesToOneStorePerBucketAndOptions) {
  // Building an S3 store contacts no server, so this runs offline.
  const StorageOptions options = {{"aws_endpoint", "http://127.0.0.1:1"},
                                  {"allow_http", "true"},
                                  {"aws_access_key_id", "AKIDEXAMPLE"},
                                  {"aws_secret_access_key", "not-a-real-secret"}};
  ASSERT_OK_AND_ASSIGN(auto a, registry_.Resolve("s3://bucket/path/ds.lance", options));
  EXPECT_EQ(a.path, "path/ds.lance");
  EXPECT_EQ(a.store->uri(), "s3://bucket");
  EXPECT_FALSE(a.store->is_local());
  EXPECT_TRUE(a.store->supports_conditional_put());
  ASSERT_OK_AND_ASSIGN(auto b, registry_.Resolve("s3://bucket/other", options));
  EXPECT_EQ(a.store, b.store);
  ASSERT_OK_AND_ASSIGN(auto c, registry_.Resolve("s3://bucket2/other", options));
  EXPECT_NE(a.store, c.store);
  ASSERT_OK_AND_ASSIGN(auto d, registry_.Resolve("s3a://bucket/path", options));
  EXPECT_EQ(d.store->uri(), "s3a://bucket");
  EXPECT_EQ(a.store->ToString().find("not-a-real-secret"), std::string::npos);
  EXPECT_THAT(registry_.Resolve("s3:///key"), IsError(StatusCode::kInvalid));
  // http endpoints need allow_http, as in Lance.
  StorageOptions no_http = options;
  no_http.erase("allow_http");
  EXPECT_THAT(registry_.Resolve("s3://bucket/x", no_http),
              IsErrorWith(StatusCode::kInvalid, "allow_http"));
}

TEST_F(ObjectStoreRegistryTest, CredentialSourcesSeparateStores) {
  const StorageOptions options = {{"aws_endpoint", "http://127.0.0.1:1"},
                                  {"allow_http", "true"}};
  class NamedSource : public CredentialsSource {
   public:
    explicit NamedSource(std::string id) : id_(std::move(id)) {}
    Result<std::shared_ptr<const Credentials>> Current() override {
      return std::make_shared<const Credentials>();
    }
    std::string id() const override { return id_; }
    std::string ToString() const override { return "NamedSource(" + id_ + ")"; }

   private:
    std::string id_;
  };
  auto t1 = std::make_shared<NamedSource>("table-1");
  auto t1_again = std::make_shared<NamedSource>("table-1");
  auto t2 = std::make_shared<NamedSource>("table-2");
  ASSERT_OK_AND_ASSIGN(auto a,
                       registry_.Resolve("s3://bucket/t1", StorageAccess(options, t1)));
  ASSERT_OK_AND_ASSIGN(
      auto b, registry_.Resolve("s3://bucket/t1", StorageAccess(options, t1_again)));
  ASSERT_OK_AND_ASSIGN(auto c,
                       registry_.Resolve("s3://bucket/t2", StorageAccess(options, t2)));
  ASSERT_OK_AND_ASSIGN(auto d, registry_.Resolve("s3://bucket/t2", options));
  EXPECT_EQ(a.store, b.store);  // same source identity: shared
  EXPECT_NE(a.store, c.store);  // another table's source: never shared
  EXPECT_NE(c.store, d.store);  // no source vs a source
}

TEST_F(ObjectStoreRegistryTest, UnknownSchemesAreNotImplemented) {
  EXPECT_THAT(registry_.Resolve("nosuchscheme://bucket/x"),
              IsErrorWith(StatusCode::kNotImplemented, "nosuchscheme"));
  EXPECT_THAT(registry_.Resolve(""), IsError(StatusCode::kInvalid));
}

TEST_F(ObjectStoreRegistryTest, StoresAreSharedPerRootAndOptions) {
  auto count = std::make_shared<int>(0);
  ASSERT_OK(registry_.Register("test",
                               [count](const Uri& root, const StorageOptions&,
                                       const std::shared_ptr<CredentialsSource>&)
                                   -> Result<std::shared_ptr<ObjectStore>> {
                                 ++*count;
                                 EXPECT_TRUE(root.path.empty());
                                 return std::shared_ptr<ObjectStore>(
                                     std::make_shared<MemoryObjectStore>(root.authority));
                               }));
  StorageOptions region_a = {{"aws_region", "a"}};
  StorageOptions region_b = {{"aws_region", "b"}};
  ASSERT_OK_AND_ASSIGN(auto one, registry_.Resolve("test://bucket/x", region_a));
  ASSERT_OK_AND_ASSIGN(auto two, registry_.Resolve("test://bucket/y/z", region_a));
  EXPECT_EQ(one.store, two.store);
  EXPECT_EQ(two.path, "y/z");
  ASSERT_OK_AND_ASSIGN(auto three, registry_.Resolve("test://bucket/x", region_b));
  EXPECT_NE(one.store, three.store);
  ASSERT_OK_AND_ASSIGN(auto four, registry_.Resolve("test://other/x", region_a));
  EXPECT_NE(one.store, four.store);
  EXPECT_EQ(*count, 3);
  EXPECT_EQ(registry_.num_cached_stores(), 3u);

  // The cache holds stores weakly.
  one = {};
  two = {};
  EXPECT_EQ(registry_.num_cached_stores(), 2u);
  ASSERT_OK_AND_ASSIGN(auto five, registry_.Resolve("test://bucket/x", region_a));
  EXPECT_EQ(*count, 4);
  registry_.ClearCache();
  EXPECT_EQ(registry_.num_cached_stores(), 0u);
  EXPECT_THAT(five.store->Head("x"), IsError(StatusCode::kNotFound));  // still usable
}

TEST_F(ObjectStoreRegistryTest, SecretsNeverEnterCacheKeysButSeparateStores) {
  StorageOptions options = {{"aws_region", "us-east-1"},
                            {"aws_access_key_id", "AKIDEXAMPLE"},
                            {"aws_secret_access_key", "supersecret"},
                            {"aws_session_token", "sessiontoken"},
                            {"Azure_Storage_Account_Key", "azkey"},
                            {"password", "pw"}};
  const std::string key = ObjectStoreRegistry::CacheKey(Uri{"s3", "bucket", ""}, options);
  EXPECT_THAT(key, HasSubstr("us-east-1"));
  EXPECT_THAT(key, HasSubstr("bucket"));
  for (const std::string secret :
       {"AKIDEXAMPLE", "supersecret", "sessiontoken", "azkey", "pw"}) {
    EXPECT_THAT(key, Not(HasSubstr(secret)));
  }

  int made = 0;
  ASSERT_OK(registry_.Register("sec",
                               [&made](const Uri& root, const StorageOptions&,
                                       const std::shared_ptr<CredentialsSource>&)
                                   -> Result<std::shared_ptr<ObjectStore>> {
                                 ++made;
                                 return std::shared_ptr<ObjectStore>(
                                     std::make_shared<MemoryObjectStore>());
                               }));
  StorageOptions alice = {{"aws_secret_access_key", "alice"}};
  StorageOptions bob = {{"aws_secret_access_key", "bob"}};
  ASSERT_OK_AND_ASSIGN(auto a1, registry_.Resolve("sec://b/x", alice));
  ASSERT_OK_AND_ASSIGN(auto a2, registry_.Resolve("sec://b/y", alice));
  EXPECT_EQ(a1.store, a2.store);
  ASSERT_OK_AND_ASSIGN(auto b1, registry_.Resolve("sec://b/x", bob));
  EXPECT_NE(a1.store, b1.store);  // two credential sets never share a store
  // Rotating credentials replaces the entry rather than piling up new ones.
  EXPECT_EQ(registry_.num_cached_stores(), 1u);
  EXPECT_EQ(made, 2);
}

TEST_F(ObjectStoreRegistryTest, SecretOptionKeysAreRecognised) {
  for (const std::string key :
       {"aws_access_key_id", "aws_secret_access_key", "aws_session_token", "AWS_SECRET",
        "azure_storage_sas_token", "azure_storage_account_key",
        "google_service_account_key", "password", "bearer_token", "client_secret",
        "api_key"}) {
    EXPECT_TRUE(ObjectStoreRegistry::IsSecretOptionKey(key)) << key;
  }
  for (const std::string key : {"aws_region", "aws_endpoint", "allow_http",
                                "aws_virtual_hosted_style_request", "timeout"}) {
    EXPECT_FALSE(ObjectStoreRegistry::IsSecretOptionKey(key)) << key;
  }
}

TEST_F(ObjectStoreRegistryTest, CacheKeysCannotBeForgedByConcatenation) {
  Uri root{"s3", "b", ""};
  EXPECT_NE(ObjectStoreRegistry::CacheKey(root, {{"ab", "c"}}),
            ObjectStoreRegistry::CacheKey(root, {{"a", "bc"}}));
  EXPECT_NE(ObjectStoreRegistry::CacheKey(Uri{"s3", "ab", ""}, {}),
            ObjectStoreRegistry::CacheKey(Uri{"s3a", "b", ""}, {}));
}

TEST_F(ObjectStoreRegistryTest, RegistrationRules) {
  auto factory = [](const Uri&, const StorageOptions&,
                    const std::shared_ptr<CredentialsSource>&)
      -> Result<std::shared_ptr<ObjectStore>> {
    return std::shared_ptr<ObjectStore>(std::make_shared<MemoryObjectStore>("replaced"));
  };
  EXPECT_THAT(registry_.Register("file", factory), IsError(StatusCode::kAlreadyExists));
  EXPECT_THAT(RegisterBuiltinObjectStores(&registry_),
              IsError(StatusCode::kAlreadyExists));
  EXPECT_THAT(registry_.Register("bad scheme", factory), IsError(StatusCode::kInvalid));
  EXPECT_THAT(registry_.Register("x", ObjectStoreFactory()),
              IsError(StatusCode::kInvalid));

  // Replacing (as the S3 store will) drops stores built by the old factory.
  ASSERT_OK_AND_ASSIGN(auto before, registry_.Resolve("memory://replace-test/k"));
  ASSERT_OK(registry_.Register("MEMORY", factory, /*replace=*/true));
  ASSERT_OK_AND_ASSIGN(auto after, registry_.Resolve("memory://replace-test/k"));
  EXPECT_EQ(after.store->uri(), "memory://replaced");
  EXPECT_NE(before.store, after.store);
  MemoryObjectStore::DropNamed("replace-test");
}

TEST_F(ObjectStoreRegistryTest, FactoryErrorsAreReportedWithTheRoot) {
  ASSERT_OK(registry_.Register(
      "broken",
      [](const Uri&, const StorageOptions&, const std::shared_ptr<CredentialsSource>&)
          -> Result<std::shared_ptr<ObjectStore>> {
        return Status::Unavailable("endpoint down");
      }));
  auto resolved = registry_.Resolve("broken://bucket/x");
  EXPECT_THAT(resolved, IsErrorWith(StatusCode::kUnavailable, "broken://bucket"));
  EXPECT_THAT(resolved, IsErrorWith(StatusCode::kUnavailable, "endpoint down"));
  EXPECT_EQ(registry_.num_cached_stores(), 0u);
}

TEST_F(ObjectStoreRegistryTest, ConcurrentResolutionsBuildOneStore) {
  std::atomic<int> made{0};
  ASSERT_OK(registry_.Register("conc",
                               [&made](const Uri&, const StorageOptions&,
                                       const std::shared_ptr<CredentialsSource>&)
                                   -> Result<std::shared_ptr<ObjectStore>> {
                                 ++made;
                                 return std::shared_ptr<ObjectStore>(
                                     std::make_shared<MemoryObjectStore>());
                               }));
  constexpr int kThreads = 16;
  std::vector<std::shared_ptr<ObjectStore>> stores(kThreads);
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      auto resolved = registry_.Resolve("conc://bucket/t" + std::to_string(i));
      if (resolved.ok()) stores[i] = resolved->store;
    });
  }
  for (auto& t : threads) t.join();
  std::set<ObjectStore*> distinct;
  for (const auto& s : stores) distinct.insert(s.get());
  EXPECT_EQ(distinct.size(), 1u);
  EXPECT_NE(*distinct.begin(), nullptr);
  EXPECT_EQ(made.load(), 1);
}

TEST(DefaultObjectStoreRegistryTest, HasTheBuiltinStores) {
  ObjectStoreRegistry& registry = ObjectStoreRegistry::Default();
  EXPECT_EQ(&registry, &ObjectStoreRegistry::Default());
  for (const char* scheme : {"file", "memory", "s3"}) {
    EXPECT_TRUE(registry.IsRegistered(scheme)) << scheme;
  }
  ASSERT_OK_AND_ASSIGN(ResolvedLocation loc,
                       ResolveObjectStore("memory://default-test/t"));
  EXPECT_EQ(loc.path, "t");
  ASSERT_OK_AND_ASSIGN(ResolvedLocation local, ResolveObjectStore("/tmp/x.lance"));
  EXPECT_EQ(local.path, "tmp/x.lance");
  EXPECT_TRUE(local.store->is_local());
  MemoryObjectStore::DropNamed("default-test");
}

}  // namespace
}  // namespace lance::io

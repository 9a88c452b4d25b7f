// SPDX-License-Identifier: Apache-2.0
// AzureObjectStore against Azurite: the object-store conformance suite on a fresh
// container per test, authorized with Shared Key (the account key), with a container SAS,
// and through the emulator switch; then what is specific to Azure -- block uploads, the
// If-None-Match commit race, pinned readers, parallel ranged reads, conditional renames,
// the registry's schemes.
#include "lance/io/azure_object_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "io/azure/azure_client.h"
#include "lance/io/object_store_registry.h"
#include "tests/azure/azure_fixture.h"
#include "tests/testing/matchers.h"
#include "tests/testing/object_store_conformance.h"

namespace lance::io {
namespace {

using ::lance::testing::AzureEnvTest;
using ::lance::testing::AzureTestEnv;
using ::lance::testing::IsError;
using ::lance::testing::MakeFreshContainerStore;
using ::lance::testing::ObjectStoreTestParam;
using ::lance::testing::RacePutIfNotExists;
using ::lance::testing::RandomBytes;

constexpr int64_t kMiB = 1 << 20;

// The shared key's options with blocks (and read chunks) of 1 MiB, so that the large
// objects of the tests are block uploads.
StorageOptions SmallBlockOptions(const AzureTestEnv& env, const std::string& = "") {
  StorageOptions options = env.Options();
  options["lance_cpp_block_size"] = std::to_string(kMiB);
  options["lance_cpp_read_chunk_size"] = std::to_string(kMiB);
  return options;
}

// The options of a store on the run's Azurite and a container.
using OptionsFor = std::function<Result<StorageOptions>(const AzureTestEnv&,
                                                        const std::string& container)>;

// A conformance run on fresh containers, the stores on them made with `options`.
ObjectStoreTestParam ContainerParam(std::string name, OptionsFor options,
                                    int64_t large_object_bytes,
                                    int64_t list_many_keys = 1050) {
  return {.name = std::move(name),
          .make_store =
              [options] {
                return MakeFreshContainerStore(
                    [options](const std::string& container) -> Result<StorageOptions> {
                      LANCE_ASSIGN_OR_RAISE(AzureTestEnv env, AzureTestEnv::Get());
                      return options(env, container);
                    });
              },
          .large_object_bytes = large_object_bytes,
          .list_many_keys = list_many_keys};
}

ObjectStoreTestParam SharedKeyParam() {
  return ContainerParam("azure_shared_key", SmallBlockOptions, 4 * kMiB);
}

ObjectStoreTestParam SasParam() {
  return ContainerParam(
      "azure_sas",
      [](const AzureTestEnv& env,
         const std::string& container) -> Result<StorageOptions> {
        LANCE_ASSIGN_OR_RAISE(std::string sas, env.ContainerSas(container, "racwdl",
                                                                std::chrono::hours(1)));
        StorageOptions options = env.SasOptions(sas);
        options["lance_cpp_block_size"] = std::to_string(kMiB);
        return options;
      },
      3 * kMiB);
}

ObjectStoreTestParam EmulatorParam() {
  return ContainerParam(
      "azure_emulator",
      [](const AzureTestEnv& env, const std::string&) -> Result<StorageOptions> {
        // The emulator switch: the well-known account and key, the endpoint without the
        // account (as AZURITE_BLOB_STORAGE_URL would give it).
        return StorageOptions{{"azure_storage_use_emulator", "true"},
                              {"azure_storage_endpoint", env.Origin()}};
      },
      2 * kMiB, 1010);
}

}  // namespace

LANCE_INSTANTIATE_OBJECT_STORE_CONFORMANCE(Azure, SharedKeyParam(), SasParam(),
                                           EmulatorParam());

namespace {

class AzureStoreTest : public AzureEnvTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(AzureEnvTest::SetUp());
    auto store =
        MakeFreshContainerStore([this](const std::string&) -> Result<StorageOptions> {
          return SmallBlockOptions(env_);
        });
    ASSERT_OK(store.status());
    holder_ = *store;
    store_ = std::dynamic_pointer_cast<AzureObjectStore>(
        std::shared_ptr<ObjectStore>(holder_, holder_.get()));
    ASSERT_NE(store_, nullptr);
  }

  std::shared_ptr<ObjectStore> holder_;
  std::shared_ptr<AzureObjectStore> store_;
};

TEST_F(AzureStoreTest, LargeWriteIsBlocksCommittedAtClose) {
  const std::string data = RandomBytes(5 * kMiB + 123, 7);
  ASSERT_OK_AND_ASSIGN(auto out, store_->OpenWriter("big/blob.bin"));
  const int64_t before = store_->client()->stats().requests.load();
  for (size_t pos = 0; pos < data.size(); pos += 300'000) {
    ASSERT_OK(out->Write(std::string_view(data).substr(pos, 300'000)));
  }
  // Not visible before Close.
  EXPECT_THAT(store_->Head("big/blob.bin"), IsError(StatusCode::kNotFound));
  ASSERT_OK(out->Close());
  // 6 Put Block + 1 Put Block List (+ the HEAD above).
  EXPECT_GE(store_->client()->stats().requests.load() - before, 8);
  ASSERT_OK_AND_ASSIGN(BufferPtr back, store_->Read("big/blob.bin"));
  EXPECT_EQ(back->ToStringView(), data);
  // A ranged read over several chunks, in parallel.
  ASSERT_OK_AND_ASSIGN(BufferPtr range,
                       store_->ReadRange("big/blob.bin", 1000, 3 * kMiB));
  EXPECT_EQ(range->ToStringView(), std::string_view(data).substr(1000, 3 * kMiB));
}

TEST_F(AzureStoreTest, AbortedBlockUploadLeavesNothing) {
  ASSERT_OK_AND_ASSIGN(auto out, store_->OpenWriter("aborted.bin"));
  ASSERT_OK(out->Write(RandomBytes(3 * kMiB, 1)));
  ASSERT_OK(out->Abort());
  EXPECT_THAT(store_->Head("aborted.bin"), IsError(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(ListResult all, store_->ListAll("", true));
  EXPECT_TRUE(all.objects.empty());
}

TEST_F(AzureStoreTest, PinnedReaderFailsWhenTheBlobIsReplaced) {
  ASSERT_OK(store_->Put("pinned", "first version"));
  ASSERT_OK_AND_ASSIGN(auto reader, store_->OpenReader("pinned"));
  ASSERT_OK_AND_ASSIGN(BufferPtr head, reader->ReadAt(0, 5));
  EXPECT_EQ(head->ToStringView(), "first");
  ASSERT_OK(store_->Put("pinned", "second version"));
  auto again = reader->ReadAt(0, 5);
  ASSERT_THAT(again, IsError(StatusCode::kIOError));
  EXPECT_THAT(again.status().message(), ::testing::HasSubstr("object changed"));
  EXPECT_THAT(again.status().message(), ::testing::HasSubstr("az://"));
}

TEST_F(AzureStoreTest, ConcurrentCreatesHaveOneWinner) {
  std::vector<std::string> contents;
  for (int i = 0; i < 8; ++i) contents.push_back("writer " + std::to_string(i));
  std::vector<Status> results =
      RacePutIfNotExists(*store_, "commit/1.manifest", contents);
  int winners = 0;
  std::string winner;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].ok()) {
      ++winners;
      winner = contents[i];
    } else {
      EXPECT_TRUE(results[i].IsAlreadyExists()) << results[i].ToString();
    }
  }
  EXPECT_EQ(winners, 1);
  ASSERT_OK_AND_ASSIGN(BufferPtr stored, store_->Read("commit/1.manifest"));
  EXPECT_EQ(stored->ToStringView(), winner);
}

TEST_F(AzureStoreTest, RenameIfNotExistsIsAConditionalCopy) {
  ASSERT_OK(store_->Put("a", "A"));
  ASSERT_OK(store_->Put("b", "B"));
  EXPECT_THAT(store_->RenameIfNotExists("a", "b"), IsError(StatusCode::kAlreadyExists));
  ASSERT_OK_AND_ASSIGN(BufferPtr b, store_->Read("b"));
  EXPECT_EQ(b->ToStringView(), "B");
  ASSERT_OK(store_->RenameIfNotExists("a", "c"));
  EXPECT_THAT(store_->Head("a"), IsError(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(BufferPtr c, store_->Read("c"));
  EXPECT_EQ(c->ToStringView(), "A");
}

TEST_F(AzureStoreTest, ErrorsNameTheUriAndTheOperation) {
  auto missing = store_->Read("no/such/blob");
  ASSERT_THAT(missing, IsError(StatusCode::kNotFound));
  EXPECT_THAT(
      missing.status().message(),
      ::testing::HasSubstr("GetBlob of az://" + store_->root() + "/no/such/blob"));
}

TEST_F(AzureEnvTest, RegistryResolvesEveryScheme) {
  ObjectStoreRegistry registry;
  ASSERT_OK(RegisterBuiltinObjectStores(&registry));
  StorageAccess access;
  access.storage_options = env_.Options();
  for (const std::string& uri :
       {"az://" + env_.container + "/x/y", "azure://" + env_.container + "/x/y",
        "abfss://" + env_.container + "@" + env_.account + ".dfs.core.windows.net/x/y"}) {
    ASSERT_OK_AND_ASSIGN(ResolvedLocation loc, registry.Resolve(uri, access));
    EXPECT_EQ(loc.path, "x/y") << uri;
    EXPECT_EQ(loc.store->root(), env_.container) << uri;
    ASSERT_OK(loc.store->Put(loc.path, "hello " + uri));
    ASSERT_OK_AND_ASSIGN(BufferPtr back, loc.store->Read(loc.path));
    EXPECT_EQ(back->ToStringView(), "hello " + uri);
    ASSERT_OK(loc.store->Delete(loc.path));
  }
}

}  // namespace
}  // namespace lance::io

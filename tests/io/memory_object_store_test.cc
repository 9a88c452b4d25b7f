// SPDX-License-Identifier: Apache-2.0
#include "lance/io/memory_object_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

#include "tests/testing/matchers.h"
#include "tests/testing/object_store_conformance.h"

namespace lance::io {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using ::lance::testing::ObjectStoreTestParam;

ObjectStoreTestParam MemoryParam() {
  return {"memory", []() -> Result<std::shared_ptr<ObjectStore>> {
            return std::make_shared<MemoryObjectStore>("conformance");
          }};
}

// A wrapper that only counts calls: running the suite through it checks that
// ObjectStoreWrapper forwards every operation faithfully.
class CountingStore : public ObjectStoreWrapper {
 public:
  using ObjectStoreWrapper::ObjectStoreWrapper;
  Result<ObjectMeta> Head(const std::string& path) override {
    ++calls;
    return ObjectStoreWrapper::Head(path);
  }
  Status PutIfNotExists(const std::string& path, std::string_view data) override {
    ++calls;
    return ObjectStoreWrapper::PutIfNotExists(path, data);
  }
  std::atomic<int64_t> calls{0};
};

ObjectStoreTestParam WrappedMemoryParam() {
  return {"wrapped_memory", []() -> Result<std::shared_ptr<ObjectStore>> {
            return std::make_shared<CountingStore>(std::make_shared<MemoryObjectStore>());
          }};
}

}  // namespace

LANCE_INSTANTIATE_OBJECT_STORE_CONFORMANCE(Memory, MemoryParam(), WrappedMemoryParam());

namespace {

TEST(MemoryObjectStoreTest, DescribesItself) {
  MemoryObjectStore store("scratch");
  EXPECT_EQ(store.uri(), "memory://scratch");
  EXPECT_EQ(store.root(), "scratch");
  EXPECT_EQ(store.ObjectUri("a/b"), "memory://scratch/a/b");
  EXPECT_EQ(store.ToString(), "MemoryObjectStore(memory://scratch)");
  EXPECT_TRUE(store.is_local());
  EXPECT_FALSE(store.has_directories());
  EXPECT_TRUE(store.supports_conditional_put());
}

TEST(MemoryObjectStoreTest, NamedInstancesShareContents) {
  auto a = MemoryObjectStore::Named("memory-test-shared");
  auto b = MemoryObjectStore::Named("memory-test-shared");
  EXPECT_EQ(a, b);
  ASSERT_OK(a->Put("x", "1"));
  ASSERT_OK_AND_ASSIGN(auto data, b->Read("x"));
  EXPECT_EQ(data->ToStringView(), "1");
  auto other = MemoryObjectStore::Named("memory-test-other");
  EXPECT_THAT(other->Head("x"), IsError(StatusCode::kNotFound));

  EXPECT_TRUE(MemoryObjectStore::DropNamed("memory-test-shared"));
  EXPECT_FALSE(MemoryObjectStore::DropNamed("memory-test-shared"));
  // The old handle keeps working; the name now refers to a fresh store.
  ASSERT_OK_AND_ASSIGN(data, a->Read("x"));
  EXPECT_EQ(data->ToStringView(), "1");
  auto fresh = MemoryObjectStore::Named("memory-test-shared");
  EXPECT_NE(fresh, a);
  EXPECT_THAT(fresh->Head("x"), IsError(StatusCode::kNotFound));
  MemoryObjectStore::DropNamed("memory-test-shared");
  MemoryObjectStore::DropNamed("memory-test-other");
}

TEST(MemoryObjectStoreTest, PrivateStoresAreIsolated) {
  MemoryObjectStore one("same-name");
  MemoryObjectStore two("same-name");
  ASSERT_OK(one.Put("k", "v"));
  EXPECT_THAT(two.Head("k"), IsError(StatusCode::kNotFound));
  EXPECT_EQ(one.num_objects(), 1);
  EXPECT_EQ(one.total_bytes(), 1);
}

TEST(MemoryObjectStoreTest, ReadsShareTheStoredBytes) {
  MemoryObjectStore store;
  ASSERT_OK(store.Put("k", std::string(1000, 'z')));
  ASSERT_OK_AND_ASSIGN(auto first, store.Read("k"));
  ASSERT_OK_AND_ASSIGN(auto second, store.Read("k"));
  EXPECT_EQ(first->data(), second->data());
  ASSERT_OK_AND_ASSIGN(auto reader, store.OpenReader("k"));
  ASSERT_OK_AND_ASSIGN(auto slice, reader->ReadAt(10, 10));
  EXPECT_EQ(slice->data(), first->data() + 10);
}

TEST(MemoryObjectStoreTest, WriterOutlivesItsStore) {
  std::unique_ptr<OutputStream> writer;
  std::shared_ptr<MemoryObjectStore> named =
      MemoryObjectStore::Named("memory-test-outlive");
  {
    auto store = std::make_shared<MemoryObjectStore>();
    ASSERT_OK_AND_ASSIGN(writer, store->OpenWriter("k"));
  }
  ASSERT_OK(writer->Write("late"));
  ASSERT_OK(writer->Close());
  MemoryObjectStore::DropNamed("memory-test-outlive");
}

TEST(MemoryObjectStoreTest, NotFoundNamesTheUri) {
  MemoryObjectStore store("errs");
  EXPECT_THAT(store.Read("a/b"), IsErrorWith(StatusCode::kNotFound, "memory://errs/a/b"));
  EXPECT_THAT(store.Rename("a/b", "c"),
              IsErrorWith(StatusCode::kNotFound, "memory://errs/a/b"));
}

TEST(ObjectStoreWrapperTest, ForwardsAndCanIntercept) {
  auto inner = std::make_shared<MemoryObjectStore>("inner");
  CountingStore wrapper(inner);
  EXPECT_EQ(wrapper.target(), inner);
  EXPECT_EQ(wrapper.uri(), "memory://inner");
  EXPECT_EQ(wrapper.root(), "inner");
  ASSERT_OK(wrapper.PutIfNotExists("k", "v"));
  ASSERT_OK(wrapper.Head("k").status());
  EXPECT_EQ(wrapper.calls.load(), 2);
  ASSERT_OK_AND_ASSIGN(auto data, inner->Read("k"));
  EXPECT_EQ(data->ToStringView(), "v");
}

}  // namespace
}  // namespace lance::io

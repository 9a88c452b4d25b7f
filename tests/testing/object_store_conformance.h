// SPDX-License-Identifier: Apache-2.0
// The ObjectStore conformance suite: one set of behavioural tests that every ObjectStore
// implementation (local, memory, wrappers, S3) must pass.
//
// Usage, in the test file of a store:
//
//   lance::testing::ObjectStoreTestParam MakeParam() {
//     return {"memory", [] { return Result<std::shared_ptr<ObjectStore>>(...); }};
//   }
//   LANCE_INSTANTIATE_OBJECT_STORE_CONFORMANCE(Memory, MakeParam());
//
// Each test gets a fresh, empty store from `make_store` and drops it at the end (a
// factory that needs cleanup, e.g. a temporary directory, can tie it to the store's
// lifetime with an aliasing shared_ptr). Tests consult the store's capability flags
// (supports_conditional_put, has_directories, list_is_lexically_ordered, is_local) and
// skip what does not apply.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lance/io/object_store.h"
#include "lance/result.h"

namespace lance::testing {

/// How to build the store under test.
struct ObjectStoreTestParam {
  /// Test-name suffix: letters, digits and '_' only.
  std::string name;
  /// Returns a fresh, empty store for one test.
  std::function<Result<std::shared_ptr<io::ObjectStore>>()> make_store;
  /// Size of the large objects of the streaming and concurrency tests; remote stores
  /// may lower it to keep the suite quick.
  int64_t large_object_bytes = 8 << 20;
  /// Number of objects of the many-pages listing test; above
  /// ListOptions::kDefaultMaxKeys (1000) it also crosses a default-sized page. Stores
  /// with slow writes (fsync, remote) may lower it.
  int64_t list_many_keys = 1050;
};

class ObjectStoreConformanceTest : public ::testing::TestWithParam<ObjectStoreTestParam> {
 protected:
  void SetUp() override;
  void TearDown() override;

  /// Put that must succeed.
  void MustPut(const std::string& path, const std::string& content);
  /// The whole object as a string; fails the test (and returns "") on error.
  std::string MustRead(const std::string& path);
  /// Keys of a complete listing.
  std::vector<std::string> ListKeys(const std::string& prefix, bool recursive);

  std::shared_ptr<io::ObjectStore> store_;
};

/// Names instantiated tests after ObjectStoreTestParam::name.
std::string ObjectStoreTestName(
    const ::testing::TestParamInfo<ObjectStoreTestParam>& info);

/// Deterministic pseudo-random bytes (a distinct stream per seed).
std::string RandomBytes(int64_t size, uint64_t seed);

/// One thread for each of `contents`, let go at once, each putting its contents at `key`
/// with PutIfNotExists: their statuses, in the order of `contents`.
std::vector<Status> RacePutIfNotExists(io::ObjectStore& store, const std::string& key,
                                       const std::vector<std::string>& contents);

/// Referenced by LANCE_INSTANTIATE_OBJECT_STORE_CONFORMANCE so that the linker keeps
/// the suite's object file (and with it the TEST_P registrations) from the static test
/// library.
int ObjectStoreConformanceAnchor();

}  // namespace lance::testing

/// Runs the conformance suite against the given ObjectStoreTestParam values. Use at
/// namespace scope, once per `instantiation_name`.
#define LANCE_INSTANTIATE_OBJECT_STORE_CONFORMANCE(instantiation_name, ...)         \
  using ::lance::testing::ObjectStoreConformanceTest;                               \
  INSTANTIATE_TEST_SUITE_P(instantiation_name, ObjectStoreConformanceTest,          \
                           ::testing::Values(__VA_ARGS__),                          \
                           ::lance::testing::ObjectStoreTestName);                  \
  [[maybe_unused]] static const int lance_conformance_anchor_##instantiation_name = \
      ::lance::testing::ObjectStoreConformanceAnchor()

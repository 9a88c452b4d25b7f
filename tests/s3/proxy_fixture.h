// SPDX-License-Identifier: Apache-2.0
// What the fault-injection suites on RGW share (s3_fault_test.cc, lost_ack_test.cc): a
// FaultProxy in front of the real server, a fresh prefix, a store straight to RGW for
// checking and clean-up, and stores / options of clients behind the proxy; the bytes
// and rows they write and the ids they read back.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/io/s3_object_store.h"
#include "tests/s3/s3_fixture.h"
#include "tests/testing/fault_proxy.h"
#include "tests/testing/matchers.h"

namespace lance::testing {

/// `n` pseudo-random bytes, the same for the same seed.
inline std::string Bytes(size_t n, uint32_t seed) {
  std::string out(n, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    out[i] = static_cast<char>(x >> 24);
  }
  return out;
}

inline std::string AsString(const BufferPtr& buffer) {
  return std::string(reinterpret_cast<const char*>(buffer->data()),
                     static_cast<size_t>(buffer->size()));
}

/// Rows id = start..start+n-1; with `payload`, a second column of random int64 values
/// (incompressible: 8 bytes a row in the data file, so a large write is multipart).
inline std::unique_ptr<RecordBatchReader> IdRows(int64_t start, int64_t n,
                                                 bool payload = false) {
  Int64Builder ids;
  Int64Builder values;
  std::mt19937_64 rng(static_cast<uint64_t>(start) + 17);
  for (int64_t i = start; i < start + n; ++i) {
    EXPECT_OK(ids.Append(i));
    if (payload) EXPECT_OK(values.Append(static_cast<int64_t>(rng())));
  }
  std::vector<FieldPtr> fields = {field("id", int64(), false)};
  std::vector<ArrayPtr> columns = {*ids.Finish()};
  if (payload) {
    fields.push_back(field("payload", int64(), false));
    columns.push_back(*values.Finish());
  }
  auto s = schema(fields);
  auto batch = RecordBatch::Make(s, n, columns);
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return RecordBatchReader::FromBatches(s, {*batch});
}

/// The ids of the rows of `ds` in scan order, scanning as `scan` says.
inline std::vector<int64_t> Ids(const Dataset& ds, const ScanOptions& scan = {}) {
  std::vector<int64_t> out;
  auto table = ds.ToTable(scan);
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  if (!table.ok()) return out;
  for (const auto& batch : (*table)->batches()) {
    const auto& col = static_cast<const Int64Array&>(*batch->GetColumnByName("id"));
    for (int64_t i = 0; i < col.length(); ++i) out.push_back(col.Value(i));
  }
  return out;
}

/// The ids of the rows, reading the id column only, sorted (a duplicated row shows up
/// twice).
inline std::vector<int64_t> SortedIds(const Dataset& ds) {
  ScanOptions scan;
  scan.columns = {"id"};
  std::vector<int64_t> out = Ids(ds, scan);
  std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<int64_t> Iota(int64_t begin, int64_t end) {
  std::vector<int64_t> v;
  for (int64_t i = begin; i < end; ++i) v.push_back(i);
  return v;
}

class S3ProxyTest : public S3PrefixTest {
 protected:
  /// \brief `name` names the test prefix ("s3://bucket/lance-test-<unique>/<name>").
  explicit S3ProxyTest(std::string name) : S3PrefixTest(std::move(name)) {}

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(S3PrefixTest::SetUp());
    ASSERT_NO_FATAL_FAILURE(RestartProxy());
  }

  /// A new proxy in front of RGW (the old one, its faults and its log gone).
  void RestartProxy() {
    proxy_.reset();
    ASSERT_OK_AND_ASSIGN(proxy_, FaultProxy::Start(env_.endpoint));
  }

  void TearDown() override {
    proxy_.reset();  // no request in flight while the prefix goes
    S3PrefixTest::TearDown();
  }

  /// \brief Options for a client behind the proxy: quick backoff, a 1 s stall timeout,
  /// then `extra`.
  io::StorageOptions ProxyOptions(int max_retries = 5,
                                  io::StorageOptions extra = {}) const {
    io::StorageOptions o = env_.Options();
    o["aws_endpoint"] = proxy_->endpoint();
    o["client_max_retries"] = std::to_string(max_retries);
    o["lance_cpp_initial_backoff_ms"] = "1";
    o["lance_cpp_max_backoff_ms"] = "20";
    o["lance_cpp_stall_timeout"] = "1s";
    for (auto& [k, v] : extra) o[k] = v;
    return o;
  }

  std::shared_ptr<io::S3ObjectStore> ProxyStore(int max_retries = 5,
                                                io::StorageOptions extra = {}) const {
    auto store = io::S3ObjectStore::FromStorageOptions(
        env_.bucket, ProxyOptions(max_retries, std::move(extra)));
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? *store : nullptr;
  }

  /// The key of `name` under the test prefix, and its s3:// URI.
  std::string Key(const std::string& name) const { return root_key_ + "/" + name; }
  std::string Uri(const std::string& name) const {
    return "s3://" + env_.bucket + "/" + Key(name);
  }

  /// A store behind the proxy, a key and the bytes a test writes there.
  struct ProxiedObject {
    std::shared_ptr<io::S3ObjectStore> store;
    std::string key;
    std::string data;
  };

  /// Expects the object at `key`, read straight from RGW, to hold `data`.
  void ExpectStored(const std::string& key, const std::string& data) const {
    auto stored = direct_->Read(key);
    ASSERT_TRUE(stored.ok()) << stored.status().ToString();
    EXPECT_EQ(AsString(*stored), data);
  }

  std::unique_ptr<FaultProxy> proxy_;
};

}  // namespace lance::testing

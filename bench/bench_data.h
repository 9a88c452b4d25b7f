// SPDX-License-Identifier: Apache-2.0
// The generated rows of the object-store benchmarks (bench/s3_benchmark.cc,
// bench/cloud_benchmark.cc): the same function of the row number in both, so the S3,
// Azure and GCS parts write the same data.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "bench_util.h"
#include "lance/core/array.h"
#include "lance/core/array_data.h"
#include "lance/core/buffer.h"
#include "lance/core/record_batch.h"

namespace bench {

// Data: id int64 = row number, x float64 uniform [0, 2000), k int64 random, s utf8 of
// 96..127 random lowercase letters (avg 111.5 B). About 139.5 logical bytes a row.
// Deterministic: every value is a function of the row number (splitmix64).

inline uint64_t SplitMix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

struct Input {
  lance::SchemaPtr schema;
  std::vector<lance::RecordBatchPtr> batches;
  int64_t rows = 0;
  int64_t logical_bytes = 0;  // as pyarrow's Table.nbytes counts them
  int64_t id_sum = 0;
  int64_t string_bytes = 0;
};

inline lance::BufferPtr Alloc(int64_t n) {
  return Check(lance::Buffer::Allocate(n), "allocating");
}

inline Input Generate(int64_t rows, int64_t batch_rows) {
  Input in;
  in.schema = lance::schema(
      {lance::field("id", lance::int64()), lance::field("x", lance::float64()),
       lance::field("k", lance::int64()), lance::field("s", lance::utf8())});
  for (int64_t start = 0; start < rows; start += batch_rows) {
    const int64_t n = std::min(batch_rows, rows - start);
    auto id = Alloc(n * 8), x = Alloc(n * 8), k = Alloc(n * 8), off = Alloc((n + 1) * 4);
    auto* idp = id->mutable_data_as<int64_t>();
    auto* xp = x->mutable_data_as<double>();
    auto* kp = k->mutable_data_as<int64_t>();
    auto* op = off->mutable_data_as<int32_t>();
    op[0] = 0;
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t r = start + i;
      idp[i] = static_cast<int64_t>(r);
      xp[i] = static_cast<double>(SplitMix(r * 4 + 1) >> 11) * 0x1.0p-53 * 2000.0;
      kp[i] = static_cast<int64_t>(SplitMix(r * 4 + 2));
      op[i + 1] = op[i] + 96 + static_cast<int32_t>(SplitMix(r * 4 + 3) & 31);
      in.id_sum += static_cast<int64_t>(r);
    }
    auto data = Alloc(op[n]);
    uint8_t* dp = data->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      uint64_t state = SplitMix((start + i) * 4);
      for (int32_t j = op[i], m = 0; j < op[i + 1]; ++j, ++m) {
        // 8 letters per 64-bit draw (8 bits each, folded onto 26 letters).
        if (m % 8 == 0 && m > 0) state = SplitMix(state);
        dp[j] = static_cast<uint8_t>('a' + ((state >> (8 * (m % 8))) & 0xff) % 26);
      }
    }
    in.string_bytes += op[n];
    in.logical_bytes += n * (8 + 8 + 8 + 4) + op[n];
    std::vector<lance::ArrayPtr> cols = {
        lance::MakeArray(lance::ArrayData::Make(lance::int64(), n, {nullptr, id}, 0)),
        lance::MakeArray(lance::ArrayData::Make(lance::float64(), n, {nullptr, x}, 0)),
        lance::MakeArray(lance::ArrayData::Make(lance::int64(), n, {nullptr, k}, 0)),
        lance::MakeArray(
            lance::ArrayData::Make(lance::utf8(), n, {nullptr, off, data}, 0))};
    in.batches.push_back(
        Check(lance::RecordBatch::Make(in.schema, n, std::move(cols)), "making a batch"));
    in.rows += n;
  }
  return in;
}

}  // namespace bench

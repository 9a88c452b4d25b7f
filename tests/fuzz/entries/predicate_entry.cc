// SPDX-License-Identifier: Apache-2.0
// Filter expressions (the SQL-like predicate language of scans, deletes and updates):
// parsed and bound against a fixed schema of common types, then evaluated on an
// eight-row batch with nulls, extremes and NaN. The mask must be a null-free boolean
// array of the batch's length.
#include <cmath>
#include <limits>
#include <string>

#include "fuzz/fuzz_entries.h"
#include "lance/core/builder.h"
#include "table/predicate/predicate.h"
#include "testing/array_helpers.h"

namespace lance::fuzz {

namespace {

RecordBatchPtr SampleBatch() {
  using testing::Bools;
  using testing::F64;
  using testing::I32;
  using testing::I64;
  using testing::I8;
  using testing::Str;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const double nan = std::nan("");
  const std::vector<bool> some_null = {true, true, false, true, true, true, false, true};
  std::vector<std::pair<std::string, ArrayPtr>> columns = {
      {"i", I64({7, -7, 5, kMax, 0, 0, kMin, -1}, some_null)},
      {"j", I64({2, 2, -3, 1, 0, 1, 1, 3})},
      {"x", I32({1, 2, 3, 4, 5, 6, 7, 8}, some_null)},
      {"t", I8({100, -56, -128, 127, 0, 3, 7, -7})},
      {"f", F64({3.5, -3.5, 3.0, 1.5, 0.0, -0.0, nan, 1e300}, some_null)},
      {"s", Str({"a", "b", "", "d%", "e_", "f'", "g\\", "h"}, some_null)},
      {"b", Bools({true, false, true, false, true, false, true, false}, some_null)},
      {"l", testing::IntLists<ListBuilder>(
                {std::vector<int32_t>{1, 2}, std::nullopt, std::vector<int32_t>{},
                 std::vector<int32_t>{3}, std::vector<int32_t>{4}, std::nullopt,
                 std::vector<int32_t>{5, 6, 7}, std::vector<int32_t>{8}})},
  };
  std::vector<FieldPtr> fields;
  std::vector<ArrayPtr> arrays;
  for (auto& [name, array] : columns) {
    fields.push_back(field(name, array->type()));
    arrays.push_back(array);
  }
  return RecordBatch::Make(schema(std::move(fields)), 8, std::move(arrays)).value();
}

}  // namespace

Status FuzzPredicate(std::string_view data) {
  static const RecordBatchPtr batch = SampleBatch();
  auto predicate = table::Predicate::Parse(data, *batch->schema());
  if (!predicate.ok()) return predicate.status();
  (void)(*predicate)->ReferencedColumns();
  (void)(*predicate)->ToString();
  auto mask = (*predicate)->Evaluate(*batch);
  if (!mask.ok()) return mask.status();
  FUZZ_CHECK((*mask)->length() == batch->num_rows(), "the mask has another length");
  FUZZ_CHECK((*mask)->type()->id() == TypeId::kBool, "the mask is not boolean");
  FUZZ_CHECK((*mask)->null_count() == 0, "the mask has nulls");
  FUZZ_CHECK((*mask)->Validate().ok(), "the mask does not validate");
  return Status::OK();
}

}  // namespace lance::fuzz

// SPDX-License-Identifier: Apache-2.0

#include "lance/core/concatenate.h"

#include <limits>
#include <string>

#include "lance/core/builder.h"
#include "lance/macros.h"

namespace lance {

namespace {

template <typename OffsetT>
Status ReserveValueBytes(const std::vector<ArrayPtr>& arrays, ArrayBuilder* builder) {
  auto* binary = dynamic_cast<BaseBinaryBuilder<OffsetT>*>(builder);
  if (binary == nullptr) return Status::OK();
  int64_t bytes = 0;
  for (const ArrayPtr& a : arrays) {
    const ArrayData& d = *a->data();
    if (d.length == 0 || d.buffers.size() < 2 || !d.buffers[1]) continue;
    const OffsetT* offsets = d.buffers[1]->data_as<OffsetT>() + d.offset;
    const int64_t n = static_cast<int64_t>(offsets[d.length]) - static_cast<int64_t>(offsets[0]);
    // Damaged offsets are left for the append to report.
    if (n < 0 || n > std::numeric_limits<OffsetT>::max() - bytes) return Status::OK();
    bytes += n;
  }
  return bytes > 0 ? binary->ReserveData(bytes) : Status::OK();
}

}  // namespace

// Builders already know how to append an arbitrary slice of an array of their type
// (rebasing offsets, copying bits at any offset, recursing into children), so
// concatenation is a reserve plus one bulk append per input.
Result<ArrayPtr> Concatenate(const std::vector<ArrayPtr>& arrays) {
  if (arrays.empty()) return Status::Invalid("concatenating an empty list of arrays");
  int64_t total = 0;
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (!arrays[i]) {
      return Status::Invalid("concatenating arrays: input " + std::to_string(i) +
                             " is null");
    }
    if (!arrays[i]->type()->Equals(*arrays[0]->type())) {
      return Status::Invalid("concatenating arrays: input " + std::to_string(i) +
                             " has type " + arrays[i]->type()->ToString() +
                             ", input 0 has " + arrays[0]->type()->ToString());
    }
    total += arrays[i]->length();
  }
  LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(arrays[0]->type()));
  LANCE_RETURN_NOT_OK(builder->Reserve(total));
  // Strings: reserve their bytes too, so that the value buffer is allocated once rather
  // than grown (copied and zeroed) by doubling.
  const TypeId id = arrays[0]->type()->id();
  if (id == TypeId::kUtf8 || id == TypeId::kBinary) {
    LANCE_RETURN_NOT_OK(ReserveValueBytes<int32_t>(arrays, builder.get()));
  } else if (id == TypeId::kLargeUtf8 || id == TypeId::kLargeBinary) {
    LANCE_RETURN_NOT_OK(ReserveValueBytes<int64_t>(arrays, builder.get()));
  }
  for (size_t i = 0; i < arrays.size(); ++i) {
    LANCE_RETURN_NOT_OK_CTX(builder->AppendArray(*arrays[i]),
                            "concatenating input " + std::to_string(i));
  }
  return builder->Finish();
}

}  // namespace lance

// SPDX-License-Identifier: Apache-2.0

#include "lance/core/concatenate.h"

#include <string>

#include "lance/core/builder.h"
#include "lance/macros.h"

namespace lance {

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
  for (size_t i = 0; i < arrays.size(); ++i) {
    LANCE_RETURN_NOT_OK_CTX(builder->AppendArray(*arrays[i]),
                            "concatenating input " + std::to_string(i));
  }
  return builder->Finish();
}

}  // namespace lance

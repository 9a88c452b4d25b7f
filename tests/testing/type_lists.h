// SPDX-License-Identifier: Apache-2.0
// Type lists shared by the tests that sweep "every type" (builders, kernels, the C data
// interface, the file round trip), so a new flat type is added to all of them at once.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "lance/core/type.h"

namespace lance::testing {

/// \brief The flat (non-nested, non-parametric beyond width) types: boolean, every
/// integer and float width, the four string/binary layouts, a fixed-size binary of
/// `fixed_width` bytes and date32. Callers append their nested and extra types.
inline std::vector<DataTypePtr> FlatTypes(int32_t fixed_width,
                                          std::initializer_list<DataTypePtr> more = {}) {
  std::vector<DataTypePtr> types = {boolean(),
                                    int8(),
                                    int16(),
                                    int32(),
                                    int64(),
                                    uint8(),
                                    uint16(),
                                    uint32(),
                                    uint64(),
                                    float16(),
                                    float32(),
                                    float64(),
                                    utf8(),
                                    large_utf8(),
                                    binary(),
                                    large_binary(),
                                    fixed_size_binary(fixed_width),
                                    date32()};
  types.insert(types.end(), more);
  return types;
}

}  // namespace lance::testing

// SPDX-License-Identifier: Apache-2.0
/// \file concatenate.h
/// \brief Concatenation of arrays of one type into a single, freshly allocated array.

#pragma once

#include <vector>

#include "lance/core/array.h"
#include "lance/result.h"

namespace lance {

/// \brief One array holding the slots of `arrays` in order.
///
/// Works for every type, nested included, and for sliced inputs: offsets are rebased,
/// bitmaps are copied at any bit offset and only the child ranges the inputs reference
/// are copied. The result has offset 0, newly allocated buffers and no validity bitmap
/// when no slot is null. \return Invalid for an empty list, a null input or differing
/// types; Invalid when int32 offsets (utf8, binary, list) would overflow.
Result<ArrayPtr> Concatenate(const std::vector<ArrayPtr>& arrays);

}  // namespace lance

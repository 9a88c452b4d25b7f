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
/// when no slot is null.
///
/// Dictionary arrays: when every input has the same dictionary (the same ArrayData or
/// equal values) the result keeps it (shared, not copied) and the indices are
/// concatenated as they are. Otherwise the dictionaries are unified: the result's
/// dictionary is input 0's, followed by the values of later inputs not already in it
/// (equal fixed-width or binary values are merged; other value types are appended once
/// per referenced slot), and later inputs' indices are remapped; in a remapped input, a
/// valid index pointing at a null dictionary value becomes a null slot. An ordered
/// dictionary keeps input 0's order, with new values after it.
///
/// \return Invalid for an empty list, a null input or differing types; Invalid when
/// int32 offsets (utf8, binary, list, map) would overflow or the unified dictionary
/// outgrows the index type.
Result<ArrayPtr> Concatenate(const std::vector<ArrayPtr>& arrays);

}  // namespace lance

// SPDX-License-Identifier: Apache-2.0
// Internal: decoded value blocks (codecs::DataBlock) as Arrow arrays of a leaf's type.

#pragma once

#include "format/codecs/codecs.h"
#include "lance/core/array_data.h"
#include "lance/core/type.h"
#include "lance/result.h"

namespace lance::format::structural {

/// The values of `block` as an Arrow array of `type` without validity (the leaf's
/// validity comes from its definition levels; fixed_size_list items keep theirs).
/// Zero-copy where the layouts agree (fixed-width values, 32-bit string offsets).
/// \return Corrupt if the block does not fit the type (width, kind, offsets outside
/// the data).
Result<ArrayDataPtr> BlockToArray(const codecs::DataBlock& block, const DataTypePtr& type);

/// The values of `array` (its validity ignored; fixed_size_list items keep theirs) as a
/// block for the compressors: fixed-width values and bitmaps re-based to bit 0, string
/// offsets as they are (32 or 64 bits, not necessarily starting at 0).
Result<codecs::DataBlock> ArrayToBlock(const ArrayData& array);

/// Arrow array of `type` holding `count` copies of the scalar whose Arrow buffers (of a
/// length-1 array, no validity) are `buffers`. For constant pages. When `present` is
/// given (one byte per slot), variable-width slots that are 0 there (nulls, masked by the
/// caller's validity) stay empty: a long constant string under mostly-null rows must not
/// be copied into every null slot.
Result<ArrayDataPtr> RepeatScalar(const std::vector<BufferPtr>& buffers,
                                  const DataTypePtr& type, int64_t count,
                                  const std::vector<uint8_t>* present = nullptr);

}  // namespace lance::format::structural

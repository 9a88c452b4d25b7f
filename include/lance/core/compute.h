// SPDX-License-Identifier: Apache-2.0
/// \file compute.h
/// \brief Selection kernels over Arrow-layout arrays: filter by mask, take by indices.

#pragma once

#include <cstdint>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/record_batch.h"
#include "lance/result.h"

namespace lance::compute {

/// \brief The rows of `values` where `mask` is true (a null mask slot drops the row).
/// Works for every type, nested ones included; the result is a fresh, offset-0 array.
/// \return Invalid if lengths differ or `mask` is not boolean.
Result<ArrayPtr> Filter(const Array& values, const Array& mask);
/// \brief Filter applied to every column.
Result<RecordBatchPtr> FilterBatch(const RecordBatch& batch, const Array& mask);

/// \brief The rows of `values` at `indices`, in that order (repeats allowed).
/// \return Invalid for an index out of range.
Result<ArrayPtr> Take(const Array& values, const std::vector<int64_t>& indices);
/// \brief Take applied to every column.
Result<RecordBatchPtr> TakeBatch(const RecordBatch& batch,
                                 const std::vector<int64_t>& indices);

/// \brief Puts rows read in ascending order back in the caller's order: `columns` hold
/// the rows `sorted` (ascending, unique), and become the rows `indices` (any order,
/// repeats allowed), so that a reader fetches each row once, in file order.
/// \return Invalid if an index is not in `sorted`.
Status ReorderRows(const std::vector<int64_t>& sorted,
                   const std::vector<int64_t>& indices, std::vector<ArrayPtr>* columns);

/// \brief Positions of the slots of boolean `mask` that are true (null counts as false),
/// ascending. Turns a predicate result into row offsets (deletions, Take).
/// \return Invalid if `mask` is not boolean.
Result<std::vector<int64_t>> SelectedIndices(const Array& mask);

}  // namespace lance::compute

// SPDX-License-Identifier: Apache-2.0
// Value expressions: the predicate language (predicate.h) used to compute values, for
// Update (`SET col = expr`), AddColumns (`name = expr`) and merge-insert conditions.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/record_batch.h"
#include "lance/core/type.h"
#include "lance/result.h"

namespace lance::table {

class ValueExpression {
 public:
  virtual ~ValueExpression() = default;

  /// \brief Parses `text` (any expression of the predicate language, not only boolean
  /// ones) and binds it to `schema`.
  /// \return Invalid with the position and what was expected, naming an unknown column
  /// or function.
  static Result<std::shared_ptr<const ValueExpression>> Parse(std::string_view text,
                                                              const Schema& schema);

  /// \brief The static type of the result; nullptr for an untyped NULL.
  virtual DataTypePtr type() const = 0;
  /// \brief Top-level columns the expression reads.
  virtual std::vector<std::string> ReferencedColumns() const = 0;
  /// \brief One value per row of `batch` (constants are broadcast), of type().
  /// REQUIRES: `batch` has every referenced column (by name).
  virtual Result<ArrayPtr> Evaluate(const RecordBatch& batch) const = 0;
  virtual std::string ToString() const = 0;
};

}  // namespace lance::table

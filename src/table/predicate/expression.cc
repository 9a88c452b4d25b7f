// SPDX-License-Identifier: Apache-2.0
#include "table/predicate/expression.h"

namespace lance::table {

Result<std::shared_ptr<const ValueExpression>> ValueExpression::Parse(
    std::string_view text, const Schema& /*schema*/) {
  return Status::NotImplemented("value expressions are not implemented yet: ",
                                std::string(text));
}

Result<ArrayPtr> CastArray(const ArrayPtr& /*values*/, const DataTypePtr& to) {
  return Status::NotImplemented("CAST to ", to->ToString(), " is not implemented yet");
}

}  // namespace lance::table

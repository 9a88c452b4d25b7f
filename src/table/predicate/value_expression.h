// SPDX-License-Identifier: Apache-2.0
// Value expressions: the predicate language (predicate.h) used to compute values, for
// Update (`SET col = expr`), AddColumns (`name = expr`) and merge-insert conditions.
// ValueExpression is declared with Predicate, on the same base (predicate.h).
#pragma once

#include "table/predicate/predicate.h"  // IWYU pragma: export

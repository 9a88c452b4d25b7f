// SPDX-License-Identifier: Apache-2.0
/// \file macros.h
/// \brief Propagation macros for Status and Result<T>.

#pragma once

#include "lance/result.h"
#include "lance/status.h"

#define LANCE_CONCAT_IMPL(a, b) a##b
#define LANCE_CONCAT(a, b) LANCE_CONCAT_IMPL(a, b)

/// \brief Returns the Status from the enclosing function if `expr` is not OK.
/// Works for any expression yielding a Status or a Result<T>.
#define LANCE_RETURN_NOT_OK(expr)                                        \
  do {                                                                   \
    auto&& _lance_st = (expr);                                           \
    if (!_lance_st.ok()) return ::lance::internal::ToStatus(_lance_st); \
  } while (false)

/// \brief Like LANCE_RETURN_NOT_OK, prefixing the message with "When <ctx>: ".
#define LANCE_RETURN_NOT_OK_CTX(expr, ctx)                                          \
  do {                                                                              \
    auto&& _lance_st = (expr);                                                      \
    if (!_lance_st.ok()) return ::lance::internal::ToStatus(_lance_st).WithContext(ctx); \
  } while (false)

#define LANCE_ASSIGN_OR_RAISE_IMPL(tmp, lhs, rexpr) \
  auto&& tmp = (rexpr);                             \
  if (!tmp.ok()) return std::move(tmp).status();    \
  lhs = std::move(tmp).MoveValueUnsafe();

/// \brief `lhs = value of rexpr`, or return its error. `lhs` may declare a variable:
/// `LANCE_ASSIGN_OR_RAISE(auto file, store->Open(path));`
#define LANCE_ASSIGN_OR_RAISE(lhs, rexpr) \
  LANCE_ASSIGN_OR_RAISE_IMPL(LANCE_CONCAT(_lance_result_, __COUNTER__), lhs, rexpr)

/// \brief Returns Status::Invalid(msg) when `cond` is false.
#define LANCE_PRECHECK(cond, msg)                                    \
  do {                                                               \
    if (!(cond)) return ::lance::Status::Invalid(msg);               \
  } while (false)

#ifndef NDEBUG
#define LANCE_DCHECK(cond)                                                      \
  do {                                                                          \
    if (!(cond)) ::lance::internal::DieOnFailedCheck(#cond, __FILE__, __LINE__); \
  } while (false)
#else
#define LANCE_DCHECK(cond) \
  do {                     \
  } while (false)
#endif

namespace lance::internal {

inline const Status& ToStatus(const Status& st) { return st; }
template <typename T>
const Status& ToStatus(const Result<T>& r) {
  return r.status();
}
[[noreturn]] void DieOnFailedCheck(const char* cond, const char* file, int line);

}  // namespace lance::internal

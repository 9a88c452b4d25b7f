// SPDX-License-Identifier: Apache-2.0
//
// Arithmetic in filters: `+ - * / %` and unary minus, with the semantics pylance 14
// (DataFusion underneath) gives them. Checked against pylance:
//  - typing is DataFusion's: two integers meet in the narrowest integer type holding
//    both (int8 + uint8 is int16, int32 + uint32 is int64); a float makes the result
//    float64 / float32 / float16, the widest float involved (float32 + int64 is float32);
//    a literal integer is int64 when it fits, else uint64, else float64, any other number
//    float64. uint64 with a signed integer becomes decimal128(20, 0) there, which filters
//    here do not support (NotImplemented);
//  - integer +, -, * and unary minus wrap around (DataFusion's default, no overflow
//    check): 127 + 1 is -128 in int8, -(-2^63) is -2^63;
//  - integer / truncates toward zero and % takes the sign of the dividend; a zero divisor
//    is an error ("Divide by zero error"), as is MIN / -1 (checked division), while
//    MIN % -1 is 0. Only rows that are evaluated and not null can fail;
//  - float arithmetic is IEEE (x / 0.0 is inf or NaN, % is fmod), float16 computed in
//    float32 and rounded, as the half crate does;
//  - NULL in, NULL out; unary minus refuses unsigned integers.
// Literal-only operands fold at bind time. A fold that fails (1 / 0) is not an error yet:
// DataFusion leaves such a constant to evaluation time, where it fails on the first batch
// (and not at all when AND / OR short-circuit past it).

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "lance/core/enum_names.h"
#include "lance/core/float16.h"
#include "lance/core/visit_type.h"
#include "lance/macros.h"
#include "table/predicate/bound_expr.h"

namespace lance::table::predicate_internal {

constexpr auto kArithOpSymbols = MakeEnumNames<ArithOp>("+", "-", "*", "/", "%");
static_assert(kArithOpSymbols.size() == EnumCount(ArithOp::kMod));

std::string_view ArithOpSymbol(ArithOp op) { return kArithOpSymbols.Name(op, "?"); }

namespace {

constexpr int128 kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int128 kInt64Max = std::numeric_limits<int64_t>::max();

bool IsArithmetic(const DataType& t) { return t.is_integer() || t.is_floating(); }

int IntBits(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return 8;
    case TypeId::kInt16:
    case TypeId::kUInt16:
      return 16;
    case TypeId::kInt32:
    case TypeId::kUInt32:
      return 32;
    default:
      return 64;
  }
}

// The integer type of `bits` (8 to 64; wider widths become 64) and signedness.
DataTypePtr IntType(bool is_signed, int bits) {
  return integer_type(std::min(bits, 64), is_signed);
}

// Checks that an operand can take part in arithmetic at all: Invalid for what no SQL
// engine adds (booleans, strings, nested values), NotImplemented for what Lance computes
// but lance-cpp does not (dates, timestamps, decimals, durations).
Status CheckOperand(const Expr& e, const DataTypePtr& type, std::string_view what) {
  if (!type || IsArithmetic(*type)) return Status::OK();
  if (type->is_temporal() || type->is_decimal() || type->id() == TypeId::kDuration) {
    return Status::NotImplemented(std::string(what) + " on " + e.ToString() +
                                  " of type " + type->ToString() +
                                  " is not supported in lance-cpp filters (only integer "
                                  "and floating-point arithmetic is)");
  }
  return Status::Invalid(std::string(what) + " needs numeric operands, but " +
                         e.ToString() + " is " + type->ToString());
}

// DataFusion's mathematics_numerical_coercion for two numeric types.
Result<DataTypePtr> CommonArithType(const DataTypePtr& l, const DataTypePtr& r,
                                    ArithOp op, const Expr& le, const Expr& re) {
  const TypeId a = l->id(), b = r->id();
  if (a == TypeId::kFloat64 || b == TypeId::kFloat64) return float64();
  if (a == TypeId::kFloat32 || b == TypeId::kFloat32) return float32();
  if (a == TypeId::kFloat16 || b == TypeId::kFloat16) return float16();
  const bool sa = l->is_signed_integer(), sb = r->is_signed_integer();
  const int wa = l->bit_width(), wb = r->bit_width();
  if (sa == sb) return IntType(sa, std::max(wa, wb));
  const int signed_bits = sa ? wa : wb;
  const int unsigned_bits = sa ? wb : wa;
  if (unsigned_bits == 64) {
    return Status::NotImplemented(
        "arithmetic '" + std::string(ArithOpSymbol(op)) + "' on " + le.ToString() + " (" +
        l->ToString() + ") and " + re.ToString() + " (" + r->ToString() +
        "): Lance computes uint64 with a signed integer (an integer literal is int64 "
        "when it fits) as "
        "decimal128(20, 0), which lance-cpp filters do not support");
  }
  // The narrowest signed type that holds both: int8 + uint8 is int16, int32 + uint32 is
  // int64.
  return IntType(true, std::max(signed_bits, 2 * unsigned_bits));
}

// ---- element-wise operations ----------------------------------------------------------

enum class Fault : uint8_t { kNone, kDivideByZero, kOverflow };

// Integer `a OP b` in T: +, -, * wrap (computed by the builtins without undefined
// behaviour); / and % report a zero divisor, / reports MIN / -1 (arrow's checked
// division), % gives 0 for it (arrow's remainder does not fail there).
template <ArithOp kOp, typename T>
inline T IntOp(T a, T b, Fault* fault) {
  T r{};
  if constexpr (kOp == ArithOp::kAdd) {
    __builtin_add_overflow(a, b, &r);
  } else if constexpr (kOp == ArithOp::kSub) {
    __builtin_sub_overflow(a, b, &r);
  } else if constexpr (kOp == ArithOp::kMul) {
    __builtin_mul_overflow(a, b, &r);
  } else {
    if (b == 0) {
      *fault = Fault::kDivideByZero;
      return r;
    }
    if constexpr (std::is_signed_v<T>) {
      if (b == -1) {
        // MIN / -1 overflows (and is undefined in C++); MIN % -1 is 0 in Rust and arrow.
        if (kOp == ArithOp::kMod) return 0;
        if (a == std::numeric_limits<T>::min()) {
          *fault = Fault::kOverflow;
          return r;
        }
      }
    }
    r = static_cast<T>(kOp == ArithOp::kDiv ? a / b : a % b);
  }
  return r;
}

template <ArithOp kOp, typename T>
inline T FloatOp(T a, T b) {
  if constexpr (kOp == ArithOp::kAdd) return a + b;
  if constexpr (kOp == ArithOp::kSub) return a - b;
  if constexpr (kOp == ArithOp::kMul) return a * b;
  if constexpr (kOp == ArithOp::kDiv) return a / b;
  return std::fmod(a, b);
}

std::string ValueString(int128 v) { return Literal::Int(v).ToString(); }

Status FaultStatus(Fault fault, std::string_view context, int128 a, ArithOp op, int128 b,
                   const DataType& type) {
  if (fault == Fault::kDivideByZero) {
    return Status::Invalid("cannot evaluate " + std::string(context) +
                           ": Divide by zero error (integer division or modulo by zero)");
  }
  return Status::Invalid("cannot evaluate " + std::string(context) +
                         ": Arithmetic overflow: " + ValueString(a) + " " +
                         std::string(ArithOpSymbol(op)) + " " + ValueString(b) +
                         " does not fit " + type.ToString());
}

// One side of a binary kernel: raw values of the result type, or a scalar.
template <typename T>
struct Side {
  const T* values = nullptr;
  T scalar{};
  T operator[](int64_t i) const { return values ? values[i] : scalar; }
};

bool IsValid(const uint8_t* validity, int64_t i) {
  return validity == nullptr || bit_util::GetBit(validity, i);
}

template <ArithOp kOp, typename T>
Status IntLoop(int64_t n, Side<T> a, Side<T> b, T* out, const uint8_t* validity,
               std::string_view context, const DataType& type) {
  if constexpr (kOp == ArithOp::kDiv || kOp == ArithOp::kMod) {
    for (int64_t i = 0; i < n; ++i) {
      Fault fault = Fault::kNone;
      out[i] = IntOp<kOp, T>(a[i], b[i], &fault);
      // A null slot holds an arbitrary value; only a valid one can fail.
      if (fault != Fault::kNone && IsValid(validity, i)) {
        return FaultStatus(fault, context, a[i], kOp, b[i], type);
      }
    }
  } else {
    Fault unused = Fault::kNone;
    for (int64_t i = 0; i < n; ++i) out[i] = IntOp<kOp, T>(a[i], b[i], &unused);
  }
  return Status::OK();
}

template <typename T>
Status RunIntLoop(ArithOp op, int64_t n, Side<T> a, Side<T> b, T* out,
                  const uint8_t* validity, std::string_view context,
                  const DataType& type) {
  switch (op) {
    case ArithOp::kAdd:
      return IntLoop<ArithOp::kAdd>(n, a, b, out, validity, context, type);
    case ArithOp::kSub:
      return IntLoop<ArithOp::kSub>(n, a, b, out, validity, context, type);
    case ArithOp::kMul:
      return IntLoop<ArithOp::kMul>(n, a, b, out, validity, context, type);
    case ArithOp::kDiv:
      return IntLoop<ArithOp::kDiv>(n, a, b, out, validity, context, type);
    case ArithOp::kMod:
      return IntLoop<ArithOp::kMod>(n, a, b, out, validity, context, type);
  }
  return Status::OK();
}

template <typename T>
void RunFloatLoop(ArithOp op, int64_t n, Side<T> a, Side<T> b, T* out) {
  auto loop = [&](auto f) {
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
  };
  switch (op) {
    case ArithOp::kAdd:
      return loop(FloatOp<ArithOp::kAdd, T>);
    case ArithOp::kSub:
      return loop(FloatOp<ArithOp::kSub, T>);
    case ArithOp::kMul:
      return loop(FloatOp<ArithOp::kMul, T>);
    case ArithOp::kDiv:
      return loop(FloatOp<ArithOp::kDiv, T>);
    case ArithOp::kMod:
      return loop(FloatOp<ArithOp::kMod, T>);
  }
}

// ---- typed scalars --------------------------------------------------------------------

// A literal of type `from` (int64 / float64 literals, or a constant of any numeric type)
// as a value of the wider numeric C++ type T.
template <typename T>
T ScalarAs(const Literal& lit) {
  if constexpr (std::is_integral_v<T>) {
    // Coercion never turns a float into an integer, so lit is an integer here.
    return lit.kind == Literal::Kind::kInt ? static_cast<T>(lit.int_value) : T{};
  } else if (lit.kind == Literal::Kind::kInt) {
    return static_cast<T>(lit.int_value);  // int -> float rounds to nearest
  } else {
    return static_cast<T>(lit.float_value);  // a widening: exact
  }
}

template <typename T>
Literal LiteralOf(T v) {
  if constexpr (std::is_integral_v<T>) {
    return Literal::Int(static_cast<int128>(v));
  } else {
    return Literal::Float(static_cast<double>(v));
  }
}

// Calls f(T{}) with the C++ type of a numeric type: its own for the integers (from the
// type traits) and float32, double for the others (float16 is handled by callers).
template <typename F>
auto VisitNumeric(const DataType& type, F&& f) {
  using R = decltype(f(double{}));
  if (!type.is_integer()) {
    return type.id() == TypeId::kFloat32 ? f(float{}) : f(double{});
  }
  return VisitType(type, [&](auto traits) -> R {
    using C = typename decltype(traits)::CType;
    if constexpr (std::is_integral_v<C>) {
      return f(C{});
    } else {
      return f(double{});  // not reached: the integer types have integral CTypes
    }
  });
}

// A constant converted to float16 (an integer is rounded, as arrow's cast does), widened
// to float for computing.
float HalfValue(const Literal& lit) {
  return RoundToHalf(lit.kind == Literal::Kind::kInt ? static_cast<double>(lit.int_value)
                                                     : lit.float_value);
}

DataTypePtr NumericType(TypeId id) {
  switch (id) {
    case TypeId::kFloat16:
      return float16();
    case TypeId::kFloat32:
      return float32();
    case TypeId::kFloat64:
      return float64();
    default:
      return IntType(id == TypeId::kInt8 || id == TypeId::kInt16 ||
                         id == TypeId::kInt32 || id == TypeId::kInt64,
                     IntBits(id));
  }
}

// `a OP b` on two constants, in `type`.
Result<Literal> FoldBinary(const Literal& a, ArithOp op, const Literal& b,
                           const DataType& type, std::string_view context) {
  if (a.is_null() || b.is_null()) return Literal::Null();
  if (type.id() == TypeId::kFloat16) {
    const float x = HalfValue(a), y = HalfValue(b);
    float r = 0;
    RunFloatLoop<float>(op, 1, Side<float>{nullptr, x}, Side<float>{nullptr, y}, &r);
    return Literal::Float(RoundToHalf(r));
  }
  return VisitNumeric(type, [&](auto tag) -> Result<Literal> {
    using T = decltype(tag);
    const T x = ScalarAs<T>(a), y = ScalarAs<T>(b);
    T r{};
    if constexpr (std::is_integral_v<T>) {
      LANCE_RETURN_NOT_OK(RunIntLoop<T>(op, 1, Side<T>{nullptr, x}, Side<T>{nullptr, y},
                                        &r, nullptr, context, type));
    } else {
      RunFloatLoop<T>(op, 1, Side<T>{nullptr, x}, Side<T>{nullptr, y}, &r);
    }
    return LiteralOf(r);
  });
}

Literal FoldNegate(const Literal& a, const DataType& type) {
  if (a.is_null()) return Literal::Null();
  if (type.is_floating()) return Literal::Float(-a.float_value);
  return VisitNumeric(type, [&](auto tag) -> Literal {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>) {
      T r{};
      __builtin_sub_overflow(T{0}, static_cast<T>(a.int_value), &r);
      return LiteralOf(r);
    } else {
      return Literal::Null();  // not reached: floats are handled above
    }
  });
}

// ---- arrays ---------------------------------------------------------------------------

Result<BufferPtr> AllNullBits(int64_t n) {
  return Buffer::Allocate(bit_util::BytesForBits(n));  // zeroed
}

// An array of `type` (offset 0) with every slot null.
Result<ArrayPtr> NullArray(const DataTypePtr& type, int64_t n) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, AllNullBits(n));
  LANCE_ASSIGN_OR_RAISE(BufferPtr data, Buffer::Allocate(n * type->byte_width()));
  return MakeArray(ArrayData::Make(type, n, {std::move(validity), std::move(data)}, n));
}

// A value of a binary kernel, converted to the computing type.
struct Prepared {
  ArrayPtr array;  // of the computing type, offset 0; null for a scalar
  Literal scalar;
};

// float16 values are computed in float32 and rounded once per value, as half::f16
// arithmetic does; operands are converted to float16 first (an integer is rounded there).
Result<Prepared> Prepare(const Datum& d, const DataTypePtr& type) {
  if (!d.is_array()) {
    if (type->id() == TypeId::kFloat16) {
      return Prepared{nullptr, Literal::Float(HalfValue(d.scalar))};
    }
    return Prepared{nullptr, d.scalar};
  }
  LANCE_ASSIGN_OR_RAISE(ArrayPtr cast, CastNumeric(*d.array, type));
  if (type->id() == TypeId::kFloat16) {
    LANCE_ASSIGN_OR_RAISE(cast, CastNumeric(*cast, float32()));
  }
  return Prepared{std::move(cast), {}};
}

template <typename T>
Side<T> SideOf(const Prepared& p) {
  if (p.array) {
    return Side<T>{p.array->data()->buffers[1]->template data_as<T>(), T{}};
  }
  return Side<T>{nullptr, ScalarAs<T>(p.scalar)};
}

Result<BufferPtr> CombinedValidity(const Prepared& a, const Prepared& b, int64_t n) {
  BufferPtr va, vb;
  if (a.array) va = a.array->data()->buffers[0];
  if (b.array) vb = b.array->data()->buffers[0];
  if (!va) return vb;
  if (!vb) return va;
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, Buffer::Allocate(bit_util::BytesForBits(n)));
  for (int64_t i = 0; i < bit_util::BytesForBits(n); ++i) {
    out->mutable_data()[i] = va->data()[i] & vb->data()[i];
  }
  return out;
}

Result<ArrayPtr> ApplyBinary(const Datum& left, ArithOp op, const Datum& right,
                             const DataTypePtr& type, int64_t n,
                             std::string_view context) {
  if ((!left.is_array() && left.scalar.is_null()) ||
      (!right.is_array() && right.scalar.is_null())) {
    return NullArray(type, n);
  }
  const bool half = type->id() == TypeId::kFloat16;
  const DataTypePtr compute = half ? float32() : type;
  LANCE_ASSIGN_OR_RAISE(Prepared a, Prepare(left, type));
  LANCE_ASSIGN_OR_RAISE(Prepared b, Prepare(right, type));
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, CombinedValidity(a, b, n));
  LANCE_ASSIGN_OR_RAISE(BufferPtr data,
                        Buffer::AllocateForOverwrite(n * compute->byte_width()));
  const uint8_t* valid = validity ? validity->data() : nullptr;
  LANCE_RETURN_NOT_OK(VisitNumeric(*compute, [&](auto tag) -> Status {
    using T = decltype(tag);
    T* out = data->template mutable_data_as<T>();
    if constexpr (std::is_integral_v<T>) {
      return RunIntLoop<T>(op, n, SideOf<T>(a), SideOf<T>(b), out, valid, context, *type);
    } else {
      RunFloatLoop<T>(op, n, SideOf<T>(a), SideOf<T>(b), out);
      return Status::OK();
    }
  }));
  if (half) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr halves, Buffer::AllocateForOverwrite(n * 2));
    const float* in = data->data_as<float>();
    uint16_t* out = halves->mutable_data_as<uint16_t>();
    for (int64_t i = 0; i < n; ++i) out[i] = DoubleToHalf(in[i]);
    data = std::move(halves);
  }
  return MakeArray(ArrayData::Make(type, n, {std::move(validity), std::move(data)}));
}

Result<ArrayPtr> ApplyNegate(const Array& values, const DataTypePtr& type) {
  const int64_t n = values.length();
  LANCE_ASSIGN_OR_RAISE(ArrayPtr cast, CastNumeric(values, type));  // offset 0
  const auto& buffers = cast->data()->buffers;
  LANCE_ASSIGN_OR_RAISE(BufferPtr data,
                        Buffer::AllocateForOverwrite(n * type->byte_width()));
  if (type->id() == TypeId::kFloat16) {
    const uint16_t* in = buffers[1]->data_as<uint16_t>();
    uint16_t* out = data->mutable_data_as<uint16_t>();
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<uint16_t>(in[i] ^ 0x8000u);
  } else {
    VisitNumeric(*type, [&](auto tag) {
      using T = decltype(tag);
      const T* in = buffers[1]->template data_as<T>();
      T* out = data->template mutable_data_as<T>();
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (std::is_integral_v<T>) {
          __builtin_sub_overflow(T{0}, in[i], &out[i]);
        } else {
          out[i] = -in[i];  // flips the sign bit, of a NaN too
        }
      }
      return 0;
    });
  }
  return MakeArray(ArrayData::Make(type, n, {buffers[0], std::move(data)}));
}

Result<ArrayPtr> EvaluateToArray(const Expr& e, const RecordBatch& batch) {
  LANCE_ASSIGN_OR_RAISE(Datum d, e.Evaluate(batch));
  if (!d.is_array() || d.array->length() != batch.num_rows()) {
    return Status::Invalid("internal: " + e.ToString() + " did not produce " +
                           std::to_string(batch.num_rows()) + " values");
  }
  return std::move(d.array);
}

// ---- nodes ----------------------------------------------------------------------------

// A constant: a literal-only tree, folded at bind time. When folding failed the error
// is raised by Evaluate, so that it surfaces only if the expression is evaluated.
class ConstExpr final : public Expr {
 public:
  ConstExpr(DataTypePtr type, Result<Literal> value, std::string rendering,
            std::optional<ArithTree> tree)
      : Expr(std::move(type)),
        value_(std::move(value)),
        rendering_(std::move(rendering)),
        tree_(std::move(tree)) {}

  const Literal* literal() const override { return value_.ok() ? &*value_ : nullptr; }
  bool is_constant() const override { return true; }
  /// \brief Why folding failed; OK when it did not.
  Status error() const { return value_.status(); }
  const ArithTree* pure_arith() const override { return tree_ ? &*tree_ : nullptr; }
  Result<Datum> Evaluate(const RecordBatch&) const override {
    if (!value_.ok()) return value_.status();
    return Datum{nullptr, *value_};
  }
  std::string ToString() const override { return rendering_; }
  void CollectColumns(std::vector<std::string>*) const override {}

 private:
  Result<Literal> value_;
  std::string rendering_;
  std::optional<ArithTree> tree_;
};

class ArithExpr final : public BinaryExpr<ArithOp> {
 public:
  ArithExpr(ExprPtr left, ArithOp op, ExprPtr right, DataTypePtr type)
      : BinaryExpr(std::move(type), std::move(left), op, std::move(right)) {}

  Result<Datum> Evaluate(const RecordBatch& batch) const override {
    LANCE_ASSIGN_OR_RAISE(Datum l, left_->Evaluate(batch));
    LANCE_ASSIGN_OR_RAISE(Datum r, right_->Evaluate(batch));
    for (const Datum* d : {&l, &r}) {
      if (d->is_array() && d->array->length() != batch.num_rows()) {
        return Status::Invalid("internal: an operand of " + ToString() + " has " +
                               std::to_string(d->array->length()) + " rows, the batch " +
                               std::to_string(batch.num_rows()));
      }
    }
    LANCE_ASSIGN_OR_RAISE(ArrayPtr out,
                          ApplyBinary(l, op_, r, type(), batch.num_rows(), ToString()));
    return Datum{std::move(out), {}};
  }
};

std::string NegateRendering(const Expr& operand) {
  // `-(5)` is not the literal -5 for Lance (it is not re-typed next to a column), so a
  // literal operand keeps its parentheses.
  if (operand.is_written_literal()) return "(-(" + operand.ToString() + "))";
  return "(-" + operand.ToString() + ")";
}

class NegateExpr final : public Expr {
 public:
  explicit NegateExpr(ExprPtr operand, DataTypePtr type)
      : Expr(std::move(type)), operand_(std::move(operand)) {}

  Result<Datum> Evaluate(const RecordBatch& batch) const override {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr values, EvaluateToArray(*operand_, batch));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr out, ApplyNegate(*values, type()));
    return Datum{std::move(out), {}};
  }
  std::string ToString() const override { return NegateRendering(*operand_); }
  void CollectColumns(std::vector<std::string>* out) const override {
    operand_->CollectColumns(out);
  }

 private:
  ExprPtr operand_;
};

// Lance's safe_coerce_scalar for a literal going to a numeric column type: integers must
// fit, floats never become integers, numbers outside float16's range do not become
// float16; nullopt when Lance refuses.
std::optional<Literal> CoerceLiteral(const Literal& lit, const DataType& type) {
  if (lit.is_null()) return Literal::Null();
  if (!lit.is_numeric()) return std::nullopt;
  const bool is_int = lit.number_type()->is_integer();
  if (type.is_integer()) {
    if (!is_int) return std::nullopt;
    const bool is_signed = type.is_signed_integer();
    const int bits = type.bit_width();
    const int128 lo = is_signed ? -(int128{1} << (bits - 1)) : 0;
    const int128 hi = is_signed ? (int128{1} << (bits - 1)) - 1 : (int128{1} << bits) - 1;
    if (lit.int_value < lo || lit.int_value > hi) return std::nullopt;
    return lit;
  }
  const double d = lit.kind == Literal::Kind::kInt ? static_cast<double>(lit.int_value)
                                                   : lit.float_value;
  switch (type.id()) {
    case TypeId::kFloat64:
      return Literal::Float(d);
    case TypeId::kFloat32:
      // An integer rounds to float32 once, directly (`as f32`).
      return Literal::Float(is_int ? static_cast<float>(lit.int_value) : RoundToFloat(d));
    default: {
      const float h = RoundToHalf(d);
      if (std::isinf(h) && !std::isinf(d)) return std::nullopt;
      return Literal::Float(h);
    }
  }
}

// Lance casts every literal of the tree to the column's type first; a literal it cannot
// cast fails the whole filter at bind time.
Status CheckTreeLiterals(const Expr& e, const DataType& type) {
  if (const auto* tree = e.pure_arith()) {
    LANCE_RETURN_NOT_OK(CheckTreeLiterals(*tree->left, type));
    return CheckTreeLiterals(*tree->right, type);
  }
  const Literal* lit = e.literal();
  if (lit && CoerceLiteral(*lit, type)) return Status::OK();
  return Status::Invalid("literal " + e.ToString() + " cannot be converted to " +
                         type.ToString());
}

// The tree computed in `type` once its literals are cast (CheckTreeLiterals passed).
Result<Literal> FoldInType(const Expr& e, const DataType& type) {
  if (const auto* tree = e.pure_arith()) {
    LANCE_ASSIGN_OR_RAISE(Literal a, FoldInType(*tree->left, type));
    LANCE_ASSIGN_OR_RAISE(Literal b, FoldInType(*tree->right, type));
    return FoldBinary(a, tree->op, b, type, e.ToString());
  }
  return *CoerceLiteral(*e.literal(), type);
}

// The failure of a constant whose folding failed.
Status ConstantError(const Expr& e) { return static_cast<const ConstExpr&>(e).error(); }

// A constant operand with the value it has in arithmetic: a written literal typed as
// Lance reads it (a big integer is a float64).
Literal ConstantValue(const Expr& e) {
  const Literal& lit = *e.literal();
  if (e.is_written_literal() && lit.kind == Literal::Kind::kInt &&
      lit.number_type()->is_floating()) {
    return Literal::Float(static_cast<double>(lit.int_value));
  }
  return lit;
}

}  // namespace

Status ConstantFoldError(const Expr& e) {
  if (!e.is_constant() || e.literal()) {
    return Status::Invalid("internal: " + e.ToString() + " is not a failed constant");
  }
  return ConstantError(e);
}

DataTypePtr ArithOperandType(const Expr& e) {
  if (e.is_written_literal()) {
    const Literal& lit = *e.literal();
    switch (lit.kind) {
      case Literal::Kind::kNull:
        return nullptr;
      case Literal::Kind::kInt:
      case Literal::Kind::kFloat:
        return lit.number_type();
      default:
        return e.type();
    }
  }
  return e.type();
}

Result<ExprPtr> MakeArith(ExprPtr left, ArithOp op, ExprPtr right) {
  const std::string what = "arithmetic '" + std::string(ArithOpSymbol(op)) + "'";
  const DataTypePtr lt = ArithOperandType(*left);
  const DataTypePtr rt = ArithOperandType(*right);
  LANCE_RETURN_NOT_OK(CheckOperand(*left, lt, what));
  LANCE_RETURN_NOT_OK(CheckOperand(*right, rt, what));
  const std::string rendering = "(" + left->ToString() + " " +
                                std::string(ArithOpSymbol(op)) + " " + right->ToString() +
                                ")";
  if (!lt && !rt) return MakeLiteral(Literal::Null());
  DataTypePtr type;
  if (!lt) {
    type = rt;
  } else if (!rt) {
    type = lt;
  } else {
    LANCE_ASSIGN_OR_RAISE(type, CommonArithType(lt, rt, op, *left, *right));
  }
  if (left->is_constant() && right->is_constant()) {
    // A tree of written literals is what Lance re-types next to a column.
    auto pure = [](const Expr& e) { return e.is_written_literal() || e.pure_arith(); };
    std::optional<Expr::ArithTree> tree;
    if (pure(*left) && pure(*right)) tree = Expr::ArithTree{op, left, right};
    Result<Literal> value = Literal::Null();
    if (!left->literal()) {
      value = ConstantError(*left);
    } else if (!right->literal()) {
      value = ConstantError(*right);
    } else {
      value =
          FoldBinary(ConstantValue(*left), op, ConstantValue(*right), *type, rendering);
    }
    return ExprPtr(
        std::make_shared<ConstExpr>(type, std::move(value), rendering, std::move(tree)));
  }
  return ExprPtr(std::make_shared<ArithExpr>(std::move(left), op, std::move(right),
                                             std::move(type)));
}

Result<ExprPtr> MakeNegate(ExprPtr operand) {
  const DataTypePtr type = ArithOperandType(*operand);
  LANCE_RETURN_NOT_OK(CheckOperand(*operand, type, "unary minus"));
  if (!type) return MakeLiteral(Literal::Null());
  if (type->is_integer() && !type->is_signed_integer()) {
    return Status::Invalid("unary minus does not apply to " + operand->ToString() +
                           " of unsigned type " + type->ToString() +
                           " (Lance refuses it: negation needs a signed type)");
  }
  if (operand->is_constant()) {
    Result<Literal> value =
        operand->literal() ? Result<Literal>(FoldNegate(ConstantValue(*operand), *type))
                           : Result<Literal>(ConstantError(*operand));
    return ExprPtr(std::make_shared<ConstExpr>(type, std::move(value),
                                               NegateRendering(*operand), std::nullopt));
  }
  return ExprPtr(std::make_shared<NegateExpr>(std::move(operand), type));
}

Result<std::optional<ExprPtr>> CoerceConstantTree(const ExprPtr& constant,
                                                  const DataType& column_type) {
  if (!constant->pure_arith() || !IsArithmetic(column_type)) return std::nullopt;
  Status st = CheckTreeLiterals(*constant, column_type);
  if (!st.ok()) {
    return Status::Invalid("cannot compute " + constant->ToString() + " in " +
                           column_type.ToString() +
                           " (Lance computes constant arithmetic compared with a column "
                           "in the column's type): " +
                           st.message());
  }
  // A failure of the arithmetic itself (a zero divisor) surfaces on evaluation, as in
  // Lance.
  return std::optional<ExprPtr>(std::make_shared<ConstExpr>(
      NumericType(column_type.id()), FoldInType(*constant, column_type),
      constant->ToString(), *constant->pure_arith()));
}

}  // namespace lance::table::predicate_internal

// SPDX-License-Identifier: Apache-2.0
//
// x [NOT] IN (list): kernels over sorted sets of the column's own values.

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "lance/core/visit_type.h"
#include "lance/macros.h"
#include "table/predicate/kernel_util.h"

namespace lance::table::predicate_internal {

namespace {

// Writes the IN result: value = (match XOR negated); a row is NULL when the column is, or
// when it matched nothing and the list holds a NULL (x IN (1, NULL) is NULL for x = 2).
template <typename Match>
Result<ArrayPtr> FinishIn(const Array& values, bool negated, bool has_null,
                          Match&& match) {
  const int64_t n = values.length();
  LANCE_ASSIGN_OR_RAISE(BufferPtr bits, AllocateBits(n));
  if (n > 0) WriteBits(n, bits->mutable_data(), match);
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, AlignedValidity(values));
  const int64_t bytes = bit_util::BytesForBits(n);
  if (has_null) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr combined, AllocateBits(n));
    for (int64_t i = 0; i < bytes; ++i) {
      const uint8_t valid = validity ? validity->data()[i] : 0xFF;
      combined->mutable_data()[i] = valid & bits->data()[i];
    }
    validity = std::move(combined);
  }
  if (negated) {
    for (int64_t i = 0; i < bytes; ++i) bits->mutable_data()[i] = ~bits->data()[i];
  }
  return MakeBooleanArray(n, std::move(bits), std::move(validity));
}

// Membership in a small sorted set: a linear scan beats binary search for a handful.
template <typename T, typename V>
inline bool SetContains(const std::vector<T>& set, const V& v) {
  if (set.size() <= 8) {
    for (const auto& s : set) {
      if (s == v) return true;
    }
    return false;
  }
  auto it = std::lower_bound(set.begin(), set.end(), v);
  return it != set.end() && *it == v;
}

// Up to this many values, membership is tested by comparing a block of rows with every
// value in turn (branch-free, vectorisable); beyond it, by binary search per row.
constexpr size_t kLinearSetLimit = 24;

template <typename T>
class NumericInKernel : public InKernel {
 public:
  NumericInKernel(std::vector<T> set, bool has_null, bool negated)
      : set_(std::move(set)), has_null_(has_null), negated_(negated) {}
  Result<ArrayPtr> Apply(const Array& values) const override {
    const int64_t n = values.length();
    const T* v = RawValues<T>(values);
    if (v == nullptr && n > 0) return Status::Invalid("IN over an array without values");
    if (set_.size() > kLinearSetLimit) {
      return FinishIn(values, negated_, has_null_, [&](int64_t i) {
        auto it = std::lower_bound(set_.begin(), set_.end(), v[i]);
        return it != set_.end() && *it == v[i];
      });
    }
    // One byte per row, computed 64 rows at a time into a local block: a constant trip
    // count and no aliasing let the compiler vectorise the comparisons.
    std::vector<uint8_t> hits(static_cast<size_t>(n));
    constexpr int64_t kBlock = 64;
    const int64_t full = n / kBlock * kBlock;
    for (int64_t start = 0; start < full; start += kBlock) {
      uint8_t acc[kBlock] = {};
      const T* block = v + start;
      for (const T k : set_) {
        for (int64_t j = 0; j < kBlock; ++j)
          acc[j] |= static_cast<uint8_t>(block[j] == k);
      }
      std::memcpy(hits.data() + start, acc, kBlock);
    }
    for (int64_t i = full; i < n; ++i) {
      for (const T k : set_) hits[i] |= static_cast<uint8_t>(v[i] == k);
    }
    return FinishIn(values, negated_, has_null_, [&](int64_t i) { return hits[i] != 0; });
  }

 private:
  std::vector<T> set_;
  bool has_null_;
  bool negated_;
};

class HalfInKernel : public InKernel {
 public:
  HalfInKernel(std::vector<float> set, bool has_null, bool negated)
      : set_(std::move(set)), has_null_(has_null), negated_(negated) {}
  Result<ArrayPtr> Apply(const Array& values) const override {
    const uint16_t* v = RawValues<uint16_t>(values);
    if (v == nullptr && values.length() > 0) {
      return Status::Invalid("IN over an array without values");
    }
    return FinishIn(values, negated_, has_null_,
                    [&](int64_t i) { return SetContains(set_, HalfToFloat(v[i])); });
  }

 private:
  std::vector<float> set_;
  bool has_null_;
  bool negated_;
};

class BytesInKernel : public InKernel {
 public:
  BytesInKernel(std::vector<std::string> set, bool has_null, bool negated)
      : set_(std::move(set)), has_null_(has_null), negated_(negated) {
    views_.assign(set_.begin(), set_.end());
  }
  Result<ArrayPtr> Apply(const Array& values) const override {
    LANCE_ASSIGN_OR_RAISE(ViewReader get, ViewReader::Make(values));
    return FinishIn(values, negated_, has_null_,
                    [&](int64_t i) { return SetContains(views_, get(i)); });
  }

 private:
  std::vector<std::string> set_;
  std::vector<std::string_view> views_;
  bool has_null_;
  bool negated_;
};

class BoolInKernel : public InKernel {
 public:
  BoolInKernel(bool has_true, bool has_false, bool has_null, bool negated)
      : has_true_(has_true),
        has_false_(has_false),
        has_null_(has_null),
        negated_(negated) {}
  Result<ArrayPtr> Apply(const Array& values) const override {
    const auto& buffers = values.data()->buffers;
    if (values.length() > 0 && (buffers.size() < 2 || !buffers[1])) {
      return Status::Invalid("IN over a bool array without values");
    }
    const uint8_t* bits = values.length() > 0 ? buffers[1]->data() : nullptr;
    const int64_t offset = values.offset();
    return FinishIn(values, negated_, has_null_, [&](int64_t i) {
      return bit_util::GetBit(bits, offset + i) ? has_true_ : has_false_;
    });
  }

 private:
  bool has_true_, has_false_, has_null_, negated_;
};

template <typename T>
std::vector<T> SortedUnique(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

template <typename T>
Result<std::unique_ptr<InKernel>> MakeIntegerIn(const DataType& type,
                                                const std::vector<Literal>& items,
                                                bool negated) {
  std::vector<T> set;
  bool has_null = false;
  for (const auto& lit : items) {
    if (lit.is_null()) {
      has_null = true;
      continue;
    }
    LANCE_ASSIGN_OR_RAISE(std::optional<IntTarget> fitted, IntegerAxisTarget(type, lit));
    if (!fitted) {  // a timestamp beyond the column's unit: NULL, as Lance casts it
      has_null = true;
      continue;
    }
    const IntTarget& t = *fitted;
    // A literal that is not a whole value of the column's unit, or outside its range,
    // can never be equal: leave it out.
    if (t.exact() && t.floor >= MinOf<T>() && t.floor <= MaxOf<T>()) {
      set.push_back(static_cast<T>(t.floor));
    }
  }
  return std::unique_ptr<InKernel>(std::make_unique<NumericInKernel<T>>(
      SortedUnique(std::move(set)), has_null, negated));
}

}  // namespace

namespace {

// IN over values widened to float64 (DataFusion's IN coercion when a float64 item meets
// an integer, float32 or float16 value).
class WidenedInKernel : public InKernel {
 public:
  explicit WidenedInKernel(std::unique_ptr<InKernel> inner) : inner_(std::move(inner)) {}
  Result<ArrayPtr> Apply(const Array& values) const override {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr wide, CastNumeric(values, float64()));
    return inner_->Apply(*wide);
  }

 private:
  std::unique_ptr<InKernel> inner_;
};

// Whether a coerced IN over a non-float64 number has a float item, which widens the
// comparison to float64.
bool AnyFloatItem(const std::vector<Literal>& items,
                  const std::vector<bool>& items_are_float) {
  bool any_float = false;
  for (size_t i = 0; i < items.size(); ++i) {
    const bool is_float = i < items_are_float.size()
                              ? items_are_float[i]
                              : items[i].kind == Literal::Kind::kFloat;
    any_float |= items[i].is_numeric() && is_float;
  }
  return any_float;
}

// IncompatibleLiteral for the first non-null item `accepts` refuses.
Status CheckItems(const DataType& type, const std::vector<Literal>& items,
                  bool (*accepts)(const Literal&)) {
  for (const auto& lit : items) {
    if (!lit.is_null() && !accepts(lit)) return IncompatibleLiteral(type, lit);
  }
  return Status::OK();
}

Result<std::unique_ptr<InKernel>> MakeFloatIn(const DataType& type,
                                              const std::vector<Literal>& items,
                                              bool has_null, bool negated) {
  LANCE_RETURN_NOT_OK(
      CheckItems(type, items, [](const Literal& l) { return l.is_numeric(); }));
  if (type.id() == TypeId::kFloat64) {
    std::vector<double> set;
    for (const auto& l : items) {
      if (!l.is_null()) set.push_back(LiteralToDouble(l));
    }
    return std::unique_ptr<InKernel>(std::make_unique<NumericInKernel<double>>(
        SortedUnique(std::move(set)), has_null, negated));
  }
  std::vector<float> set;
  for (const auto& l : items) {
    if (l.is_null()) continue;
    const double d = LiteralToDouble(l);
    set.push_back(type.id() == TypeId::kFloat32 ? RoundToFloat(d) : RoundToHalf(d));
  }
  set = SortedUnique(std::move(set));
  if (type.id() == TypeId::kFloat32) {
    return std::unique_ptr<InKernel>(
        std::make_unique<NumericInKernel<float>>(std::move(set), has_null, negated));
  }
  return std::unique_ptr<InKernel>(
      std::make_unique<HalfInKernel>(std::move(set), has_null, negated));
}

Result<std::unique_ptr<InKernel>> MakeBytesIn(const DataType& type,
                                              const std::vector<Literal>& items,
                                              bool has_null, bool negated) {
  LANCE_RETURN_NOT_OK(CheckItems(
      type, items, [](const Literal& l) { return l.kind == Literal::Kind::kString; }));
  std::vector<std::string> set;
  for (const auto& l : items) {
    if (!l.is_null()) set.push_back(l.string_value);
  }
  return std::unique_ptr<InKernel>(
      std::make_unique<BytesInKernel>(SortedUnique(std::move(set)), has_null, negated));
}

Result<std::unique_ptr<InKernel>> MakeBoolIn(const DataType& type,
                                             const std::vector<Literal>& items,
                                             bool has_null, bool negated) {
  LANCE_RETURN_NOT_OK(CheckItems(
      type, items, [](const Literal& l) { return l.kind == Literal::Kind::kBool; }));
  bool has_true = false, has_false = false;
  for (const auto& l : items) {
    if (l.kind == Literal::Kind::kBool) (l.bool_value ? has_true : has_false) = true;
  }
  return std::unique_ptr<InKernel>(
      std::make_unique<BoolInKernel>(has_true, has_false, has_null, negated));
}

}  // namespace

Result<std::unique_ptr<InKernel>> MakeInKernel(const DataTypePtr& type,
                                               const std::vector<Literal>& items,
                                               bool negated, bool coerced,
                                               const std::vector<bool>& items_are_float) {
  if (coerced && IsNumeric(*type) && type->id() != TypeId::kFloat64 &&
      AnyFloatItem(items, items_are_float)) {
    LANCE_ASSIGN_OR_RAISE(auto inner, MakeInKernel(float64(), items, negated));
    return std::unique_ptr<InKernel>(std::make_unique<WidenedInKernel>(std::move(inner)));
  }
  if (type->is_integer() || type->id() == TypeId::kDate32 ||
      type->id() == TypeId::kTimestamp) {
    return VisitType(*type, [&](auto traits) -> Result<std::unique_ptr<InKernel>> {
      using C = typename decltype(traits)::CType;
      if constexpr (std::is_integral_v<C>) {
        return MakeIntegerIn<C>(*type, items, negated);
      } else {
        return Status::Invalid("IN does not apply to a " + type->ToString() + " value");
      }
    });
  }
  bool has_null = false;
  for (const auto& lit : items) has_null |= lit.is_null();
  switch (type->id()) {
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      return MakeFloatIn(*type, items, has_null, negated);
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary:
      return MakeBytesIn(*type, items, has_null, negated);
    case TypeId::kBool:
      return MakeBoolIn(*type, items, has_null, negated);
    default:
      return Status::Invalid("IN does not apply to a " + type->ToString() + " value");
  }
}

}  // namespace lance::table::predicate_internal

// SPDX-License-Identifier: Apache-2.0
//
// [NOT] LIKE / ILIKE patterns, with fast paths for prefix, suffix and substring shapes.

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "lance/macros.h"
#include "table/predicate/kernel_util.h"

namespace lance::table::predicate_internal {

namespace {

inline char FoldCase(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
}

// Bytes of the UTF-8 sequence starting with `lead` (1 for stray continuation bytes, so
// that malformed input still advances).
inline size_t Utf8Length(unsigned char lead) {
  if (lead < 0xC0) return 1;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  return 4;
}

}  // namespace

LikePattern::LikePattern(std::string_view pattern, bool case_insensitive)
    : case_insensitive_(case_insensitive) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      tokens_.push_back({Token::Kind::kByte, pattern[++i]});
    } else if (c == '%') {
      // Consecutive '%' are one.
      if (tokens_.empty() || tokens_.back().kind != Token::Kind::kAnyRun) {
        tokens_.push_back({Token::Kind::kAnyRun, 0});
      }
    } else if (c == '_') {
      tokens_.push_back({Token::Kind::kAnyChar, 0});
    } else {
      tokens_.push_back({Token::Kind::kByte, c});
    }
  }
  if (case_insensitive_) {
    for (auto& t : tokens_) t.byte = FoldCase(t.byte);
    return;  // the simple shapes below compare bytes exactly
  }
  // Recognise 'abc', 'abc%', '%abc' and '%abc%' so that the common cases are a memcmp.
  size_t runs = 0;
  for (const auto& t : tokens_) {
    if (t.kind == Token::Kind::kAnyChar) return;
    runs += t.kind == Token::Kind::kAnyRun;
  }
  const bool leading = !tokens_.empty() && tokens_.front().kind == Token::Kind::kAnyRun;
  const bool trailing = !tokens_.empty() && tokens_.back().kind == Token::Kind::kAnyRun;
  for (const auto& t : tokens_) {
    if (t.kind == Token::Kind::kByte) needle_ += t.byte;
  }
  if (runs == 0) {
    shape_ = Shape::kExact;
  } else if (tokens_.size() == 1) {
    shape_ = Shape::kPrefix;  // '%' alone: every value starts with the empty string
  } else if (runs == 1 && trailing) {
    shape_ = Shape::kPrefix;
  } else if (runs == 1 && leading) {
    shape_ = Shape::kSuffix;
  } else if (runs == 2 && leading && trailing) {
    shape_ = Shape::kContains;
  }  // otherwise a '%' in the middle: kGeneral
}

bool LikePattern::Matches(std::string_view value) const {
  switch (shape_) {
    case Shape::kExact:
      return value == needle_;
    case Shape::kPrefix:
      return value.starts_with(needle_);
    case Shape::kSuffix:
      return value.ends_with(needle_);
    case Shape::kContains:
      return value.find(needle_) != std::string_view::npos;
    case Shape::kGeneral:
      return MatchGeneral(value);
  }
  return false;
}

// Backtracking over the last '%' only: on a mismatch, let that '%' swallow one more
// character and retry. Linear for patterns with one '%', never exponential.
bool LikePattern::MatchGeneral(std::string_view value) const {
  size_t t = 0, s = 0;
  size_t star = std::string_view::npos, star_s = 0;
  const size_t nt = tokens_.size();
  while (s < value.size()) {
    if (t < nt && tokens_[t].kind == Token::Kind::kByte &&
        (case_insensitive_ ? FoldCase(value[s]) : value[s]) == tokens_[t].byte) {
      ++t;
      ++s;
    } else if (t < nt && tokens_[t].kind == Token::Kind::kAnyChar) {
      s += Utf8Length(static_cast<unsigned char>(value[s]));
      ++t;
    } else if (t < nt && tokens_[t].kind == Token::Kind::kAnyRun) {
      star = t++;
      star_s = s;
    } else if (star != std::string_view::npos) {
      t = star + 1;
      star_s += Utf8Length(static_cast<unsigned char>(value[star_s]));
      s = star_s;
    } else {
      return false;
    }
  }
  // A '_' may have stepped over the end of a truncated UTF-8 sequence.
  if (s > value.size()) return false;
  while (t < nt && tokens_[t].kind == Token::Kind::kAnyRun) ++t;
  return t == nt;
}

namespace {

// Byte equality that stays inline for the short needles LIKE patterns usually have
// (a memcmp call per row costs more than the comparison).
inline bool SameBytes(const char* a, const char* b, size_t n) {
  if (n > 16) return std::memcmp(a, b, n) == 0;
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// The LIKE loop for one value layout (`get`), with the pattern's shape hoisted out of it.
template <typename Get>
void LikeLoop(int64_t n, const Get& get, const LikePattern& pattern, bool negated,
              uint8_t* out) {
  const std::string_view needle = pattern.needle();
  const size_t m = needle.size();
  switch (pattern.shape()) {
    case LikePattern::Shape::kExact:
      WriteBits(n, out, [&](int64_t i) {
        const std::string_view v = get(i);
        return (v.size() == m && SameBytes(v.data(), needle.data(), m)) != negated;
      });
      break;
    case LikePattern::Shape::kPrefix:
      WriteBits(n, out, [&](int64_t i) {
        const std::string_view v = get(i);
        return (v.size() >= m && SameBytes(v.data(), needle.data(), m)) != negated;
      });
      break;
    case LikePattern::Shape::kSuffix:
      WriteBits(n, out, [&](int64_t i) {
        const std::string_view v = get(i);
        return (v.size() >= m && SameBytes(v.data() + v.size() - m, needle.data(), m)) !=
               negated;
      });
      break;
    case LikePattern::Shape::kContains:
      WriteBits(n, out, [&](int64_t i) {
        return (get(i).find(needle) != std::string_view::npos) != negated;
      });
      break;
    case LikePattern::Shape::kGeneral:
      WriteBits(n, out, [&](int64_t i) { return pattern.Matches(get(i)) != negated; });
      break;
  }
}

template <typename OffsetT>
void LikeOverOffsets(const Array& values, const LikePattern& pattern, bool negated,
                     uint8_t* out) {
  const OffsetT* offsets = RawValues<OffsetT>(values);
  const auto get = OffsetStrings<OffsetT>::Of(values, offsets);
  LikeLoop(values.length(), get, pattern, negated, out);
}

}  // namespace

Result<ArrayPtr> ApplyLike(const Array& values, const LikePattern& pattern,
                           bool negated) {
  const int64_t n = values.length();
  LANCE_ASSIGN_OR_RAISE(BufferPtr bits, AllocateBits(n));
  if (n > 0) {
    switch (values.type_id()) {
      case TypeId::kUtf8:
      case TypeId::kBinary:
      case TypeId::kLargeUtf8:
      case TypeId::kLargeBinary: {
        const bool large = values.type_id() == TypeId::kLargeUtf8 ||
                           values.type_id() == TypeId::kLargeBinary;
        if ((large ? static_cast<const void*>(RawValues<int64_t>(values))
                   : static_cast<const void*>(RawValues<int32_t>(values))) == nullptr) {
          return Status::Invalid("LIKE over a string array without offsets");
        }
        if (large) {
          LikeOverOffsets<int64_t>(values, pattern, negated, bits->mutable_data());
        } else {
          LikeOverOffsets<int32_t>(values, pattern, negated, bits->mutable_data());
        }
        break;
      }
      default: {
        LANCE_ASSIGN_OR_RAISE(ViewReader get, ViewReader::Make(values));
        LikeLoop(n, get, pattern, negated, bits->mutable_data());
        break;
      }
    }
  }
  return WithValidityOf(values, std::move(bits));
}

}  // namespace lance::table::predicate_internal

// SPDX-License-Identifier: Apache-2.0
#include "table/roaring.h"

#include <bit>

#include "lance/macros.h"

namespace lance::table_internal {
namespace {

constexpr uint32_t kCookieNoRuns = 12346;
constexpr uint32_t kCookieRuns = 12347;
// With run containers, offsets are written only from this many containers on.
constexpr uint32_t kNoOffsetThreshold = 4;
constexpr uint32_t kMaxArrayCardinality = 4096;
constexpr size_t kBitmapBytes = 8192;
constexpr uint32_t kMaxContainers = 65536;

// Bounds-checked little-endian cursor over the input.
class Cursor {
 public:
  explicit Cursor(std::string_view bytes) : bytes_(bytes) {}
  bool Has(size_t n) const { return bytes_.size() - pos_ >= n; }
  uint16_t U16() {
    uint16_t v = static_cast<uint8_t>(bytes_[pos_]) |
                 static_cast<uint16_t>(static_cast<uint8_t>(bytes_[pos_ + 1]) << 8);
    pos_ += 2;
    return v;
  }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(bytes_[pos_ + i]);
    pos_ += 4;
    return v;
  }
  const char* Take(size_t n) {
    const char* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }
  size_t pos() const { return pos_; }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

void PutU16(std::string* out, uint16_t v) {
  out->push_back(static_cast<char>(v & 0xFF));
  out->push_back(static_cast<char>(v >> 8));
}
void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

Status Truncated(std::string_view what, const char* part) {
  return Status::Corrupt("Roaring bitmap " + std::string(what) + " is truncated in its " +
                         part);
}

}  // namespace

Result<std::vector<uint32_t>> DeserializeRoaring(std::string_view bytes, uint64_t limit,
                                                 std::string_view what) {
  Cursor in(bytes);
  const std::string name(what);
  if (!in.Has(4)) return Truncated(what, "cookie");
  const uint32_t cookie = in.U32();
  uint32_t n = 0;
  bool has_runs = false;
  std::string run_flags;
  if ((cookie & 0xFFFF) == kCookieRuns) {
    has_runs = true;
    n = (cookie >> 16) + 1;
    const size_t flag_bytes = (n + 7) / 8;
    if (!in.Has(flag_bytes)) return Truncated(what, "run flags");
    run_flags.assign(in.Take(flag_bytes), flag_bytes);
  } else if (cookie == kCookieNoRuns) {
    if (!in.Has(4)) return Truncated(what, "container count");
    n = in.U32();
    if (n > kMaxContainers) {
      return Status::Corrupt("Roaring bitmap " + name + " claims " + std::to_string(n) +
                             " containers (at most 65536)");
    }
  } else {
    return Status::Corrupt("Roaring bitmap " + name + " has an unknown cookie " +
                           std::to_string(cookie));
  }
  if (!in.Has(static_cast<size_t>(n) * 4)) return Truncated(what, "container headers");
  std::vector<uint16_t> keys(n);
  std::vector<uint32_t> cards(n);
  for (uint32_t i = 0; i < n; ++i) {
    keys[i] = in.U16();
    cards[i] = static_cast<uint32_t>(in.U16()) + 1;
    if (i > 0 && keys[i] <= keys[i - 1]) {
      return Status::Corrupt("Roaring bitmap " + name + " has unsorted container keys");
    }
  }
  if (!has_runs || n >= kNoOffsetThreshold) {
    // Offsets let readers seek; we decode sequentially, so only skip them.
    if (!in.Has(static_cast<size_t>(n) * 4)) return Truncated(what, "offsets");
    in.Take(static_cast<size_t>(n) * 4);
  }

  std::vector<uint32_t> values;
  auto emit = [&](uint32_t high, uint32_t low) -> Status {
    const uint32_t v = (high << 16) | low;
    if (v >= limit) {
      return Status::Corrupt("Roaring bitmap " + name + " holds " + std::to_string(v) +
                             ", beyond the " + std::to_string(limit) + " rows it covers");
    }
    if (!values.empty() && v <= values.back()) {
      return Status::Corrupt("Roaring bitmap " + name + " has unsorted values");
    }
    values.push_back(v);
    return Status::OK();
  };
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t high = keys[i];
    // Every value of this container is >= high << 16; refuse early rather than expand.
    if ((static_cast<uint64_t>(high) << 16) >= limit) {
      return Status::Corrupt("Roaring bitmap " + name + " has a container beyond the " +
                             std::to_string(limit) + " rows it covers");
    }
    const bool is_run =
        has_runs && ((static_cast<uint8_t>(run_flags[i / 8]) >> (i % 8)) & 1);
    if (is_run) {
      if (!in.Has(2)) return Truncated(what, "run container");
      const uint32_t num_runs = in.U16();
      if (!in.Has(static_cast<size_t>(num_runs) * 4)) return Truncated(what, "runs");
      uint64_t count = 0;
      for (uint32_t r = 0; r < num_runs; ++r) {
        const uint32_t start = in.U16();
        const uint32_t len = static_cast<uint32_t>(in.U16()) + 1;
        if (start + len > 65536) {
          return Status::Corrupt("Roaring bitmap " + name + " has a run past 65535");
        }
        for (uint32_t v = start; v < start + len; ++v) LANCE_RETURN_NOT_OK(emit(high, v));
        count += len;
      }
      if (count != cards[i]) {
        return Status::Corrupt("Roaring bitmap " + name +
                               " has a run container whose cardinality disagrees with "
                               "its header");
      }
    } else if (cards[i] > kMaxArrayCardinality) {
      if (!in.Has(kBitmapBytes)) return Truncated(what, "bitmap container");
      const char* words = in.Take(kBitmapBytes);
      uint32_t count = 0;
      for (uint32_t w = 0; w < 1024; ++w) {
        uint64_t word = 0;
        for (int b = 7; b >= 0; --b) {
          word =
              (word << 8) | static_cast<uint8_t>(words[8 * w + static_cast<uint32_t>(b)]);
        }
        while (word != 0) {
          const int bit = std::countr_zero(word);
          LANCE_RETURN_NOT_OK(emit(high, w * 64 + static_cast<uint32_t>(bit)));
          word &= word - 1;
          ++count;
        }
      }
      if (count != cards[i]) {
        return Status::Corrupt("Roaring bitmap " + name +
                               " has a bitmap container whose cardinality disagrees with "
                               "its header");
      }
    } else {
      if (!in.Has(static_cast<size_t>(cards[i]) * 2)) {
        return Truncated(what, "array container");
      }
      for (uint32_t k = 0; k < cards[i]; ++k) LANCE_RETURN_NOT_OK(emit(high, in.U16()));
    }
  }
  return values;
}

std::string SerializeRoaring(const std::vector<uint32_t>& values, bool use_runs) {
  struct Container {
    uint16_t key;
    size_t begin;  // index into values
    size_t end;
    uint32_t runs;
    enum Kind { kArray, kBitmap, kRun } kind;
  };
  std::vector<Container> containers;
  for (size_t i = 0; i < values.size();) {
    const uint16_t key = static_cast<uint16_t>(values[i] >> 16);
    size_t j = i;
    uint32_t runs = 0;
    while (j < values.size() && (values[j] >> 16) == key) {
      if (j == i || values[j] != values[j - 1] + 1) ++runs;
      ++j;
    }
    const size_t card = j - i;
    Container c{key, i, j, runs,
                card <= kMaxArrayCardinality ? Container::kArray : Container::kBitmap};
    if (use_runs) {
      const size_t run_bytes = 2 + 4 * static_cast<size_t>(runs);
      const size_t other = c.kind == Container::kArray ? 2 * card : kBitmapBytes;
      if (run_bytes < other) c.kind = Container::kRun;
    }
    containers.push_back(c);
    i = j;
  }
  const uint32_t n = static_cast<uint32_t>(containers.size());
  bool any_run = false;
  for (const Container& c : containers) any_run |= c.kind == Container::kRun;

  std::string out;
  if (any_run) {
    PutU32(&out, ((n - 1) << 16) | kCookieRuns);
    std::string flags((n + 7) / 8, '\0');
    for (uint32_t i = 0; i < n; ++i) {
      if (containers[i].kind == Container::kRun) {
        flags[i / 8] = static_cast<char>(flags[i / 8] | (1 << (i % 8)));
      }
    }
    out += flags;
  } else {
    PutU32(&out, kCookieNoRuns);
    PutU32(&out, n);
  }
  for (const Container& c : containers) {
    PutU16(&out, c.key);
    PutU16(&out, static_cast<uint16_t>(c.end - c.begin - 1));
  }
  auto size_of = [](const Container& c) -> size_t {
    switch (c.kind) {
      case Container::kArray:
        return 2 * (c.end - c.begin);
      case Container::kBitmap:
        return kBitmapBytes;
      case Container::kRun:
        return 2 + 4 * static_cast<size_t>(c.runs);
    }
    return 0;
  };
  if (!any_run || n >= kNoOffsetThreshold) {
    size_t offset = out.size() + 4 * static_cast<size_t>(n);
    for (const Container& c : containers) {
      PutU32(&out, static_cast<uint32_t>(offset));
      offset += size_of(c);
    }
  }
  for (const Container& c : containers) {
    switch (c.kind) {
      case Container::kArray:
        for (size_t i = c.begin; i < c.end; ++i) {
          PutU16(&out, static_cast<uint16_t>(values[i] & 0xFFFF));
        }
        break;
      case Container::kBitmap: {
        std::string bits(kBitmapBytes, '\0');
        for (size_t i = c.begin; i < c.end; ++i) {
          const uint32_t low = values[i] & 0xFFFF;
          // Little-endian u64 words: bit b of word w is bit (b % 8) of byte 8w + b/8,
          // which is byte low / 8 overall.
          bits[low / 8] = static_cast<char>(bits[low / 8] | (1 << (low % 8)));
        }
        out += bits;
        break;
      }
      case Container::kRun: {
        PutU16(&out, static_cast<uint16_t>(c.runs));
        size_t i = c.begin;
        while (i < c.end) {
          size_t j = i + 1;
          while (j < c.end && values[j] == values[j - 1] + 1) ++j;
          PutU16(&out, static_cast<uint16_t>(values[i] & 0xFFFF));
          PutU16(&out, static_cast<uint16_t>(j - i - 1));
          i = j;
        }
        break;
      }
    }
  }
  return out;
}

}  // namespace lance::table_internal

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

// The part of a serialized bitmap before the containers' contents.
struct Header {
  uint32_t n = 0;  // containers
  bool has_runs = false;
  std::string run_flags;  // bit i: container i is a run container
  std::vector<uint16_t> keys;
  std::vector<uint32_t> cards;

  bool IsRun(uint32_t i) const {
    return has_runs && ((static_cast<uint8_t>(run_flags[i / 8]) >> (i % 8)) & 1);
  }
};

// Reads the cookie, the run flags, the container headers and (skipping them) the
// offsets.
Result<Header> ReadHeader(Cursor* in, std::string_view what) {
  const std::string name(what);
  if (!in->Has(4)) return Truncated(what, "cookie");
  const uint32_t cookie = in->U32();
  Header h;
  if ((cookie & 0xFFFF) == kCookieRuns) {
    h.has_runs = true;
    h.n = (cookie >> 16) + 1;
    const size_t flag_bytes = (h.n + 7) / 8;
    if (!in->Has(flag_bytes)) return Truncated(what, "run flags");
    h.run_flags.assign(in->Take(flag_bytes), flag_bytes);
  } else if (cookie == kCookieNoRuns) {
    if (!in->Has(4)) return Truncated(what, "container count");
    h.n = in->U32();
    if (h.n > kMaxContainers) {
      return Status::Corrupt("Roaring bitmap " + name + " claims " + std::to_string(h.n) +
                             " containers (at most 65536)");
    }
  } else {
    return Status::Corrupt("Roaring bitmap " + name + " has an unknown cookie " +
                           std::to_string(cookie));
  }
  const uint32_t n = h.n;
  if (!in->Has(static_cast<size_t>(n) * 4)) return Truncated(what, "container headers");
  h.keys.resize(n);
  h.cards.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    h.keys[i] = in->U16();
    h.cards[i] = static_cast<uint32_t>(in->U16()) + 1;
    if (i > 0 && h.keys[i] <= h.keys[i - 1]) {
      return Status::Corrupt("Roaring bitmap " + name + " has unsorted container keys");
    }
  }
  if (!h.has_runs || n >= kNoOffsetThreshold) {
    // Offsets let readers seek; we decode sequentially, so only skip them.
    if (!in->Has(static_cast<size_t>(n) * 4)) return Truncated(what, "offsets");
    in->Take(static_cast<size_t>(n) * 4);
  }
  return h;
}

// Collects the decoded values, refusing any beyond `limit` or out of order.
class ValueSink {
 public:
  ValueSink(std::string_view what, uint64_t limit) : name_(what), limit_(limit) {}

  Status Emit(uint32_t high, uint32_t low) {
    const uint32_t v = (high << 16) | low;
    if (v >= limit_) {
      return Status::Corrupt("Roaring bitmap " + name_ + " holds " + std::to_string(v) +
                             ", beyond the " + std::to_string(limit_) +
                             " rows it covers");
    }
    if (!values_.empty() && v <= values_.back()) {
      return Status::Corrupt("Roaring bitmap " + name_ + " has unsorted values");
    }
    values_.push_back(v);
    return Status::OK();
  }
  const std::string& name() const { return name_; }
  std::vector<uint32_t> Take() { return std::move(values_); }

 private:
  const std::string name_;
  const uint64_t limit_;
  std::vector<uint32_t> values_;
};

Status ReadRunContainer(Cursor* in, uint32_t high, uint32_t card, std::string_view what,
                        ValueSink* sink) {
  if (!in->Has(2)) return Truncated(what, "run container");
  const uint32_t num_runs = in->U16();
  if (!in->Has(static_cast<size_t>(num_runs) * 4)) return Truncated(what, "runs");
  uint64_t count = 0;
  for (uint32_t r = 0; r < num_runs; ++r) {
    const uint32_t start = in->U16();
    const uint32_t len = static_cast<uint32_t>(in->U16()) + 1;
    if (start + len > 65536) {
      return Status::Corrupt("Roaring bitmap " + sink->name() + " has a run past 65535");
    }
    for (uint32_t v = start; v < start + len; ++v)
      LANCE_RETURN_NOT_OK(sink->Emit(high, v));
    count += len;
  }
  if (count != card) {
    return Status::Corrupt("Roaring bitmap " + sink->name() +
                           " has a run container whose cardinality disagrees with "
                           "its header");
  }
  return Status::OK();
}

Status ReadBitmapContainer(Cursor* in, uint32_t high, uint32_t card,
                           std::string_view what, ValueSink* sink) {
  if (!in->Has(kBitmapBytes)) return Truncated(what, "bitmap container");
  const char* words = in->Take(kBitmapBytes);
  uint32_t count = 0;
  for (uint32_t w = 0; w < 1024; ++w) {
    uint64_t word = 0;
    for (int b = 7; b >= 0; --b) {
      word = (word << 8) | static_cast<uint8_t>(words[8 * w + static_cast<uint32_t>(b)]);
    }
    while (word != 0) {
      const int bit = std::countr_zero(word);
      LANCE_RETURN_NOT_OK(sink->Emit(high, w * 64 + static_cast<uint32_t>(bit)));
      word &= word - 1;
      ++count;
    }
  }
  if (count != card) {
    return Status::Corrupt("Roaring bitmap " + sink->name() +
                           " has a bitmap container whose cardinality disagrees with "
                           "its header");
  }
  return Status::OK();
}

Status ReadArrayContainer(Cursor* in, uint32_t high, uint32_t card, std::string_view what,
                          ValueSink* sink) {
  if (!in->Has(static_cast<size_t>(card) * 2)) {
    return Truncated(what, "array container");
  }
  for (uint32_t k = 0; k < card; ++k) LANCE_RETURN_NOT_OK(sink->Emit(high, in->U16()));
  return Status::OK();
}

// A container SerializeRoaring writes: values[begin, end) share the high 16 bits `key`.
struct Container {
  uint16_t key;
  size_t begin;  // index into values
  size_t end;
  uint32_t runs;
  enum Kind { kArray, kBitmap, kRun } kind;
};

// Groups the sorted `values` into containers of the smallest kind.
std::vector<Container> PlanContainers(const std::vector<uint32_t>& values,
                                      bool use_runs) {
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
  return containers;
}

size_t SerializedSize(const Container& c) {
  switch (c.kind) {
    case Container::kArray:
      return 2 * (c.end - c.begin);
    case Container::kBitmap:
      return kBitmapBytes;
    case Container::kRun:
      return 2 + 4 * static_cast<size_t>(c.runs);
  }
  return 0;
}

// The cookie (with the run flags, or the container count), the container headers and
// the offsets when the format has them.
void WriteHeader(const std::vector<Container>& containers, std::string* out) {
  const uint32_t n = static_cast<uint32_t>(containers.size());
  bool any_run = false;
  for (const Container& c : containers) any_run |= c.kind == Container::kRun;
  if (any_run) {
    PutU32(out, ((n - 1) << 16) | kCookieRuns);
    std::string flags((n + 7) / 8, '\0');
    for (uint32_t i = 0; i < n; ++i) {
      if (containers[i].kind == Container::kRun) {
        flags[i / 8] = static_cast<char>(flags[i / 8] | (1 << (i % 8)));
      }
    }
    *out += flags;
  } else {
    PutU32(out, kCookieNoRuns);
    PutU32(out, n);
  }
  for (const Container& c : containers) {
    PutU16(out, c.key);
    PutU16(out, static_cast<uint16_t>(c.end - c.begin - 1));
  }
  if (!any_run || n >= kNoOffsetThreshold) {
    size_t offset = out->size() + 4 * static_cast<size_t>(n);
    for (const Container& c : containers) {
      PutU32(out, static_cast<uint32_t>(offset));
      offset += SerializedSize(c);
    }
  }
}

void WriteContainer(const Container& c, const std::vector<uint32_t>& values,
                    std::string* out) {
  switch (c.kind) {
    case Container::kArray:
      for (size_t i = c.begin; i < c.end; ++i) {
        PutU16(out, static_cast<uint16_t>(values[i] & 0xFFFF));
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
      *out += bits;
      break;
    }
    case Container::kRun: {
      PutU16(out, static_cast<uint16_t>(c.runs));
      size_t i = c.begin;
      while (i < c.end) {
        size_t j = i + 1;
        while (j < c.end && values[j] == values[j - 1] + 1) ++j;
        PutU16(out, static_cast<uint16_t>(values[i] & 0xFFFF));
        PutU16(out, static_cast<uint16_t>(j - i - 1));
        i = j;
      }
      break;
    }
  }
}

}  // namespace

Result<std::vector<uint32_t>> DeserializeRoaring(std::string_view bytes, uint64_t limit,
                                                 std::string_view what) {
  Cursor in(bytes);
  LANCE_ASSIGN_OR_RAISE(Header h, ReadHeader(&in, what));
  ValueSink sink(what, limit);
  for (uint32_t i = 0; i < h.n; ++i) {
    const uint32_t high = h.keys[i];
    // Every value of this container is >= high << 16; refuse early rather than expand.
    if ((static_cast<uint64_t>(high) << 16) >= limit) {
      return Status::Corrupt("Roaring bitmap " + sink.name() +
                             " has a container beyond the " + std::to_string(limit) +
                             " rows it covers");
    }
    if (h.IsRun(i)) {
      LANCE_RETURN_NOT_OK(ReadRunContainer(&in, high, h.cards[i], what, &sink));
    } else if (h.cards[i] > kMaxArrayCardinality) {
      LANCE_RETURN_NOT_OK(ReadBitmapContainer(&in, high, h.cards[i], what, &sink));
    } else {
      LANCE_RETURN_NOT_OK(ReadArrayContainer(&in, high, h.cards[i], what, &sink));
    }
  }
  return sink.Take();
}

std::string SerializeRoaring(const std::vector<uint32_t>& values, bool use_runs) {
  const std::vector<Container> containers = PlanContainers(values, use_runs);
  std::string out;
  WriteHeader(containers, &out);
  for (const Container& c : containers) WriteContainer(c, values, &out);
  return out;
}

}  // namespace lance::table_internal

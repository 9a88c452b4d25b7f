// SPDX-License-Identifier: Apache-2.0
// FSST symbol tables, decompression and a compressor; see fsst.h.

#include "format/codecs/fsst.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>

#include "format/codecs/codec_util.h"
#include "lance/macros.h"

namespace lance::format::codecs {

// ---------------------------------------------------------------------------------------
// Symbol table

Result<FsstSymbolTable> ParseFsstSymbolTable(const uint8_t* data, int64_t size) {
  if (size != kFsstSymbolTableBytes) {
    return Status::Corrupt("FSST symbol table has ", size, " bytes, not ",
                           kFsstSymbolTableBytes);
  }
  const uint64_t header = LoadLE<uint64_t>(data);
  if ((header & kFsstMagic) != kFsstMagic) {
    return Status::Corrupt("FSST symbol table does not start with the FSST magic");
  }
  FsstSymbolTable table;
  table.encoder_switch = (header & (uint64_t{1} << 24)) != 0;
  table.suffix_lim = static_cast<uint8_t>(header >> 16);
  table.terminator = static_cast<uint8_t>(header >> 8);
  table.num_symbols = static_cast<int>(header & 0xFF);
  const int n = table.num_symbols;
  for (int i = 0; i < n; ++i) {
    table.symbols[i] = LoadLE<uint64_t>(data + 8 + 8 * i);
    const uint8_t len = data[8 + 8 * n + i];
    if (len < 1 || len > 8) {
      return Status::Corrupt("FSST symbol ", i, " has length ", len);
    }
    table.lengths[i] = len;
  }
  return table;
}

void SerializeFsstSymbolTable(const FsstSymbolTable& table, uint8_t* out) {
  std::memset(out, 0, kFsstSymbolTableBytes);
  const int n = std::clamp(table.num_symbols, 0, 255);
  const uint64_t header = kFsstMagic | (uint64_t{table.encoder_switch ? 1u : 0u} << 24) |
                          (uint64_t{table.suffix_lim} << 16) |
                          (uint64_t{table.terminator} << 8) | static_cast<uint64_t>(n);
  StoreLE<uint64_t>(out, header);
  for (int i = 0; i < n; ++i) {
    StoreLE<uint64_t>(out + 8 + 8 * i, table.symbols[i]);
    out[8 + 8 * n + i] = table.lengths[i];
  }
}

// ---------------------------------------------------------------------------------------
// Decompression

namespace {

template <typename OffsetT>
Result<DataBlock> DecompressT(const FsstSymbolTable& table, const DataBlock& in,
                              int64_t max_bytes) {
  const int64_t n = in.num_values;
  constexpr int64_t w = sizeof(OffsetT);
  if (n < 0 || !in.offsets || in.offsets->size() < (n + 1) * w || !in.data) {
    return Status::Corrupt("FSST input has fewer offsets than its ", n, " values");
  }
  const uint8_t* offsets = in.offsets->data();
  const uint8_t* src = in.data->data();
  const uint64_t src_size = static_cast<uint64_t>(in.data->size());
  // Offsets must be non-decreasing and inside the data.
  uint64_t prev = LoadLE<OffsetT>(offsets);
  if (prev > src_size)
    return Status::Corrupt("FSST offsets point past the compressed bytes");
  for (int64_t i = 1; i <= n; ++i) {
    const uint64_t o = LoadLE<OffsetT>(offsets + i * w);
    if (o < prev || o > src_size) {
      return Status::Corrupt("FSST offsets decrease or point past the compressed bytes");
    }
    prev = o;
  }
  if (!table.encoder_switch) return in;

  // Pass 1: the decoded size of every value, and every escape has its literal inside the
  // value.
  const int64_t limit =
      w == 4 ? std::min<int64_t>(max_bytes, int64_t{0x7FFFFFFF}) : max_bytes;
  LANCE_ASSIGN_OR_RAISE(BufferPtr out_offsets, internal::AllocateOut((n + 1) * w));
  uint8_t* oo = out_offsets->mutable_data();
  const uint8_t* lens = table.lengths;
  int64_t total = 0;
  StoreLE<OffsetT>(oo, 0);
  uint64_t start = LoadLE<OffsetT>(offsets);
  for (int64_t i = 1; i <= n; ++i) {
    const uint64_t end = LoadLE<OffsetT>(offsets + i * w);
    uint64_t p = start;
    int64_t len = 0;
    while (p < end) {
      const uint8_t c = src[p];
      if (c == kFsstEscape) {
        if (p + 1 >= end) return Status::Corrupt("FSST escape without its literal byte");
        len += 1;
        p += 2;
      } else {
        len += lens[c];
        p += 1;
      }
    }
    total += len;
    if (total > limit) {
      return Status::Corrupt("FSST values decompress to more than ", limit, " bytes");
    }
    StoreLE<OffsetT>(oo + i * w, static_cast<OffsetT>(total));
    start = end;
  }

  // Pass 2: decode the whole compressed range at once with 8-byte symbol stores (the
  // output has 8 bytes of slack).
  LANCE_ASSIGN_OR_RAISE(BufferPtr out_data, internal::AllocateOut(total + 8));
  uint8_t* out = out_data->mutable_data();
  const uint64_t* symbols = table.symbols;
  uint64_t p = LoadLE<OffsetT>(offsets);
  const uint64_t end = LoadLE<OffsetT>(offsets + n * w);
  int64_t o = 0;
  while (p < end) {
    const uint8_t c = src[p];
    if (c == kFsstEscape) {
      out[o++] = src[p + 1];
      p += 2;
    } else {
      std::memcpy(out + o, &symbols[c], 8);
      o += lens[c];
      p += 1;
    }
  }
  std::memset(out + total, 0, 8);
  out_data->Resize(total);
  DataBlock result;
  result.kind = DataBlock::Kind::kVariable;
  result.num_values = n;
  result.offset_bits = static_cast<int>(w * 8);
  result.offsets = std::move(out_offsets);
  result.data = std::move(out_data);
  return result;
}

}  // namespace

Result<DataBlock> FsstDecompress(const FsstSymbolTable& table,
                                 const DataBlock& compressed, int64_t max_bytes) {
  if (compressed.kind != DataBlock::Kind::kVariable) {
    return Status::Invalid("FSST decompression of a non-variable block");
  }
  switch (compressed.offset_bits) {
    case 32:
      return DecompressT<uint32_t>(table, compressed, max_bytes);
    case 64:
      return DecompressT<uint64_t>(table, compressed, max_bytes);
    default:
      return Status::NotImplemented("FSST over ", compressed.offset_bits, "-bit offsets");
  }
}

// ---------------------------------------------------------------------------------------
// Compression

namespace {

struct Sym {
  uint64_t val = 0;
  int len = 0;
};

inline uint64_t LowBytes(uint64_t v, int len) {
  return len >= 8 ? v : v & ((uint64_t{1} << (8 * len)) - 1);
}

inline uint32_t HashPrefix(uint64_t w3, int bits) {
  const uint64_t h = (w3 & 0xFFFFFF) * 0x9E3779B97F4A7C15ull;
  return static_cast<uint32_t>(h >> (64 - bits));
}

// Loads up to 8 bytes (zero-filled past `rem`).
inline uint64_t LoadPrefix(const uint8_t* p, int64_t rem) {
  if (rem >= 8) return LoadLE<uint64_t>(p);
  uint64_t v = 0;
  std::memcpy(&v, p, static_cast<size_t>(rem));
  return v;
}

// A symbol set with the lookups of the greedy parser: single bytes by byte, pairs by two
// bytes, longer symbols by a hash of their first three bytes (one symbol per slot).
class SymbolIndex {
 public:
  static constexpr int kBits = 11;

  SymbolIndex() : short_(65536, -1), hash_(size_t{1} << kBits) {
    std::fill_n(byte_, 256, -1);
  }

  // Adds a symbol if its lookup slot is free; returns false otherwise.
  bool Add(const Sym& s) {
    const int code = static_cast<int>(syms_.size());
    if (code >= 255) return false;
    if (s.len == 1) {
      const uint8_t b = static_cast<uint8_t>(s.val);
      if (byte_[b] >= 0) return false;
      byte_[b] = static_cast<int16_t>(code);
    } else if (s.len == 2) {
      const uint16_t k = static_cast<uint16_t>(s.val);
      if (short_[k] >= 0) return false;
      short_[k] = static_cast<int16_t>(code);
    } else {
      Slot& slot = hash_[HashPrefix(s.val, kBits)];
      if (slot.len != 0) return false;
      slot.val = s.val;
      slot.len = static_cast<uint8_t>(s.len);
      slot.code = static_cast<uint8_t>(code);
    }
    syms_.push_back(s);
    return true;
  }

  // The longest symbol at `p` (rem > 0 bytes left): its code and length, code -1 for an
  // escaped byte.
  inline std::pair<int, int> Match(const uint8_t* p, int64_t rem) const {
    const uint64_t w = LoadPrefix(p, rem);
    if (rem >= 3) {
      const Slot& slot = hash_[HashPrefix(w, kBits)];
      if (slot.len != 0 && slot.len <= rem && LowBytes(w, slot.len) == slot.val) {
        return {slot.code, slot.len};
      }
    }
    if (rem >= 2) {
      const int16_t c = short_[static_cast<uint16_t>(w)];
      if (c >= 0) return {c, 2};
    }
    return {byte_[static_cast<uint8_t>(w)], 1};
  }

  const std::vector<Sym>& symbols() const { return syms_; }

 private:
  struct Slot {
    uint64_t val = 0;
    uint8_t len = 0;
    uint8_t code = 0;
  };
  int16_t byte_[256];
  std::vector<int16_t> short_;
  std::vector<Slot> hash_;
  std::vector<Sym> syms_;
};

// Deterministic sample of whole strings, about 16 KiB, as Lance's sampler: random
// strings (with repeats) until the target is met.
struct Sample {
  std::vector<uint8_t> bytes;
  std::vector<int64_t> ends;  // exclusive end of every sampled string
};

template <typename OffsetT>
Sample MakeSample(const uint8_t* data, const OffsetT* offsets, int64_t n) {
  constexpr int64_t kTarget = 16 * 1024;
  Sample s;
  const int64_t total = n > 0 ? static_cast<int64_t>(offsets[n] - offsets[0]) : 0;
  auto add = [&](int64_t i) {
    const int64_t a = static_cast<int64_t>(offsets[i]),
                  b = static_cast<int64_t>(offsets[i + 1]);
    if (a == b) return;
    s.bytes.insert(s.bytes.end(), data + a, data + b);
    s.ends.push_back(static_cast<int64_t>(s.bytes.size()));
  };
  if (total <= kTarget) {
    for (int64_t i = 0; i < n; ++i) add(i);
    return s;
  }
  uint64_t state = 0x2545F4914F6CDD1Dull;
  for (int64_t draw = 0; draw < kTarget && static_cast<int64_t>(s.bytes.size()) < kTarget;
       ++draw) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    add(static_cast<int64_t>((state >> 33) % static_cast<uint64_t>(n)));
  }
  for (int64_t i = 0; i < n && static_cast<int64_t>(s.bytes.size()) < kTarget; ++i)
    add(i);
  return s;
}

// Pseudo-codes of the counting pass: 0..255 stand for an escaped byte, 256 + i for
// symbol i.
constexpr int kPseudo = 512;

Sym PseudoSym(const SymbolIndex& index, int pseudo) {
  if (pseudo < 256) return Sym{static_cast<uint64_t>(pseudo), 1};
  return index.symbols()[static_cast<size_t>(pseudo - 256)];
}

// Greedy-parses the sample with `index`, counting single codes and pairs (when
// `count_pairs`); returns the compressed size of the sample.
int64_t CountSample(const SymbolIndex& index, const Sample& sample, bool count_pairs,
                    std::vector<uint32_t>* count1, std::vector<uint32_t>* count2) {
  int64_t compressed = 0;
  int64_t start = 0;
  const uint8_t* bytes = sample.bytes.data();
  for (const int64_t end : sample.ends) {
    int64_t pos = start;
    auto next = [&](int64_t at) {
      const auto [code, len] = index.Match(bytes + at, end - at);
      compressed += code < 0 ? 2 : 1;
      return std::pair<int, int>{code < 0 ? bytes[at] : 256 + code, len};
    };
    auto [prev, prev_len] = next(pos);
    pos += prev_len;
    while (pos < end) {
      (*count1)[prev]++;
      if (prev_len != 1) (*count1)[bytes[pos]]++;
      const auto [cur, cur_len] = next(pos);
      if (count_pairs) {
        (*count2)[static_cast<size_t>(prev) * kPseudo + cur]++;
        if (cur_len > 1) (*count2)[static_cast<size_t>(prev) * kPseudo + bytes[pos]]++;
      }
      pos += cur_len;
      prev = cur;
      prev_len = cur_len;
    }
    (*count1)[prev]++;
    start = end;
  }
  return compressed;
}

struct SymKey {
  uint64_t val;
  int len;
  bool operator==(const SymKey& o) const { return val == o.val && len == o.len; }
};
struct SymKeyHash {
  size_t operator()(const SymKey& k) const {
    return static_cast<size_t>(k.val * 0x9E3779B97F4A7C15ull) ^
           static_cast<size_t>(k.len);
  }
};

SymbolIndex MakeTable(const SymbolIndex& index, const std::vector<uint32_t>& count1,
                      const std::vector<uint32_t>& count2, int frac) {
  std::unordered_map<SymKey, uint64_t, SymKeyHash> gains;
  const uint64_t min_count = static_cast<uint64_t>(5 * frac / 128);
  auto add = [&](const Sym& s, uint64_t count) {
    if (count < min_count || count == 0) return;
    gains[SymKey{s.val, s.len}] += count * static_cast<uint64_t>(s.len);
  };
  const int num_codes = 256 + static_cast<int>(index.symbols().size());
  for (int a = 0; a < num_codes; ++a) {
    const uint32_t c1 = count1[static_cast<size_t>(a)];
    if (c1 == 0) continue;
    const Sym s1 = PseudoSym(index, a);
    // Promoting single bytes cuts escapes, which cost twice.
    add(s1, (s1.len == 1 ? 8u : 1u) * uint64_t{c1});
    if (frac >= 128 || s1.len == 8) continue;
    const uint32_t* row = count2.data() + static_cast<size_t>(a) * kPseudo;
    for (int b = 0; b < num_codes; ++b) {
      if (row[b] == 0) continue;
      const Sym s2 = PseudoSym(index, b);
      Sym s3;
      s3.len = std::min(8, s1.len + s2.len);
      s3.val = LowBytes(s1.val | (s2.val << (8 * s1.len)), s3.len);
      add(s3, row[b]);
    }
  }
  std::vector<std::pair<uint64_t, SymKey>> ranked;
  ranked.reserve(gains.size());
  for (const auto& [k, g] : gains) ranked.push_back({g, k});
  std::sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
    if (x.first != y.first) return x.first > y.first;
    if (x.second.len != y.second.len) return x.second.len > y.second.len;
    return x.second.val < y.second.val;
  });
  SymbolIndex out;
  for (const auto& [g, k] : ranked) {
    if (out.symbols().size() >= 255) break;
    out.Add(Sym{k.val, k.len});
  }
  return out;
}

}  // namespace

FsstSymbolTable FsstCompressor::MakeUncompressedTable() { return FsstSymbolTable{}; }

template <typename OffsetT>
FsstCompressor FsstCompressor::Train(const uint8_t* data, const OffsetT* offsets,
                                     int64_t num_values) {
  const Sample sample = MakeSample(data, offsets, num_values);
  std::vector<uint32_t> count1(kPseudo), count2(static_cast<size_t>(kPseudo) * kPseudo);
  SymbolIndex current;
  SymbolIndex best;
  int64_t best_size = -1;
  constexpr int kFracs[] = {8, 38, 68, 98, 128};
  for (int round = 0; round <= 5; ++round) {
    const bool last = round == 5;
    std::fill(count1.begin(), count1.end(), 0);
    if (!last) std::fill(count2.begin(), count2.end(), 0);
    const bool pairs = !last && kFracs[round] < 128;
    const int64_t size = CountSample(current, sample, pairs, &count1, &count2);
    if (best_size < 0 || size < best_size) {
      best_size = size;
      best = current;
    }
    if (last) break;
    current = MakeTable(current, count1, count2, kFracs[round]);
  }
  FsstCompressor c;
  c.table_.encoder_switch = true;
  c.table_.num_symbols = static_cast<int>(best.symbols().size());
  for (int i = 0; i < c.table_.num_symbols; ++i) {
    c.table_.symbols[i] = best.symbols()[static_cast<size_t>(i)].val;
    c.table_.lengths[i] =
        static_cast<uint8_t>(best.symbols()[static_cast<size_t>(i)].len);
  }
  c.BuildLookup();
  return c;
}

void FsstCompressor::BuildLookup() {
  std::fill_n(byte_code_, 256, -1);
  short_code_.assign(65536, -1);
  hash_.assign(size_t{1} << kHashBits, HashEntry{});
  for (int i = 0; i < table_.num_symbols; ++i) {
    const uint64_t val = table_.symbols[i];
    const int len = table_.lengths[i];
    if (len == 1) {
      if (byte_code_[val & 0xFF] < 0) byte_code_[val & 0xFF] = static_cast<int16_t>(i);
    } else if (len == 2) {
      if (short_code_[val & 0xFFFF] < 0)
        short_code_[val & 0xFFFF] = static_cast<int16_t>(i);
    } else {
      HashEntry& e = hash_[HashPrefix(val, kHashBits)];
      if (e.len == 0 || e.len < len) {
        e.val = LowBytes(val, len);
        e.len = static_cast<uint8_t>(len);
        e.code = static_cast<uint8_t>(i);
      }
    }
  }
}

int64_t FsstCompressor::CompressValue(const uint8_t* in, int64_t size,
                                      uint8_t* out) const {
  int64_t o = 0;
  int64_t pos = 0;
  while (pos < size) {
    const int64_t rem = size - pos;
    const uint64_t w = LoadPrefix(in + pos, rem);
    int code = -1;
    int len = 1;
    if (rem >= 3) {
      const HashEntry& e = hash_[HashPrefix(w, kHashBits)];
      if (e.len != 0 && e.len <= rem && LowBytes(w, e.len) == e.val) {
        code = e.code;
        len = e.len;
      }
    }
    if (code < 0 && rem >= 2) {
      const int16_t c = short_code_[static_cast<uint16_t>(w)];
      if (c >= 0) {
        code = c;
        len = 2;
      }
    }
    if (code < 0) code = byte_code_[static_cast<uint8_t>(w)];
    if (code < 0) {
      out[o++] = kFsstEscape;
      out[o++] = static_cast<uint8_t>(w);
    } else {
      out[o++] = static_cast<uint8_t>(code);
    }
    pos += len;
  }
  return o;
}

template <typename OffsetT>
void FsstCompressor::Compress(const uint8_t* data, const OffsetT* offsets,
                              int64_t num_values, std::vector<OffsetT>* out_offsets,
                              std::vector<uint8_t>* out_data) const {
  const int64_t in_bytes =
      num_values > 0 ? static_cast<int64_t>(offsets[num_values] - offsets[0]) : 0;
  out_offsets->assign(static_cast<size_t>(num_values) + 1, 0);
  out_data->resize(static_cast<size_t>(2 * in_bytes));
  int64_t o = 0;
  for (int64_t i = 0; i < num_values; ++i) {
    const int64_t a = static_cast<int64_t>(offsets[i]);
    const int64_t len = static_cast<int64_t>(offsets[i + 1]) - a;
    o += CompressValue(data + a, len, out_data->data() + o);
    (*out_offsets)[static_cast<size_t>(i) + 1] = static_cast<OffsetT>(o);
  }
  out_data->resize(static_cast<size_t>(o));
}

template FsstCompressor FsstCompressor::Train<uint32_t>(const uint8_t*, const uint32_t*,
                                                        int64_t);
template FsstCompressor FsstCompressor::Train<uint64_t>(const uint8_t*, const uint64_t*,
                                                        int64_t);
template void FsstCompressor::Compress<uint32_t>(const uint8_t*, const uint32_t*, int64_t,
                                                 std::vector<uint32_t>*,
                                                 std::vector<uint8_t>*) const;
template void FsstCompressor::Compress<uint64_t>(const uint8_t*, const uint64_t*, int64_t,
                                                 std::vector<uint64_t>*,
                                                 std::vector<uint8_t>*) const;

}  // namespace lance::format::codecs

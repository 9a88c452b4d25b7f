// SPDX-License-Identifier: Apache-2.0
// Damaged inputs: every golden piece of real pylance bytes, truncated and with seeded bit
// flips (in its buffers, its encoding message and its value count), must decode to an
// error or to a value, never crash, read out of bounds or allocate without bound. Run
// under ASan/UBSan in CI.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "format/codecs/codecs.h"
#include "tests/format/codecs/codec_test_util.h"

namespace lance::format::codecs {
namespace {

using testing::Base64Decode;
using testing::Buf;
using testing::json;

// One golden piece in decodable form.
struct Piece {
  std::string name;
  std::string context;
  std::string encoding;              // protobuf bytes
  std::vector<std::string> buffers;  // mini-block: the chunk's buffers; block/fixed: one
  std::vector<uint64_t> offsets;     // variable per-value
  int offset_bits = 32;
  int64_t num_values = 0;
};

std::vector<Piece> LoadPieces() {
  std::vector<Piece> out;
  for (const char* v : {"2_1", "2_2"}) {
    const json doc = testing::LoadGolden(v);
    if (!doc.is_object()) continue;
    for (const auto& c : doc["cases"]) {
      const std::string context = c["context"].get<std::string>();
      if (context == "constant_layout") continue;
      Piece p;
      p.name = std::string(v) + " " + c["name"].get<std::string>();
      p.context = context;
      p.encoding = testing::HexDecode(c["encoding"].get<std::string>());
      if (context == "miniblock") {
        // The first two chunks and the last one of every page.
        const auto& chunks = c["chunks"];
        for (size_t i = 0; i < chunks.size(); ++i) {
          if (i >= 2 && i + 1 != chunks.size()) continue;
          Piece q = p;
          q.name += " chunk " + std::to_string(i);
          for (const auto& b : chunks[i]["buffers"]) {
            q.buffers.push_back(Base64Decode(b.get<std::string>()));
          }
          q.num_values = chunks[i]["num_values"].get<int64_t>();
          out.push_back(q);
        }
        if (c.contains("dictionary")) {
          Piece d = p;
          d.name += " dictionary";
          d.context = "block";
          d.encoding = testing::HexDecode(c["dictionary"]["encoding"].get<std::string>());
          d.buffers = {Base64Decode(c["dictionary"]["buffer"].get<std::string>())};
          d.num_values = c["dictionary"]["num_values"].get<int64_t>();
          out.push_back(d);
        }
        continue;
      }
      if (context == "block") {
        p.buffers = {Base64Decode(c["buffer"].get<std::string>())};
      } else {
        p.buffers = {Base64Decode(c["data"].get<std::string>())};
      }
      if (context == "variable_per_value") {
        p.offsets = c["offsets"].get<std::vector<uint64_t>>();
        p.offset_bits = c["offset_bits"].get<int>();
      }
      p.num_values = c["num_values"].get<int64_t>();
      out.push_back(p);
    }
  }
  return out;
}

// Decodes, touching every byte of the result so that ASan checks the result's extent.
Status Decode(const Piece& p, const std::string& encoding,
              const std::vector<std::string>& bufs, int64_t num_values) {
  pb21::CompressiveEncoding e;
  if (!e.ParseFromString(encoding)) return Status::Invalid("unparseable encoding");
  Result<DataBlock> r = Status::Invalid("no context");
  if (p.context == "miniblock") {
    std::vector<BufferPtr> buffers;
    for (const auto& b : bufs) buffers.push_back(Buf(b));
    r = DecodeMiniBlock(e, buffers, num_values);
  } else if (p.context == "block") {
    r = DecodeBlock(e, Buf(bufs[0]), num_values);
  } else if (p.context == "fixed_per_value") {
    auto bits = FixedPerValueBits(e);
    if (!bits.ok()) return bits.status();
    r = DecodeFixedPerValue(e, Buf(bufs[0]), num_values);
  } else {
    std::vector<uint64_t> offsets = p.offsets;
    for (auto& o : offsets) o = std::min<uint64_t>(o, bufs[0].size());
    r = DecodeVariablePerValue(e, testing::MakeVariable(p.offset_bits, offsets, bufs[0]));
  }
  if (!r.ok()) return r.status();
  // Walk the result.
  uint64_t sum = 0;
  std::vector<const DataBlock*> stack{&*r};
  while (!stack.empty()) {
    const DataBlock* b = stack.back();
    stack.pop_back();
    for (const BufferPtr& buf : {b->data, b->offsets, b->validity}) {
      if (!buf) continue;
      for (int64_t i = 0; i < buf->size(); ++i) sum += buf->data()[i];
    }
    if (b->kind == DataBlock::Kind::kFixed && b->bits_per_value % 8 == 0 && b->data) {
      EXPECT_GE(static_cast<uint64_t>(b->data->size()),
                b->bits_per_value / 8 * static_cast<uint64_t>(b->num_values));
    }
    for (const auto& c : b->children) stack.push_back(&c);
  }
  (void)sum;
  return Status::OK();
}

// Truncation offsets: all of them for small buffers, a spread otherwise.
std::vector<size_t> Cuts(size_t size) {
  std::vector<size_t> cuts;
  if (size <= 1024) {
    for (size_t i = 0; i < size; ++i) cuts.push_back(i);
    return cuts;
  }
  for (size_t i = 0; i < 64; ++i) cuts.push_back(i);
  for (size_t i = 1; i <= 64; ++i) cuts.push_back(size - i);
  for (size_t k = 0; k < 128; ++k) cuts.push_back(64 + k * (size - 128) / 128);
  return cuts;
}

TEST(CorruptInput, GoldenPiecesOnlyEverFailCleanly) {
  const std::vector<Piece> pieces = LoadPieces();
  ASSERT_GT(pieces.size(), 100u);
  std::mt19937_64 rng(20261201);
  int64_t decodes = 0, errors = 0;
  for (const Piece& p : pieces) {
    SCOPED_TRACE(p.name);
    ASSERT_TRUE(Decode(p, p.encoding, p.buffers, p.num_values).ok())
        << "the undamaged piece";
    // Truncation of every buffer.
    for (size_t b = 0; b < p.buffers.size(); ++b) {
      for (size_t cut : Cuts(p.buffers[b].size())) {
        auto bufs = p.buffers;
        bufs[b].resize(cut);
        errors += !Decode(p, p.encoding, bufs, p.num_values).ok();
        ++decodes;
      }
    }
    // Seeded bit flips in the buffers: single bits and bursts.
    for (int trial = 0; trial < 256; ++trial) {
      auto bufs = p.buffers;
      const size_t b = rng() % bufs.size();
      if (bufs[b].empty()) continue;
      const int flips = trial % 4 == 0 ? 8 : 1;
      for (int f = 0; f < flips; ++f) {
        const size_t pos = trial < 64 ? rng() % std::min<size_t>(bufs[b].size(), 64)
                                      : rng() % bufs[b].size();
        bufs[b][pos] = static_cast<char>(bufs[b][pos] ^ (1u << (rng() % 8)));
      }
      errors += !Decode(p, p.encoding, bufs, p.num_values).ok();
      ++decodes;
    }
    // Bit flips in the encoding message (those that still parse are decoded).
    for (int trial = 0; trial < 128; ++trial) {
      std::string enc = p.encoding;
      const size_t pos = rng() % std::min<size_t>(enc.size(), 96);
      enc[pos] = static_cast<char>(enc[pos] ^ (1u << (rng() % 8)));
      errors += !Decode(p, enc, p.buffers, p.num_values).ok();
      ++decodes;
    }
    // Lying value counts.
    for (int64_t n : {int64_t{0}, int64_t{1}, p.num_values - 1, p.num_values + 1,
                      p.num_values * 2 + 3, int64_t{1} << 20, int64_t{1} << 33,
                      int64_t{1} << 62, int64_t{-1}}) {
      errors += !Decode(p, p.encoding, p.buffers, n).ok();
      ++decodes;
    }
  }
  std::printf("  %lld damaged decodes, %lld errors\n", static_cast<long long>(decodes),
              static_cast<long long>(errors));
  EXPECT_GT(errors, decodes / 4);
}

}  // namespace
}  // namespace lance::format::codecs

namespace lance::format::codecs {
namespace {

// Random encoding trees with extreme parameters over random bytes, in every context.
uint64_t Interesting(std::mt19937_64& rng) {
  static const uint64_t kValues[] = {0,
                                     1,
                                     2,
                                     3,
                                     7,
                                     8,
                                     9,
                                     15,
                                     16,
                                     17,
                                     31,
                                     32,
                                     33,
                                     63,
                                     64,
                                     65,
                                     128,
                                     255,
                                     256,
                                     1024,
                                     4096,
                                     1u << 20,
                                     uint64_t{1} << 32,
                                     uint64_t{1} << 40,
                                     uint64_t{1} << 63,
                                     ~uint64_t{0}};
  return kValues[rng() % (sizeof(kValues) / sizeof(kValues[0]))];
}

void RandomEncoding(std::mt19937_64& rng, int depth, pb21::CompressiveEncoding* e) {
  const int kind = depth > 3 ? static_cast<int>(rng() % 2) : static_cast<int>(rng() % 14);
  auto child = [&](pb21::CompressiveEncoding* c) { RandomEncoding(rng, depth + 1, c); };
  auto compression = [&](pb21::BufferCompression* c) {
    c->set_scheme(static_cast<pb21::CompressionScheme>(rng() % 4));
    if (rng() % 2) c->set_level(static_cast<int32_t>(rng() % 30) - 5);
  };
  switch (kind) {
    case 0:
      e->mutable_flat()->set_bits_per_value(Interesting(rng));
      if (rng() % 8 == 0) compression(e->mutable_flat()->mutable_data());
      break;
    case 1: {
      std::string v(rng() % 10, 'x');
      for (auto& ch : v) ch = static_cast<char>(rng());
      e->mutable_constant()->set_value(v);
      break;
    }
    case 2:
      child(e->mutable_variable()->mutable_offsets());
      if (rng() % 8 == 0) compression(e->mutable_variable()->mutable_values());
      break;
    case 3:
      e->mutable_out_of_line_bitpacking()->set_uncompressed_bits_per_value(
          Interesting(rng));
      child(e->mutable_out_of_line_bitpacking()->mutable_values());
      break;
    case 4:
      e->mutable_inline_bitpacking()->set_uncompressed_bits_per_value(Interesting(rng));
      break;
    case 5: {
      std::string table(rng() % 3 == 0 ? 2312 : rng() % 3000, '\0');
      for (auto& ch : table) ch = static_cast<char>(rng() % 4 == 0 ? rng() : 0);
      if (table.size() >= 8) {
        const uint64_t header = (uint64_t{0x46535354} << 32) | (rng() & 0x01FFFFFF);
        std::memcpy(table.data(), &header, 8);
      }
      e->mutable_fsst()->set_symbol_table(table);
      child(e->mutable_fsst()->mutable_values());
      break;
    }
    case 6:
      child(e->mutable_dictionary()->mutable_indices());
      child(e->mutable_dictionary()->mutable_items());
      e->mutable_dictionary()->set_num_dictionary_items(Interesting(rng));
      break;
    case 7:
      child(e->mutable_rle()->mutable_values());
      child(e->mutable_rle()->mutable_run_lengths());
      break;
    case 8:
      child(e->mutable_byte_stream_split()->mutable_values());
      break;
    case 9:
      compression(e->mutable_general()->mutable_compression());
      child(e->mutable_general()->mutable_values());
      break;
    case 10:
      e->mutable_fixed_size_list()->set_items_per_value(Interesting(rng));
      e->mutable_fixed_size_list()->set_has_validity(rng() % 2);
      child(e->mutable_fixed_size_list()->mutable_values());
      break;
    case 11: {
      const int n = static_cast<int>(rng() % 4);
      for (int i = 0; i < n; ++i)
        e->mutable_packed_struct()->add_bits_per_value(Interesting(rng));
      child(e->mutable_packed_struct()->mutable_values());
      break;
    }
    case 12: {
      const int n = static_cast<int>(rng() % 4);
      for (int i = 0; i < n; ++i) {
        auto* f = e->mutable_variable_packed_struct()->add_fields();
        child(f->mutable_value());
        if (rng() % 2) {
          f->set_bits_per_value(Interesting(rng));
        } else {
          f->set_bits_per_length(Interesting(rng));
        }
      }
      break;
    }
    default:
      break;  // no compression set
  }
}

TEST(CorruptInput, RandomEncodingTreesOverRandomBytes) {
  std::mt19937_64 rng(77);
  int ok = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    pb21::CompressiveEncoding e;
    RandomEncoding(rng, 0, &e);
    std::vector<BufferPtr> buffers;
    const int nbuf = static_cast<int>(rng() % 4);
    for (int b = 0; b < nbuf; ++b) {
      std::string bytes(rng() % 3 == 0 ? rng() % 5000 : rng() % 80, '\0');
      for (auto& ch : bytes) ch = static_cast<char>(rng() % 3 == 0 ? rng() : rng() % 4);
      buffers.push_back(Buf(bytes));
    }
    const int64_t n =
        static_cast<int64_t>(rng() % 3 == 0 ? Interesting(rng) : rng() % 2000);
    SCOPED_TRACE(Describe(e));
    ok += DecodeMiniBlock(e, buffers, n).ok();
    ok += DecodeBlock(e, buffers.empty() ? nullptr : buffers[0], n).ok();
    if (FixedPerValueBits(e).ok()) {
      ok += DecodeFixedPerValue(e, buffers.empty() ? nullptr : buffers[0], n).ok();
    }
    const int64_t count = static_cast<int64_t>(rng() % 50);
    std::vector<uint64_t> offsets{0};
    const std::string data = buffers.empty() ? std::string() : testing::Str(buffers[0]);
    for (int64_t i = 0; i < count; ++i) {
      offsets.push_back(std::min<uint64_t>(data.size(), offsets.back() + rng() % 40));
    }
    ok += DecodeVariablePerValue(
              e, testing::MakeVariable(rng() % 2 ? 32 : 64, offsets, data))
              .ok();
    (void)MiniBlockBufferCount(e);
  }
  std::printf("  %d random decodes succeeded\n", ok);
}

}  // namespace
}  // namespace lance::format::codecs

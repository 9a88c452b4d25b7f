// SPDX-License-Identifier: Apache-2.0
// Helpers for the codec tests: the golden vectors written by gen_codec_golden.py (real
// pylance 14.0.2 bytes), decoding them, and flattening DataBlocks for comparison.

#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "format/codecs/codecs.h"
#include "format/codecs/general.h"
#include "lance/macros.h"

namespace lance::format::codecs::testing {

using nlohmann::json;

inline std::string DataDir() { return std::string(LANCE_TEST_DATA_DIR) + "/codecs"; }

inline std::string Base64Decode(const std::string& in) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    const size_t v = kAlphabet.find(c);
    if (v == std::string::npos) continue;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

inline std::string HexDecode(const std::string& in) {
  std::string out;
  for (size_t i = 0; i + 1 < in.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(in.substr(i, 2), nullptr, 16)));
  }
  return out;
}

inline BufferPtr Buf(const std::string& bytes) {
  // A copy, so that ASan sees the exact extent of every buffer a codec reads.
  auto r = Buffer::CopyFrom(bytes.data(), static_cast<int64_t>(bytes.size()));
  return r.ok() ? r.value() : nullptr;
}

inline BufferPtr Buf(const std::vector<uint8_t>& bytes) {
  auto r = Buffer::CopyFrom(bytes.data(), static_cast<int64_t>(bytes.size()));
  return r.ok() ? r.value() : nullptr;
}

inline std::string Str(const BufferPtr& b) {
  if (!b) return {};
  return std::string(reinterpret_cast<const char*>(b->data()),
                     static_cast<size_t>(b->size()));
}

/// A golden vector file: JSON in one zstd frame, decompressed with the codecs' own zstd.
inline json LoadGolden(const std::string& version) {
  std::ifstream in(DataDir() + "/golden_v" + version + ".json.zst", std::ios::binary);
  if (!in) return json();
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string packed = ss.str();
  auto text = GeneralDecompress(
      pb21::COMPRESSION_ALGORITHM_ZSTD, reinterpret_cast<const uint8_t*>(packed.data()),
      static_cast<int64_t>(packed.size()), -1, int64_t{256} << 20);
  if (!text.ok()) {
    ADD_FAILURE() << text.status().ToString();
    return json();
  }
  return json::parse(Str(*text));
}

/// \brief The flat (bit-packed, fixed width) encoding of `bits`-bit values.
inline pb21::CompressiveEncoding Flat(int bits) {
  pb21::CompressiveEncoding e;
  e.mutable_flat()->set_bits_per_value(bits);
  return e;
}

inline pb21::CompressiveEncoding ParseEncoding(const std::string& hex) {
  pb21::CompressiveEncoding e;
  EXPECT_TRUE(e.ParseFromString(HexDecode(hex))) << hex;
  return e;
}

/// A kVariable block over 32- or 64-bit `offsets` (any base) into `data`.
inline DataBlock MakeVariable(int offset_bits, const std::vector<uint64_t>& offsets,
                              const std::string& data) {
  std::string offs;
  for (uint64_t o : offsets) {
    if (offset_bits == 32) {
      const uint32_t v = static_cast<uint32_t>(o);
      offs.append(reinterpret_cast<const char*>(&v), 4);
    } else {
      offs.append(reinterpret_cast<const char*>(&o), 8);
    }
  }
  return DataBlock::Variable(offset_bits, static_cast<int64_t>(offsets.size()) - 1,
                             Buf(offs), Buf(data));
}

inline bool Bit(const std::string& bitmap, int64_t i) {
  return (static_cast<uint8_t>(bitmap[static_cast<size_t>(i / 8)]) >> (i % 8)) & 1;
}

inline bool Bit(const BufferPtr& bitmap, int64_t i) {
  return (bitmap->data()[i / 8] >> (i % 8)) & 1;
}

/// The values of a kFixed / kVariable / kAllNull block as strings: the value's bytes, "0"
/// / "1" for bits, "<null>" for all-null.
inline std::vector<std::string> Values(const DataBlock& b) {
  std::vector<std::string> out;
  switch (b.kind) {
    case DataBlock::Kind::kFixed: {
      if (b.bits_per_value % 8 != 0) {
        EXPECT_EQ(b.bits_per_value, 1u);
        for (int64_t i = 0; i < b.num_values; ++i)
          out.push_back(Bit(b.data, i) ? "1" : "0");
        break;
      }
      const size_t w = b.bits_per_value / 8;
      EXPECT_GE(static_cast<size_t>(b.data->size()),
                w * static_cast<size_t>(b.num_values));
      for (int64_t i = 0; i < b.num_values; ++i) {
        out.emplace_back(reinterpret_cast<const char*>(b.data->data()) + w * i, w);
      }
      break;
    }
    case DataBlock::Kind::kVariable: {
      const int w = b.offset_bits / 8;
      auto off = [&](int64_t i) -> uint64_t {
        if (w == 4) {
          uint32_t v;
          std::memcpy(&v, b.offsets->data() + 4 * i, 4);
          return v;
        }
        uint64_t v;
        std::memcpy(&v, b.offsets->data() + 8 * i, 8);
        return v;
      };
      for (int64_t i = 0; i < b.num_values; ++i) {
        out.emplace_back(reinterpret_cast<const char*>(b.data->data()) + off(i),
                         off(i + 1) - off(i));
      }
      break;
    }
    case DataBlock::Kind::kAllNull:
      out.assign(static_cast<size_t>(b.num_values), "<null>");
      break;
    default:
      ADD_FAILURE() << "not a leaf block";
  }
  return out;
}

/// Expected leaf values of a golden "fixed" / "variable" expectation.
inline std::vector<std::string> ExpectedValues(const json& e) {
  std::vector<std::string> out;
  const std::string data = Base64Decode(e["data"].get<std::string>());
  if (e["kind"] == "fixed") {
    const uint64_t bits = e["bits"].get<uint64_t>();
    if (bits == 1) {
      for (size_t i = 0; i < data.size() * 8; ++i)
        out.push_back(Bit(data, i) ? "1" : "0");
      return out;  // trimmed by the caller to the value count
    }
    const size_t w = bits / 8;
    for (size_t i = 0; i + w <= data.size(); i += w) out.push_back(data.substr(i, w));
  } else {
    size_t pos = 0;
    for (const auto& len : e["lengths"]) {
      out.push_back(data.substr(pos, len.get<size_t>()));
      pos += len.get<size_t>();
    }
  }
  return out;
}

/// Compares leaf values, skipping positions the expectation marks invalid.
inline void ExpectLeafEquals(const std::vector<std::string>& got, const json& e,
                             const std::string& what) {
  std::vector<std::string> want = ExpectedValues(e);
  if (e["kind"] == "fixed" && e["bits"] == 1) want.resize(got.size());
  ASSERT_EQ(got.size(), want.size()) << what;
  std::string mask;
  if (e.contains("valid")) mask = Base64Decode(e["valid"].get<std::string>());
  for (size_t i = 0; i < got.size(); ++i) {
    if (!mask.empty() && !Bit(mask, static_cast<int64_t>(i))) continue;
    if (got[i] != want[i]) {
      ADD_FAILURE() << what << ": value " << i << " differs";
      return;
    }
  }
}

/// Strings laid end to end, as the FSST compressor takes them: `data`, and `offsets` of
/// Offset width holding each value's end after a leading 0.
template <typename Offset>
struct ConcatenatedStrings {
  std::vector<Offset> offsets{0};
  std::string data;
  explicit ConcatenatedStrings(const std::vector<std::string>& values) {
    for (const auto& v : values) {
      data += v;
      offsets.push_back(static_cast<Offset>(data.size()));
    }
  }
  int64_t size() const { return static_cast<int64_t>(offsets.size()) - 1; }
  const uint8_t* bytes() const { return reinterpret_cast<const uint8_t*>(data.data()); }
};

}  // namespace lance::format::codecs::testing

// SPDX-License-Identifier: Apache-2.0
/// \file byte_order.h
/// \brief Little-endian loads and stores at any alignment, for the file formats (Arrow
/// IPC, Lance containers and pages), which are all little endian.

#pragma once

#include <cstdint>
#include <cstring>

namespace lance {

/// \brief The T stored little endian at `p` (any alignment). Every platform lance-cpp
/// builds for is little endian; memcpy keeps unaligned loads defined.
template <typename T>
T LoadLE(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

/// \brief Stores `value` little endian at `p` (any alignment).
template <typename T>
void StoreLE(uint8_t* p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

/// \brief The unsigned integer of `width` bytes (1, 2, 4 or 8; any other width reads 8)
/// stored little endian at `p`.
inline uint64_t LoadUIntLE(const uint8_t* p, int64_t width) {
  switch (width) {
    case 1:
      return p[0];
    case 2:
      return LoadLE<uint16_t>(p);
    case 4:
      return LoadLE<uint32_t>(p);
    default:
      return LoadLE<uint64_t>(p);
  }
}

}  // namespace lance

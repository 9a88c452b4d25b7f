// SPDX-License-Identifier: Apache-2.0
#include "table/ids.h"

#include <unistd.h>

#include <array>
#include <chrono>
#include <functional>
#include <random>
#include <thread>

namespace lance::table_internal {
namespace {

std::mt19937_64 Seeded() {
  std::random_device rd;
  std::seed_seq seq{
      rd(),
      rd(),
      rd(),
      rd(),
      static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count()),
      static_cast<unsigned>(std::hash<std::thread::id>{}(std::this_thread::get_id())),
      static_cast<unsigned>(::getpid())};
  return std::mt19937_64(seq);
}

std::mt19937_64& Generator() {
  // One generator per thread: no locking. A forked child inherits its parent's state,
  // which would make both processes pick the same file names and transaction ids, so
  // the generator is reseeded whenever the process id changes.
  thread_local pid_t seeded_pid = ::getpid();
  thread_local std::mt19937_64 gen = Seeded();
  const pid_t pid = ::getpid();
  if (pid != seeded_pid) {
    seeded_pid = pid;
    gen = Seeded();
  }
  return gen;
}

std::array<uint8_t, 16> RandomUuidBytes() {
  std::array<uint8_t, 16> bytes;
  const uint64_t hi = RandomU64();
  const uint64_t lo = RandomU64();
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
    bytes[8 + i] = static_cast<uint8_t>(lo >> (56 - 8 * i));
  }
  bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0F) | 0x40);  // version 4
  bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3F) | 0x80);  // RFC 4122 variant
  return bytes;
}

constexpr char kHex[] = "0123456789abcdef";

}  // namespace

uint64_t RandomU64() { return Generator()(); }

std::string RandomUuid() {
  const auto bytes = RandomUuidBytes();
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 0xF]);
  }
  return out;
}

std::string NewDataFileName() {
  const auto bytes = RandomUuidBytes();
  std::string out;
  out.reserve(56);
  for (int i = 0; i < 3; ++i) {
    for (int bit = 7; bit >= 0; --bit) out.push_back(((bytes[i] >> bit) & 1) ? '1' : '0');
  }
  for (int i = 3; i < 16; ++i) {
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 0xF]);
  }
  out += ".lance";
  return out;
}

}  // namespace lance::table_internal

// SPDX-License-Identifier: Apache-2.0

#include "lance/core/logging.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "lance/core/enum_names.h"

namespace lance {

namespace log_internal {
std::atomic<int> g_threshold{-1};
}  // namespace log_internal

namespace {

// The sink is swapped rarely (tests) and read on every emitted message: a mutex-guarded
// shared_ptr copy keeps the sink alive while it is called outside the lock.
std::mutex& SinkMutex() {
  static std::mutex* mu = new std::mutex();  // never destroyed: logging may run at exit
  return *mu;
}
std::shared_ptr<const LogSink>& SinkSlot() {
  static auto* slot = new std::shared_ptr<const LogSink>();
  return *slot;
}

// Serialises stderr writes so lines of concurrent threads do not interleave.
std::mutex& StderrMutex() {
  static std::mutex* mu = new std::mutex();
  return *mu;
}

void WriteToStderr(LogLevel level, std::string_view component, std::string_view message) {
  std::string line = FormatLogLine(level, component, message);
  line += '\n';
  std::lock_guard<std::mutex> lock(StderrMutex());
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

constexpr auto kLogLevelNames =
    MakeEnumNames<LogLevel>("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF");
static_assert(kLogLevelNames.size() == EnumCount(LogLevel::kOff));

std::string_view LogLevelName(LogLevel level) { return kLogLevelNames.Name(level, "?"); }

std::optional<LogLevel> ParseLogLevel(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  std::string lower;
  lower.reserve(text.size());
  for (char c : text)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "trace") return LogLevel::kTrace;
  if (lower == "debug") return LogLevel::kDebug;
  if (lower == "info") return LogLevel::kInfo;
  if (lower == "warn" || lower == "warning") return LogLevel::kWarn;
  if (lower == "error") return LogLevel::kError;
  if (lower == "off" || lower == "none") return LogLevel::kOff;
  return std::nullopt;
}

LogLevel LogLevelFromEnvironment() {
  const char* value = std::getenv("LANCE_LOG");
  if (value == nullptr || *value == '\0') return LogLevel::kWarn;
  return ParseLogLevel(value).value_or(LogLevel::kWarn);
}

namespace log_internal {

int InitThresholdFromEnvironment() {
  const int from_env = static_cast<int>(LogLevelFromEnvironment());
  int expected = -1;
  // A concurrent SetLogLevel wins over the environment.
  if (g_threshold.compare_exchange_strong(expected, from_env,
                                          std::memory_order_relaxed)) {
    const char* value = std::getenv("LANCE_LOG");
    if (value != nullptr && *value != '\0' && !ParseLogLevel(value).has_value()) {
      // Said once, so a typo in LANCE_LOG does not silently hide the logs asked for.
      WriteToStderr(
          LogLevel::kWarn, "log",
          "LANCE_LOG='" + std::string(value) +
              "' is not a level (trace, debug, info, warn, error, off); using warn");
    }
    return from_env;
  }
  return expected;
}

}  // namespace log_internal

LogLevel GetLogLevel() {
  int threshold = log_internal::g_threshold.load(std::memory_order_relaxed);
  if (threshold < 0) threshold = log_internal::InitThresholdFromEnvironment();
  return static_cast<LogLevel>(threshold);
}

LogLevel SetLogLevel(LogLevel level) {
  const int previous = log_internal::g_threshold.exchange(static_cast<int>(level),
                                                          std::memory_order_relaxed);
  if (previous < 0) return LogLevelFromEnvironment();
  return static_cast<LogLevel>(previous);
}

std::shared_ptr<const LogSink> SetLogSink(std::shared_ptr<const LogSink> sink) {
  std::lock_guard<std::mutex> lock(SinkMutex());
  std::shared_ptr<const LogSink> previous = std::move(SinkSlot());
  SinkSlot() = std::move(sink);
  return previous;
}

std::string FormatLogLine(LogLevel level, std::string_view component,
                          std::string_view message) {
  std::string line = "lance ";
  line += LogLevelName(level);
  line += " [";
  line += component;
  line += "] ";
  line += message;
  return line;
}

void Log(LogLevel level, std::string_view component, std::string_view message) {
  if (!LogEnabled(level)) return;
  std::shared_ptr<const LogSink> sink;
  {
    std::lock_guard<std::mutex> lock(SinkMutex());
    sink = SinkSlot();
  }
  if (sink != nullptr && *sink) {
    (*sink)(level, component, message);
  } else {
    WriteToStderr(level, component, message);
  }
}

struct ScopedLogCapture::Store {
  mutable std::mutex mu;
  std::vector<std::pair<LogLevel, std::string>> lines;
};

ScopedLogCapture::ScopedLogCapture(LogLevel level) : store_(std::make_shared<Store>()) {
  std::shared_ptr<Store> store = store_;
  previous_sink_ = SetLogSink(std::make_shared<const LogSink>(
      [store](LogLevel lvl, std::string_view component, std::string_view message) {
        std::string line = FormatLogLine(lvl, component, message);
        std::lock_guard<std::mutex> lock(store->mu);
        store->lines.emplace_back(lvl, std::move(line));
      }));
  previous_level_ = SetLogLevel(level);
}

ScopedLogCapture::~ScopedLogCapture() {
  SetLogLevel(previous_level_);
  SetLogSink(std::move(previous_sink_));
}

std::vector<std::string> ScopedLogCapture::lines() const {
  std::lock_guard<std::mutex> lock(store_->mu);
  std::vector<std::string> out;
  out.reserve(store_->lines.size());
  for (const auto& entry : store_->lines) out.push_back(entry.second);
  return out;
}

size_t ScopedLogCapture::CountAtLevel(LogLevel level) const {
  std::lock_guard<std::mutex> lock(store_->mu);
  size_t n = 0;
  for (const auto& entry : store_->lines) n += entry.first == level ? 1 : 0;
  return n;
}

std::string ScopedLogCapture::Joined() const {
  std::string out;
  for (const auto& line : lines()) {
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace lance

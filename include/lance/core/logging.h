// SPDX-License-Identifier: Apache-2.0
/// \file logging.h
/// \brief A small logging facility: levels, a replaceable sink, a capture helper for tests.
///
///     LANCE_LOG(Debug, "s3") << "GET " << uri << ": HTTP " << status;
///
/// The stream expression is evaluated only when the level is enabled, so a disabled log
/// call costs one relaxed atomic load. Nothing here throws.
///
/// The level comes from the environment variable LANCE_LOG (trace, debug, info, warn,
/// error, off; case-insensitive), read once at the first log call; default warn. SetLogLevel
/// overrides it. The default sink writes one line per message to stderr:
///
///     lance DEBUG [s3] GET s3://bucket/key: HTTP 200 (attempt 1, ...)
///
/// Secrets: log only redacted forms (AwsCredentials::ToString, S3Options::ToString,
/// CredentialsSource::ToString, RefreshEvent::ToString). There is deliberately no
/// "redact this text" helper: scrubbing after the fact cannot know every secret, so the
/// rule is never to put one into a message in the first place.

#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace lance {

enum class LogLevel : int {
  kTrace = 0,
  kDebug = 1,
  kInfo = 2,
  kWarn = 3,
  kError = 4,
  kOff = 5,  ///< as a threshold: log nothing. Never the level of a message.
};

/// \brief "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF".
std::string_view LogLevelName(LogLevel level);

/// \brief Parses a level name: trace, debug, info, warn (or warning), error, off (or none);
/// case-insensitive, surrounding blanks ignored. \return nullopt for anything else.
std::optional<LogLevel> ParseLogLevel(std::string_view text);

/// \brief The level LANCE_LOG asks for (warn when unset, empty or not a level name).
LogLevel LogLevelFromEnvironment();

/// \brief The current threshold: messages below it are dropped.
LogLevel GetLogLevel();
/// \brief Sets the threshold (overrides LANCE_LOG). \return the previous one.
LogLevel SetLogLevel(LogLevel level);

namespace log_internal {
/// \brief The threshold as an int; -1 until the environment was read.
extern std::atomic<int> g_threshold;
int InitThresholdFromEnvironment();
}  // namespace log_internal

/// \brief True when a message of `level` would be emitted. Cheap: one relaxed load.
inline bool LogEnabled(LogLevel level) {
  int threshold = log_internal::g_threshold.load(std::memory_order_relaxed);
  if (threshold < 0) threshold = log_internal::InitThresholdFromEnvironment();
  return level != LogLevel::kOff && static_cast<int>(level) >= threshold;
}

/// \brief Receives every emitted message (level, component, message without newline).
/// Called concurrently from any thread; it must be thread-safe and must not log itself.
using LogSink =
    std::function<void(LogLevel level, std::string_view component, std::string_view message)>;

/// \brief Replaces the sink; null restores the default (stderr). \return the previous one
/// (null when it was the default). A message being emitted while the sink is replaced
/// goes to the old or the new sink, never to both or neither.
std::shared_ptr<const LogSink> SetLogSink(std::shared_ptr<const LogSink> sink);

/// \brief The line the default sink prints (without newline):
/// "lance <LEVEL> [<component>] <message>".
std::string FormatLogLine(LogLevel level, std::string_view component, std::string_view message);

/// \brief Emits a message if `level` is enabled. Prefer LANCE_LOG, which does not build
/// the message when the level is disabled.
void Log(LogLevel level, std::string_view component, std::string_view message);

/// \brief Emits the message built by `build` (called only when `level` is enabled).
template <typename Fn>
void LogWith(LogLevel level, std::string_view component, Fn&& build) {
  if (LogEnabled(level)) Log(level, component, build());
}

/// \brief Collects every message while alive (RAII, for tests): installs a sink that
/// stores the formatted lines and sets the threshold to `level`; the destructor restores
/// the previous sink and threshold. Captures nest (the innermost one collects).
/// Thread-safe: other threads may log while a capture is installed.
class ScopedLogCapture {
 public:
  explicit ScopedLogCapture(LogLevel level = LogLevel::kTrace);
  ~ScopedLogCapture();
  ScopedLogCapture(const ScopedLogCapture&) = delete;
  ScopedLogCapture& operator=(const ScopedLogCapture&) = delete;

  /// \brief The lines captured so far, as FormatLogLine prints them.
  std::vector<std::string> lines() const;
  /// \brief How many captured lines have exactly `level`.
  size_t CountAtLevel(LogLevel level) const;
  /// \brief All captured lines joined with '\n' (for failure messages).
  std::string Joined() const;

  struct Store;

 private:
  // Shared with the installed sink, so a late message from a thread that picked the sink
  // up just before the restore writes into live memory.
  std::shared_ptr<Store> store_;
  std::shared_ptr<const LogSink> previous_sink_;
  LogLevel previous_level_;
};

namespace log_internal {

/// \brief Accumulates one message and emits it when destroyed (the end of the LANCE_LOG
/// full expression).
class LogMessage {
 public:
  LogMessage(LogLevel level, std::string_view component) : level_(level), component_(component) {}
  ~LogMessage() { Log(level_, component_, stream_.str()); }
  LogMessage(const LogMessage&) = delete;
  LogMessage& operator=(const LogMessage&) = delete;
  std::ostringstream& stream() { return stream_; }

 private:
  LogLevel level_;
  std::string_view component_;
  std::ostringstream stream_;
};

}  // namespace log_internal
}  // namespace lance

/// \brief LANCE_LOG(Debug, "s3") << ...; level is one of Trace, Debug, Info, Warn, Error.
/// The operands after << are not evaluated when the level is disabled. The if/else shape
/// keeps the macro safe inside an unbraced if/else of the caller.
#define LANCE_LOG(level, component)                              \
  if (!::lance::LogEnabled(::lance::LogLevel::k##level)) {       \
  } else                                                         \
    ::lance::log_internal::LogMessage(::lance::LogLevel::k##level, (component)).stream()

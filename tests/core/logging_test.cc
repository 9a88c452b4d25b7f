// SPDX-License-Identifier: Apache-2.0

#include "lance/core/logging.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace lance {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Restores the threshold a test changes, so tests do not leak levels into each other.
class LoggingTest : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = GetLogLevel(); }
  void TearDown() override { SetLogLevel(saved_); }
  LogLevel saved_ = LogLevel::kWarn;
};

TEST_F(LoggingTest, ParsesLevelNames) {
  EXPECT_EQ(ParseLogLevel("trace"), LogLevel::kTrace);
  EXPECT_EQ(ParseLogLevel("DEBUG"), LogLevel::kDebug);
  EXPECT_EQ(ParseLogLevel(" Info "), LogLevel::kInfo);
  EXPECT_EQ(ParseLogLevel("warn"), LogLevel::kWarn);
  EXPECT_EQ(ParseLogLevel("warning"), LogLevel::kWarn);
  EXPECT_EQ(ParseLogLevel("error"), LogLevel::kError);
  EXPECT_EQ(ParseLogLevel("off"), LogLevel::kOff);
  EXPECT_EQ(ParseLogLevel("none"), LogLevel::kOff);
  EXPECT_EQ(ParseLogLevel(""), std::nullopt);
  EXPECT_EQ(ParseLogLevel("verbose"), std::nullopt);
  EXPECT_EQ(ParseLogLevel("3"), std::nullopt);
  EXPECT_EQ(LogLevelName(LogLevel::kDebug), "DEBUG");
  EXPECT_EQ(LogLevelName(LogLevel::kWarn), "WARN");
}

TEST_F(LoggingTest, LevelFromEnvironment) {
  const char* old = std::getenv("LANCE_LOG");
  const std::string saved_env = old == nullptr ? "" : old;

  ::unsetenv("LANCE_LOG");
  EXPECT_EQ(LogLevelFromEnvironment(), LogLevel::kWarn);
  ::setenv("LANCE_LOG", "debug", 1);
  EXPECT_EQ(LogLevelFromEnvironment(), LogLevel::kDebug);
  ::setenv("LANCE_LOG", "TRACE", 1);
  EXPECT_EQ(LogLevelFromEnvironment(), LogLevel::kTrace);
  ::setenv("LANCE_LOG", "off", 1);
  EXPECT_EQ(LogLevelFromEnvironment(), LogLevel::kOff);
  ::setenv("LANCE_LOG", "loud", 1);  // not a level: the default
  EXPECT_EQ(LogLevelFromEnvironment(), LogLevel::kWarn);
  ::setenv("LANCE_LOG", "", 1);
  EXPECT_EQ(LogLevelFromEnvironment(), LogLevel::kWarn);

  if (old == nullptr) {
    ::unsetenv("LANCE_LOG");
  } else {
    ::setenv("LANCE_LOG", saved_env.c_str(), 1);
  }
}

TEST_F(LoggingTest, ThresholdFiltersMessages) {
  ScopedLogCapture capture(LogLevel::kInfo);
  LANCE_LOG(Trace, "t") << "trace";
  LANCE_LOG(Debug, "t") << "debug";
  LANCE_LOG(Info, "t") << "info " << 1;
  LANCE_LOG(Warn, "t") << "warn";
  LANCE_LOG(Error, "t") << "error";
  EXPECT_THAT(capture.lines(), ElementsAre("lance INFO [t] info 1", "lance WARN [t] warn",
                                           "lance ERROR [t] error"));
  EXPECT_EQ(capture.CountAtLevel(LogLevel::kWarn), 1u);
  EXPECT_EQ(capture.CountAtLevel(LogLevel::kDebug), 0u);

  SetLogLevel(LogLevel::kOff);
  LANCE_LOG(Error, "t") << "dropped";
  EXPECT_EQ(capture.lines().size(), 3u);
}

TEST_F(LoggingTest, DisabledLevelDoesNotEvaluateTheMessage) {
  ScopedLogCapture capture(LogLevel::kWarn);
  int evaluated = 0;
  auto expensive = [&] {
    ++evaluated;
    return std::string("x");
  };
  LANCE_LOG(Debug, "t") << expensive();
  LogWith(LogLevel::kDebug, "t", expensive);
  EXPECT_EQ(evaluated, 0);
  LANCE_LOG(Warn, "t") << expensive();
  LogWith(LogLevel::kError, "t", expensive);
  EXPECT_EQ(evaluated, 2);
  EXPECT_EQ(capture.lines().size(), 2u);
}

TEST_F(LoggingTest, MacroIsSafeInUnbracedIfElse) {
  ScopedLogCapture capture(LogLevel::kTrace);
  bool took_else = false;
  const bool condition = false;
  if (condition)
    LANCE_LOG(Info, "t") << "then";
  else
    took_else = true;
  EXPECT_TRUE(took_else);
  EXPECT_TRUE(capture.lines().empty());
}

TEST_F(LoggingTest, CaptureRestoresPreviousSinkAndLevel) {
  SetLogLevel(LogLevel::kError);
  std::vector<std::string> outer_lines;
  std::mutex mu;
  auto previous = SetLogSink(std::make_shared<const LogSink>(
      [&](LogLevel level, std::string_view component, std::string_view message) {
        std::lock_guard<std::mutex> lock(mu);
        outer_lines.push_back(FormatLogLine(level, component, message));
      }));
  {
    ScopedLogCapture capture(LogLevel::kDebug);
    EXPECT_EQ(GetLogLevel(), LogLevel::kDebug);
    LANCE_LOG(Debug, "a") << "inside";
    {
      ScopedLogCapture inner(LogLevel::kTrace);
      LANCE_LOG(Trace, "b") << "innermost";
      EXPECT_THAT(inner.lines(), ElementsAre("lance TRACE [b] innermost"));
    }
    EXPECT_EQ(GetLogLevel(), LogLevel::kDebug);
    LANCE_LOG(Debug, "a") << "inside again";
    EXPECT_THAT(capture.lines(),
                ElementsAre("lance DEBUG [a] inside", "lance DEBUG [a] inside again"));
  }
  EXPECT_EQ(GetLogLevel(), LogLevel::kError);
  LANCE_LOG(Debug, "a") << "below threshold";
  LANCE_LOG(Error, "a") << "outer";
  EXPECT_THAT(outer_lines, ElementsAre("lance ERROR [a] outer"));
  SetLogSink(previous);
}

TEST_F(LoggingTest, ManyThreadsLogWhileCaptured) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 500;
  ScopedLogCapture capture(LogLevel::kDebug);
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &go] {
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < kPerThread; ++i) {
        LANCE_LOG(Debug, "thread") << "t" << t << " i" << i;
        LANCE_LOG(Trace, "thread") << "dropped";
      }
    });
  }
  go = true;
  for (auto& th : threads) th.join();
  const auto lines = capture.lines();
  ASSERT_EQ(lines.size(), static_cast<size_t>(kThreads * kPerThread));
  // Every line is whole (no interleaving) and each message arrived exactly once.
  std::set<std::string> unique(lines.begin(), lines.end());
  EXPECT_EQ(unique.size(), lines.size());
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(unique.count("lance DEBUG [thread] t" + std::to_string(t) + " i" +
                           std::to_string(kPerThread - 1)),
              1u);
  }
}

TEST_F(LoggingTest, CaptureInstalledAndRemovedWhileOtherThreadsLog) {
  // Threads log continuously while captures come and go: no crash, no lost sink, and
  // every line a capture holds is a whole line.
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&stop] {
      while (!stop.load()) LANCE_LOG(Info, "churn") << "message";
    });
  }
  auto previous_sink = SetLogSink(std::make_shared<const LogSink>(
      [](LogLevel, std::string_view, std::string_view) {}));
  SetLogLevel(LogLevel::kInfo);
  size_t captured = 0;
  for (int round = 0; round < 50; ++round) {
    ScopedLogCapture capture(LogLevel::kInfo);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    for (const auto& line : capture.lines()) {
      ASSERT_EQ(line, "lance INFO [churn] message");
      ++captured;
    }
  }
  stop = true;
  for (auto& th : threads) th.join();
  SetLogSink(previous_sink);
  EXPECT_GT(captured, 0u);
}

TEST_F(LoggingTest, FormatLine) {
  EXPECT_EQ(FormatLogLine(LogLevel::kWarn, "s3", "retrying"), "lance WARN [s3] retrying");
}

}  // namespace
}  // namespace lance

// SPDX-License-Identifier: Apache-2.0
// A one-line progress bar for long CLI work (`import`): rows, bytes read (and the share
// of the input when its size is known), rate and elapsed time, redrawn in place at most
// ten times a second. It is meant for a terminal: callers enable it only when the stream
// is one (IsTerminal) and --quiet is not given, so that nothing is drawn into pipes and
// files.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "lance/core/record_batch.h"

namespace lance::cli {

/// \brief Whether `f` is a terminal (isatty of its descriptor).
bool IsTerminal(std::FILE* f);

/// \brief "1.5 MB", "12.3 GB" (decimal units, as the benchmarks report).
std::string FormatBytes(double bytes);
/// \brief "0:07", "1:02:03".
std::string FormatElapsed(double seconds);

class ProgressBar {
 public:
  using Clock = std::chrono::steady_clock;
  /// \param out where to draw (stderr); nothing is drawn when `enabled` is false.
  /// \param total_bytes the input's size, or -1 when unknown (then no percentage).
  ProgressBar(std::FILE* out, bool enabled, std::string label, int64_t total_bytes);

  /// \brief Records the counts; redraws when 100 ms have passed since the last draw.
  void Update(int64_t rows, int64_t bytes);
  /// \brief Draws the final counts (once, if enabled) and ends the line.
  void Finish();

  /// \brief The line drawn for these counts after `seconds` (without "\r"), for tests.
  std::string Render(int64_t rows, int64_t bytes, double seconds) const;
  bool enabled() const { return enabled_; }
  int draws() const { return draws_; }

 private:
  void Draw(Clock::time_point now);

  std::FILE* out_;
  bool enabled_;
  std::string label_;
  int64_t total_bytes_;
  Clock::time_point start_;
  Clock::time_point last_draw_;
  int64_t rows_ = 0;
  int64_t bytes_ = 0;
  size_t last_width_ = 0;
  int draws_ = 0;
  bool finished_ = false;
};

/// \brief Passes the batches of `inner` through, counting rows and updating `bar` with
/// them and with `bytes_read()` after each batch.
class ProgressReader : public RecordBatchReader {
 public:
  ProgressReader(RecordBatchReader* inner, ProgressBar* bar,
                 std::function<int64_t()> bytes_read)
      : inner_(inner), bar_(bar), bytes_read_(std::move(bytes_read)) {}
  SchemaPtr schema() const override { return inner_->schema(); }
  Result<RecordBatchPtr> Next() override;
  int64_t rows() const { return rows_; }

 private:
  RecordBatchReader* inner_;
  ProgressBar* bar_;
  std::function<int64_t()> bytes_read_;
  int64_t rows_ = 0;
};

}  // namespace lance::cli

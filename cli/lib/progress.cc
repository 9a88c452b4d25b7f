// SPDX-License-Identifier: Apache-2.0
#include "lib/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <utility>

namespace lance::cli {

namespace {

constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

// 1234567 -> "1,234,567".
std::string GroupDigits(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return n < 0 ? "-" + out : out;
}

std::string Printf(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

}  // namespace

bool IsTerminal(std::FILE* f) { return f != nullptr && ::isatty(::fileno(f)) == 1; }

std::string FormatBytes(double bytes) {
  static const char* const kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int unit = 0;
  while (bytes >= 1000.0 && unit < 5) {
    bytes /= 1000.0;
    ++unit;
  }
  if (unit == 0) return Printf("%.0f", bytes) + " B";
  return Printf("%.1f", bytes) + " " + kUnits[unit];
}

std::string FormatElapsed(double seconds) {
  const auto total = static_cast<int64_t>(seconds);
  char buf[48];
  if (total >= 3600) {
    std::snprintf(buf, sizeof(buf), "%" PRId64 ":%02d:%02d", total / 3600,
                  static_cast<int>(total / 60 % 60), static_cast<int>(total % 60));
  } else {
    std::snprintf(buf, sizeof(buf), "%d:%02d", static_cast<int>(total / 60),
                  static_cast<int>(total % 60));
  }
  return buf;
}

ProgressBar::ProgressBar(std::FILE* out, bool enabled, std::string label,
                         int64_t total_bytes)
    : out_(out),
      enabled_(enabled && out != nullptr),
      label_(std::move(label)),
      total_bytes_(total_bytes),
      start_(Clock::now()),
      last_draw_(start_) {}

std::string ProgressBar::Render(int64_t rows, int64_t bytes, double seconds) const {
  std::string line = label_ + " ";
  if (total_bytes_ > 0) {
    const double share =
        std::min(1.0, static_cast<double>(bytes) / static_cast<double>(total_bytes_));
    constexpr int kWidth = 20;
    const int filled = static_cast<int>(share * kWidth);
    line += "[" + std::string(static_cast<size_t>(filled), '#') +
            std::string(static_cast<size_t>(kWidth - filled), '.') + "] " +
            Printf("%3.0f", share * 100.0) + "% ";
  }
  line += GroupDigits(rows) + (rows == 1 ? " row, " : " rows, ") +
          FormatBytes(static_cast<double>(bytes));
  if (total_bytes_ > 0) line += " / " + FormatBytes(static_cast<double>(total_bytes_));
  if (seconds > 0) {
    line += ", " + FormatBytes(static_cast<double>(bytes) / seconds) + "/s";
  }
  line += ", " + FormatElapsed(seconds);
  return line;
}

void ProgressBar::Draw(Clock::time_point now) {
  const double seconds = std::chrono::duration<double>(now - start_).count();
  std::string line = Render(rows_, bytes_, seconds);
  const size_t width = line.size();
  // Blank out what a longer previous line left behind.
  if (width < last_width_) line.append(last_width_ - width, ' ');
  std::fprintf(out_, "\r%s", line.c_str());
  std::fflush(out_);
  last_width_ = width;
  last_draw_ = now;
  ++draws_;
}

void ProgressBar::Update(int64_t rows, int64_t bytes) {
  rows_ = rows;
  bytes_ = bytes;
  if (!enabled_ || finished_) return;
  const auto now = Clock::now();
  if (now - last_draw_ >= kRedrawInterval) Draw(now);
}

void ProgressBar::Finish() {
  if (!enabled_ || finished_) return;
  finished_ = true;
  Draw(Clock::now());
  std::fputc('\n', out_);
  std::fflush(out_);
}

Result<RecordBatchPtr> ProgressReader::Next() {
  auto batch = inner_->Next();
  if (batch.ok() && *batch != nullptr) rows_ += (*batch)->num_rows();
  bar_->Update(rows_, bytes_read_());
  return batch;
}

}  // namespace lance::cli

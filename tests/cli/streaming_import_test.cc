// SPDX-License-Identifier: Apache-2.0
// Import read in chunks: records and lines that straddle chunk ends, schema inference
// from a prefix that is read again, and the progress bar's text.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "lib/csv.h"
#include "lib/importer.h"
#include "lib/input_source.h"
#include "lib/progress.h"
#include "lib/value_format.h"
#include "tests/testing/matchers.h"

namespace lance::cli {
namespace {

using ::lance::testing::IsErrorWith;

// Import options for `format` that infer the types from the first `infer_rows` rows.
ImportOptions Sampling(InputFormat format, int64_t infer_rows) {
  ImportOptions options;
  options.format = format;
  options.infer_rows = infer_rows;
  return options;
}

// Hands out at most `step` bytes per Read, so that every record and line crosses reads.
class TrickleSource : public ByteSource {
 public:
  TrickleSource(std::string text, size_t step) : text_(std::move(text)), step_(step) {}
  Result<size_t> Read(char* out, size_t n) override {
    const size_t k = std::min({n, step_, text_.size() - pos_});
    std::copy_n(text_.data() + pos_, k, out);
    pos_ += k;
    ++reads_;
    return k;
  }
  int reads() const { return reads_; }

 private:
  std::string text_;
  size_t step_;
  size_t pos_ = 0;
  int reads_ = 0;
};

// Every record with its line and fields, as "line:[f|"q"|...]" text.
std::string Records(CsvReader* csv) {
  std::string out;
  CsvRecord record;
  while (true) {
    auto has = csv->Next(&record);
    if (!has.ok()) return out + "ERROR " + has.status().message();
    if (!*has) return out;
    out += std::to_string(record.line) + ":[";
    for (const auto& f : record.fields) {
      out += f.quoted ? "\"" + f.text + "\"|" : f.text + "|";
    }
    out += "]\n";
  }
}

const std::vector<std::string>& CsvInputs() {
  static const std::vector<std::string> inputs = {
      "a,b\n1,2\n",
      "\xEF\xBB\xBF"
      "a,b\r\n1,2\r\n\r\n3,4",
      "a,b\n\"x,\ny\",\"say \"\"hi\"\"\"\n\n\n\"\",\n",
      "a\r\n\"q\"\r\nlast",
      "a,b\n1,\r\n,\n",
      "a,b\n\"unterminated,2\n",
      "a,b\n\"x\"y,2\n",
      "a,b\n1,2\n\r",
      "h\n" + std::string(3000, 'z') + "\n\"" + std::string(2500, ',') + "\"\n",
  };
  return inputs;
}

TEST(StreamingCsv, SameRecordsWhateverTheChunks) {
  for (const std::string& text : CsvInputs()) {
    CsvReader whole(text);
    const std::string expected = Records(&whole);
    for (size_t step : {1, 2, 3, 7, 64, 1 << 20}) {
      TrickleSource source(text, step);
      CsvReader streamed(&source);
      EXPECT_EQ(Records(&streamed), expected) << "step " << step << " input " << text;
    }
  }
}

TEST(StreamingLines, LinesAndNumbersAcrossChunks) {
  const std::string text =
      "\xEF\xBB\xBF{\"a\":1}\r\n\n  \n{\"a\":2}\n" + std::string(5000, ' ') + "{\"a\":3}";
  for (size_t step : {1, 2, 5, 4096, 1 << 20}) {
    TrickleSource source(text, step);
    LineReader lines(&source);
    std::string_view line;
    int64_t number = 0;
    std::vector<std::string> got;
    while (true) {
      ASSERT_OK_AND_ASSIGN(auto more, lines.Next(&line, &number));
      if (!more) break;
      got.push_back(std::to_string(number) + " " + std::string(line));
    }
    EXPECT_EQ(got,
              (std::vector<std::string>{"1 {\"a\":1}", "4 {\"a\":2}",
                                        "5 " + std::string(5000, ' ') + "{\"a\":3}"}))
        << "step " << step;
  }
}

TEST(ReplaySource, ReadsThePrefixAgainThenContinues) {
  StringSource inner("abcdefgh");
  ReplaySource replay(&inner);
  char buf[8];
  ASSERT_OK_AND_ASSIGN(auto n, replay.Read(buf, 3));
  EXPECT_EQ(std::string(buf, n), "abc");
  EXPECT_EQ(replay.recorded(), 3U);
  replay.Rewind();
  std::string all;
  while (true) {
    ASSERT_OK_AND_ASSIGN(n, replay.Read(buf, 2));
    if (n == 0) break;
    all.append(buf, n);
  }
  EXPECT_EQ(all, "abcdefgh");
}

std::string CsvRows(int n, int bad_at, const std::string& bad) {
  std::string text = "id,v\n";
  for (int i = 1; i <= n; ++i) {
    text += std::to_string(i) + "," + (i == bad_at ? bad : std::to_string(i * 2)) + "\n";
  }
  return text;
}

TEST(StreamingImport, InfersFromThePrefixAndConvertsEverything) {
  ImportOptions options = Sampling(InputFormat::kCsv, 3);
  options.batch_rows = 4;
  TrickleSource source(CsvRows(10, 0, ""), 5);
  ASSERT_OK_AND_ASSIGN(auto reader, ImportReader::Make(&source, options));
  EXPECT_EQ(reader->rows_sampled(), 3);
  EXPECT_EQ(reader->schema()->field(1)->type()->ToString(), "int64");
  ASSERT_OK_AND_ASSIGN(auto table, reader->ToTable());
  EXPECT_EQ(table->num_rows(), 10);
  EXPECT_EQ(reader->rows_read(), 10);
  std::string last;
  const auto& batch = table->batches().back();
  AppendJsonRow(*batch, batch->num_rows() - 1, &last);
  EXPECT_EQ(last, "{\"id\":10,\"v\":20}");
}

TEST(StreamingImport, ARowPastTheSampleThatDoesNotFitNamesLineAndSample) {
  ImportOptions options = Sampling(InputFormat::kCsv, 3);
  // Row 6 is on line 7 (the header is line 1).
  TrickleSource source(CsvRows(8, 6, "2.5"), 3);
  ASSERT_OK_AND_ASSIGN(auto reader, ImportReader::Make(&source, options));
  EXPECT_THAT(reader->ToTable(), IsErrorWith(StatusCode::kInvalid, "line 7, column 'v'"));
  TrickleSource again(CsvRows(8, 6, "2.5"), 3);
  ASSERT_OK_AND_ASSIGN(reader, ImportReader::Make(&again, options));
  EXPECT_THAT(
      reader->ToTable(),
      IsErrorWith(StatusCode::kInvalid, "inferred from the first 3 rows, up to line 4"));
  // Within the sample, the types are widened as before: no error.
  options.infer_rows = 10;
  TrickleSource all(CsvRows(8, 6, "2.5"), 3);
  ASSERT_OK_AND_ASSIGN(reader, ImportReader::Make(&all, options));
  EXPECT_EQ(reader->schema()->field(1)->type()->ToString(), "double");
  ASSERT_OK_AND_ASSIGN(auto table, reader->ToTable());
  EXPECT_EQ(table->num_rows(), 8);
}

TEST(StreamingImport, JsonKeyPastTheSampleIsNamed) {
  ImportOptions options = Sampling(InputFormat::kJsonLines, 2);
  TrickleSource source("{\"a\": 1}\n{\"a\": 2}\n\n{\"a\": 3, \"b\": true}\n", 4);
  ASSERT_OK_AND_ASSIGN(auto reader, ImportReader::Make(&source, options));
  EXPECT_THAT(reader->ToTable(),
              IsErrorWith(StatusCode::kInvalid,
                          "line 4: column \"b\" is not in the schema (the types were "
                          "inferred from the first 2 rows, up to line 2"));
}

TEST(StreamingImport, ByteLimitEndsTheSampleAfterAWholeRow) {
  ImportOptions options = Sampling(InputFormat::kJsonLines, 0);
  options.infer_bytes = 10;  // reached by the first read of the chunked reader
  std::string text;
  for (int i = 0; i < 50; ++i) text += "{\"a\": " + std::to_string(i) + "}\n";
  TrickleSource source(text, 1 << 20);
  ASSERT_OK_AND_ASSIGN(auto reader, ImportReader::Make(&source, options));
  EXPECT_EQ(reader->rows_sampled(), 1);
  ASSERT_OK_AND_ASSIGN(auto table, reader->ToTable());
  EXPECT_EQ(table->num_rows(), 50);
}

TEST(StreamingImport, WideRowsEndBatchesByBytes) {
  ImportOptions options;
  options.format = InputFormat::kCsv;
  options.batch_rows = 1000;
  options.batch_bytes = 250;  // each row is 101 bytes of text: 3 rows per batch
  std::string text = "s\n";
  for (int i = 0; i < 10; ++i)
    text += std::string(100, static_cast<char>('a' + i)) + "\n";
  ASSERT_OK_AND_ASSIGN(auto reader, ImportReader::Make(text, options));
  std::vector<int64_t> sizes;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
    if (batch == nullptr) break;
    sizes.push_back(batch->num_rows());
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{3, 3, 3, 1}));
}

TEST(ProgressBar, RendersRowsBytesShareRateAndElapsed) {
  ProgressBar known(nullptr, false, "importing", 2'000'000);
  EXPECT_EQ(known.Render(1'234'567, 1'000'000, 2.0),
            "importing [##########..........]  50% 1,234,567 rows, 1.0 MB / 2.0 MB, "
            "500.0 kB/s, 0:02");
  ProgressBar unknown(nullptr, false, "importing", -1);
  EXPECT_EQ(unknown.Render(1, 999, 3725.0), "importing 1 row, 999 B, 0 B/s, 1:02:05");
  EXPECT_EQ(FormatBytes(1.5e9), "1.5 GB");
}

TEST(ProgressBar, DisabledDrawsNothingAndFinishDrawsOnce) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    ProgressBar off(f, false, "importing", -1);
    off.Update(10, 100);
    off.Finish();
    EXPECT_EQ(off.draws(), 0);
  }
  ProgressBar on(f, true, "importing", -1);
  on.Update(10, 100);  // within the first 100 ms: not drawn
  on.Finish();
  on.Finish();
  EXPECT_EQ(on.draws(), 1);
  std::rewind(f);
  char buf[256] = {};
  const size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  const std::string text(buf, n);
  EXPECT_EQ(text.substr(0, 1), "\r");
  EXPECT_NE(text.find("10 rows, 100 B"), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
}

}  // namespace
}  // namespace lance::cli

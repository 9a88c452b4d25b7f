// SPDX-License-Identifier: Apache-2.0
// The bodies of the libFuzzer targets (tests/fuzz/<name>_fuzz.cc), one function per
// target over bytes in memory. The libFuzzer mains and the corpus replay gtest
// (corpus_replay_test.cc, run under ASan+UBSan by the gcc sanitizer build) call the same
// functions, so every corpus and regression input is replayed in both worlds.
//
// Each function drives the real parsing entry points of one area (never disk, never the
// network) and returns the first error Status it met (OK when the input parsed). A bad
// input must come back as an error Status: a crash, a sanitizer report, a leak or a
// hang is the bug. Several targets use the first input byte to pick the parser.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/record_batch.h"
#include "lance/result.h"
#include "lance/status.h"

namespace lance::table {
class Manifest;  // table/proto/table.pb.h
}  // namespace lance::table

namespace lance::fuzz {

/// \brief Adds a top-level field (parent -1) to a hand-made manifest's schema: the
/// manifests of the transaction entry and of the lying-length tests.
void AddTopLevelField(table::Manifest* manifest, const std::string& name, int32_t id,
                      const std::string& logical_type, bool nullable);

/// Reports a broken invariant (say, a round trip that changes a value) and aborts, so
/// that libFuzzer and the replay test both see it as a crash.
[[noreturn]] void InvariantFailed(const char* file, int line, std::string_view what);
#define FUZZ_CHECK(cond, what)                                               \
  do {                                                                       \
    if (!(cond)) ::lance::fuzz::InvariantFailed(__FILE__, __LINE__, (what)); \
  } while (false)

/// A whole manifest file (footer, magic, protobuf, index section and inline transaction),
/// then the schema and fragments it describes.
Status FuzzManifest(std::string_view data);
/// A transaction file (.txn protobuf), then applied to a small manifest and checked for
/// conflicts against itself.
Status FuzzTransaction(std::string_view data);
/// A deletion file: byte 0 picks the Arrow IPC (.arrow) or Roaring bitmap (.bin) form.
Status FuzzDeletion(std::string_view data);
/// A Lance data file of any version, opened from a memory object store; schema, all
/// columns and a few rows by Take.
Status FuzzLanceFile(std::string_view data);
/// Arrow IPC: byte 0 picks the file ("ARROW1") or stream format.
Status FuzzArrowIpc(std::string_view data);
/// S3 / STS XML answers: byte 0 picks ListObjectsV2, an error body, DeleteObjects,
/// the multipart answers, AssumeRole, or the header parsers.
Status FuzzS3Xml(std::string_view data);
/// Namespace JSON: REST request and response bodies through the json codec, and the
/// `__manifest` metadata column.
Status FuzzNamespaceJson(std::string_view data);
/// FragmentMetadata JSON (pylance's `FragmentMetadata.to_json()` shape).
Status FuzzFragmentJson(std::string_view data);
/// CLI inputs: CSV and JSON lines (inference and import), JSON values, schema files and
/// type strings.
Status FuzzCliInput(std::string_view data);
/// Filter expressions: parsed against a fixed schema and evaluated on a small batch.
Status FuzzPredicate(std::string_view data);
/// The REST server's request handling: method, target, authentication headers and body
/// through the socket-free request handler over a namespace in memory.
Status FuzzRestRequest(std::string_view data);

/// Checks what a reader hands out from untrusted bytes: every column of `batch` passes
/// Array::Validate (the accessors do not bounds-check) and has the batch's length.
/// Aborts otherwise (FUZZ_CHECK).
void CheckBatch(const RecordBatch& batch);

/// Reads `reader` (anything with `Result<std::shared_ptr<RecordBatch>> Next()`, null at
/// the end) to its end, checking every batch; the first error is returned.
template <typename Reader>
Status DrainChecked(Reader& reader) {
  while (true) {
    auto batch = reader.Next();
    if (!batch.ok()) return batch.status();
    if (!*batch) return Status::OK();
    CheckBatch(**batch);
  }
}

/// What byte 0 of an input picks, for the targets that fuzz several parsers: `mode` (the
/// byte modulo the number of parsers) and `rest`, the input after it.
struct Picked {
  int mode;
  std::string_view rest;
};

/// Splits `data` for a target of `modes` parsers; an empty input is an error.
inline Result<Picked> PickParser(std::string_view data, int modes) {
  if (data.empty()) return Status::Invalid("empty input");
  return Picked{static_cast<uint8_t>(data[0]) % modes, data.substr(1)};
}

struct FuzzTarget {
  /// The folder under tests/fuzz/corpus and tests/fuzz/regressions, the binary
  /// <name>_fuzz.
  const char* name;
  Status (*fn)(std::string_view);
};

/// Every target, in a fixed order.
const std::vector<FuzzTarget>& AllFuzzTargets();

}  // namespace lance::fuzz

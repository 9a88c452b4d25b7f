// SPDX-License-Identifier: Apache-2.0
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_entries.h"

namespace lance::fuzz {

void InvariantFailed(const char* file, int line, std::string_view what) {
  std::fprintf(stderr, "%s:%d: fuzz invariant failed: %.*s\n", file, line,
               static_cast<int>(what.size()), what.data());
  std::abort();
}

void CheckBatch(const RecordBatch& batch) {
  for (int i = 0; i < batch.num_columns(); ++i) {
    const ArrayPtr& column = batch.column(i);
    FUZZ_CHECK(column->length() == batch.num_rows(), "a column has another length");
    Status st = column->Validate();
    // Values a damaged file may carry (bytes that are not UTF-8, a date64 that is not a
    // whole day) are passed through: no accessor trusts them. The structure (buffer
    // sizes, offsets) must hold.
    const bool structural = st.message().find("buffer") != std::string::npos ||
                            st.message().find("offset") != std::string::npos;
    FUZZ_CHECK(st.ok() || !structural,
               "a decoded column does not validate: " + st.ToString());
  }
}

const std::vector<FuzzTarget>& AllFuzzTargets() {
  static const std::vector<FuzzTarget> targets = {
      {"manifest", FuzzManifest},
      {"transaction", FuzzTransaction},
      {"deletion", FuzzDeletion},
      {"lance_file", FuzzLanceFile},
      {"arrow_ipc", FuzzArrowIpc},
      {"s3_xml", FuzzS3Xml},
      {"namespace_json", FuzzNamespaceJson},
      {"fragment_json", FuzzFragmentJson},
      {"cli_input", FuzzCliInput},
      {"predicate", FuzzPredicate},
      {"rest_request", FuzzRestRequest},
  };
  return targets;
}

}  // namespace lance::fuzz

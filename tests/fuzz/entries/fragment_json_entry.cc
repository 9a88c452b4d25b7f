// SPDX-License-Identifier: Apache-2.0
// FragmentMetadata JSON (pylance's `FragmentMetadata.to_json()` shape, what
// write_fragments hands to a commit): a fragment that reads is written back and must
// read again to the same value.
#include <string>

#include "fuzz/fuzz_entries.h"
#include "lance/dataset/fragment.h"

namespace lance::fuzz {

Status FuzzFragmentJson(std::string_view data) {
  auto fragment = FragmentMetadata::FromJson(std::string(data));
  if (!fragment.ok()) return fragment.status();
  (void)fragment->num_rows();
  auto again = FragmentMetadata::FromJson(fragment->ToJson());
  FUZZ_CHECK(again.ok(),
             "ToJson output does not read back: " + again.status().ToString());
  FUZZ_CHECK(*again == *fragment, "a fragment changed in a JSON round trip");
  return Status::OK();
}

}  // namespace lance::fuzz

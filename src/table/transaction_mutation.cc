// SPDX-License-Identifier: Apache-2.0
// Manifest building and conflict rules of the mutation operations (see transaction.h).
#include "table/transaction.h"

namespace lance::table_internal {

Status ApplyMutation(const pb::Transaction& txn, pb::Manifest* /*m*/) {
  return Status::NotImplemented("lance-cpp cannot apply this transaction (",
                                OperationName(txn), ") yet");
}

Status CheckMutationConflict(const pb::Transaction& mine, const pb::Transaction& theirs,
                             uint64_t their_version, std::string_view uri) {
  return ConflictError(mine, theirs, their_version, uri, "", false);
}

}  // namespace lance::table_internal

// SPDX-License-Identifier: Apache-2.0
// Manifest building and conflict rules of the maintenance operations (see transaction.h).
#include "table/transaction.h"

namespace lance::table_internal {

Status ApplyMaintenance(const pb::Transaction& txn, pb::Manifest* /*m*/) {
  return Status::NotImplemented("lance-cpp cannot apply this transaction (",
                                OperationName(txn), ") yet");
}

Status CheckMaintenanceConflict(const pb::Transaction& mine,
                                const pb::Transaction& theirs, uint64_t their_version,
                                std::string_view uri) {
  return ConflictError(mine, theirs, their_version, uri, "", false);
}

}  // namespace lance::table_internal

// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER: replaced by the S3ObjectStore implementation.
#include "lance/io/s3_object_store.h"
#include "lance/macros.h"

namespace lance::io {
Status RegisterS3ObjectStore(ObjectStoreRegistry* registry) {
  ObjectStoreFactory f = [](const Uri& root, const StorageOptions&,
                            const std::shared_ptr<CredentialsSource>&)
      -> Result<std::shared_ptr<ObjectStore>> {
    return Status::NotImplemented("s3 store placeholder: " + root.ToString());
  };
  LANCE_RETURN_NOT_OK(registry->Register("s3", f, true));
  return registry->Register("s3a", f, true);
}
}  // namespace lance::io

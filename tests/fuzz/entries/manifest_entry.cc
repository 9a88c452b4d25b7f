// SPDX-License-Identifier: Apache-2.0
// Manifest files: ParseManifestFile (footer, magic, offsets, protobuf, index section and
// inline transaction), then what opening a dataset does with the result
// (MakeDatasetImpl: reader flags, schema, fragments), and the fragment JSON of each.
#include <memory>
#include <string>

#include "dataset/dataset_internal.h"
#include "dataset/fragment_internal.h"
#include "fuzz/fuzz_entries.h"
#include "lance/dataset/fragment.h"
#include "lance/io/memory_object_store.h"
#include "table/deletion.h"
#include "table/manifest.h"
#include "table/proto/transaction.pb.h"
#include "table/transaction.h"

namespace lance::fuzz {

namespace ti = lance::table_internal;

Status FuzzManifest(std::string_view data) {
  auto loaded = ti::ParseManifestFile(data, "fuzz/_versions/1.manifest");
  if (!loaded.ok()) return loaded.status();
  if (loaded->transaction_section) {
    table::Transaction txn;
    if (!txn.ParseFromString(*loaded->transaction_section)) {
      return Status::Corrupt("inline transaction does not parse");
    }
    (void)ti::OperationName(txn);
  }
  const table::Manifest manifest = loaded->manifest;
  auto store = std::make_shared<io::MemoryObjectStore>("fuzz");
  ti::DatasetDir dir(store, "ds");
  auto impl = ti::MakeDatasetImpl("memory://fuzz/ds", {}, dir, std::move(*loaded));
  if (!impl.ok()) return impl.status();
  for (const table::DataFragment& frag : manifest.fragments()) {
    if (frag.has_deletion_file()) {
      (void)ti::DeletionFileRelativePath(frag.id(), frag.deletion_file());
    }
    FragmentMetadata meta = ti::FragmentFromProto(frag);
    (void)meta.num_rows();
    std::string json = meta.ToJson();
    auto back = FragmentMetadata::FromJson(json);
    if (back.ok()) (void)ti::FragmentToProto(*back);
  }
  return Status::OK();
}

}  // namespace lance::fuzz

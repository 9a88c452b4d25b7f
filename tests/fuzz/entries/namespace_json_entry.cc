// SPDX-License-Identifier: Apache-2.0
// Namespace JSON. Byte 0 picks a REST request or response model, read from the rest with
// the json codec the REST client and server share (json_codec::Parse); a model that
// reads is written back and must read again to the same JSON. The last choice is the
// `__manifest` metadata column of a directory namespace (PropertiesFromJson).
#include <iterator>
#include <optional>
#include <string>

#include "fuzz/fuzz_entries.h"
#include "lance/macros.h"
#include "namespace/json_codec_internal.h"
#include "namespace/manifest_table.h"

namespace lance::fuzz {

namespace {

namespace codec = lance::ns::json_codec;

template <typename T>
Status ReadModel(std::string_view body) {
  auto value = codec::Parse<T>(body, "fuzz body");
  if (!value.ok()) return value.status();
  const codec::Json written = codec::ToJson(*value);
  const std::string text = written.dump();
  auto again = codec::Parse<T>(text, "fuzz body (written back)");
  FUZZ_CHECK(again.ok(),
             "a model the codec wrote does not read back: " + again.status().ToString());
  FUZZ_CHECK(codec::ToJson(*again) == written, "a model changed in a JSON round trip");
  return Status::OK();
}

// The `__manifest` metadata column of a directory namespace: read, written back (when
// there is anything to write) and read again to the same properties.
Status ReadProperties(std::string_view body) {
  auto props = ns::internal::PropertiesFromJson(std::string(body), "a$b");
  if (!props.ok()) return props.status();
  auto text = ns::internal::PropertiesToJson(*props);
  if (!text.ok()) return text.status();
  if (*text) {
    auto again = ns::internal::PropertiesFromJson(*text, "a$b");
    FUZZ_CHECK(again.ok() && *again == *props, "properties changed in a round trip");
  }
  return Status::OK();
}

}  // namespace

Status FuzzNamespaceJson(std::string_view data) {
  // Byte 0 picks the reader; the order is that of the corpus inputs, keep it.
  static constexpr Status (*kReaders[])(std::string_view) = {
      &ReadModel<ns::ListNamespacesRequest>,
      &ReadModel<ns::ListNamespacesResponse>,
      &ReadModel<ns::CreateNamespaceRequest>,
      &ReadModel<ns::DescribeNamespaceResponse>,
      &ReadModel<ns::ListTablesResponse>,
      &ReadModel<ns::DescribeTableRequest>,
      &ReadModel<ns::DescribeTableResponse>,
      &ReadModel<ns::DeclareTableRequest>,
      &ReadModel<ns::RegisterTableRequest>,
      &ReadModel<ns::CreateTableResponse>,
      &ReadModel<ns::MergeInsertIntoTableRequest>,
      &ReadModel<ns::QueryTableRequest>,
      &ReadModel<ns::AlterTableAddColumnsRequest>,
      &ReadModel<ns::AlterTableAlterColumnsRequest>,
      &ReadModel<ns::GetTableStatsResponse>,
      &ReadModel<ns::ListTableVersionsResponse>,
      &ReadModel<ns::ListTableTagsResponse>,
      &ReadModel<ns::DescribeTransactionResponse>,
      &ReadModel<ns::UpdateTableRequest>,
      &ReadProperties,
  };
  LANCE_ASSIGN_OR_RAISE(const Picked picked,
                        PickParser(data, static_cast<int>(std::size(kReaders))));
  return kReaders[picked.mode](picked.rest);
}

}  // namespace lance::fuzz

// SPDX-License-Identifier: Apache-2.0
// Namespace JSON. Byte 0 picks a REST request or response model, read from the rest with
// the json codec the REST client and server share (json_codec::Parse); a model that
// reads is written back and must read again to the same JSON. The last choice is the
// `__manifest` metadata column of a directory namespace (PropertiesFromJson).
#include <optional>
#include <string>

#include "fuzz/fuzz_entries.h"
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

}  // namespace

Status FuzzNamespaceJson(std::string_view data) {
  if (data.empty()) return Status::Invalid("empty input");
  const std::string_view body = data.substr(1);
  switch (static_cast<uint8_t>(data[0]) % 20) {
    case 0:
      return ReadModel<ns::ListNamespacesRequest>(body);
    case 1:
      return ReadModel<ns::ListNamespacesResponse>(body);
    case 2:
      return ReadModel<ns::CreateNamespaceRequest>(body);
    case 3:
      return ReadModel<ns::DescribeNamespaceResponse>(body);
    case 4:
      return ReadModel<ns::ListTablesResponse>(body);
    case 5:
      return ReadModel<ns::DescribeTableRequest>(body);
    case 6:
      return ReadModel<ns::DescribeTableResponse>(body);
    case 7:
      return ReadModel<ns::DeclareTableRequest>(body);
    case 8:
      return ReadModel<ns::RegisterTableRequest>(body);
    case 9:
      return ReadModel<ns::CreateTableResponse>(body);
    case 10:
      return ReadModel<ns::MergeInsertIntoTableRequest>(body);
    case 11:
      return ReadModel<ns::QueryTableRequest>(body);
    case 12:
      return ReadModel<ns::AlterTableAddColumnsRequest>(body);
    case 13:
      return ReadModel<ns::AlterTableAlterColumnsRequest>(body);
    case 14:
      return ReadModel<ns::GetTableStatsResponse>(body);
    case 15:
      return ReadModel<ns::ListTableVersionsResponse>(body);
    case 16:
      return ReadModel<ns::ListTableTagsResponse>(body);
    case 17:
      return ReadModel<ns::DescribeTransactionResponse>(body);
    case 18:
      return ReadModel<ns::UpdateTableRequest>(body);
    default: {
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
  }
}

}  // namespace lance::fuzz

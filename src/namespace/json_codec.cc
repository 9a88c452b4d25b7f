// SPDX-License-Identifier: Apache-2.0
#include "lance/namespace/json_codec.h"

#include <string>

namespace lance::ns::json_codec::internal {

std::string_view JsonTypeName(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "number";
    case Json::value_t::string:
      return "string";
    case Json::value_t::array:
      return "array";
    case Json::value_t::object:
      return "object";
    default:
      return "value";
  }
}

Status TypeError(std::string_view what, const std::string& path,
                 std::string_view expected, const Json& got) {
  std::string message(what);
  message += ": ";
  message += path.empty() ? std::string("body") : "field '" + path + "'";
  message += ": expected ";
  message += expected;
  message += ", got ";
  message += JsonTypeName(got);
  return NamespaceError(ErrorCode::kInvalidInput, message);
}

}  // namespace lance::ns::json_codec::internal

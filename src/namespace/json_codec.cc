// SPDX-License-Identifier: Apache-2.0
#include "lance/namespace/json_codec.h"

#include <string>

#include "lance/namespace/operations.h"
#include "namespace/json_codec_internal.h"

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

namespace lance::ns::json_codec {

// The public codec (json_codec.h) for every model of the operation table: each request,
// and each JSON response. Nested models travel inside these.
#define LANCE_NS_OPERATION(Method, wire, Body, Reply, ...)                   \
  template Result<Method##Request> Parse<Method##Request>(std::string_view,  \
                                                          std::string_view); \
  template std::string Dump<Method##Request>(const Method##Request&);        \
  LANCE_NS_CODEC_RESPONSE_##Reply(Method)
#define LANCE_NS_CODEC_RESPONSE_Model(Method)                                  \
  template Result<Method##Response> Parse<Method##Response>(std::string_view,  \
                                                            std::string_view); \
  template std::string Dump<Method##Response>(const Method##Response&);
#define LANCE_NS_CODEC_RESPONSE_Status(Method)
#define LANCE_NS_CODEC_RESPONSE_Count(Method)
#define LANCE_NS_CODEC_RESPONSE_Arrow(Method)
#include "lance/namespace/operations.def"
#undef LANCE_NS_CODEC_RESPONSE_Arrow
#undef LANCE_NS_CODEC_RESPONSE_Count
#undef LANCE_NS_CODEC_RESPONSE_Status
#undef LANCE_NS_CODEC_RESPONSE_Model
#undef LANCE_NS_OPERATION

}  // namespace lance::ns::json_codec

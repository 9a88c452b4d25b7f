// SPDX-License-Identifier: Apache-2.0
/// \file json_codec.h
/// \brief The namespace models <-> JSON text: the one codec of the REST client
/// (RestNamespace), the REST server (server::RestAdapter) and the Java bindings, public
/// so that the server area (a layer above namespace) and other programs speak the same
/// wire format. Defined for every request and response model of the operation table
/// (operations.def); the templates behind it live in src/namespace.
///
/// Writing: every set field, absent optionals left out (the spec's "not sent"); JsonValue
/// members are embedded as parsed JSON. Reading: unknown keys are ignored (requests may
/// carry `identity`, `context`, ...), null and missing keys keep the member's default,
/// and a value of the wrong JSON type is InvalidInput naming its path
/// ("describe_table request: field 'id[1]': expected a string, got number"). Nothing
/// here throws.

#pragma once

#include <string>
#include <string_view>

#include "lance/result.h"

namespace lance::ns::json_codec {

/// \brief Parses `text` and reads a model from it. `what` names the message in errors
/// ("describe_table request"). An empty text reads as `{}`.
/// \return InvalidInput (spec code InvalidInput) for malformed JSON, a non-object or a
/// field of the wrong type.
template <typename T>
Result<T> Parse(std::string_view text, std::string_view what);

/// \brief The model as compact JSON text (absent optionals left out; invalid UTF-8
/// replaced).
template <typename T>
std::string Dump(const T& value);

}  // namespace lance::ns::json_codec

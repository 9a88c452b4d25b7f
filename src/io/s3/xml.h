// SPDX-License-Identifier: Apache-2.0
// A minimal XML reader and writer for S3 request and response bodies.
//
// S3 bodies are small, flat documents (ListBucketResult, Error, DeleteResult, ...): no
// DTDs, namespaces only as xmlns attributes, text content. This parser builds a small
// element tree; it handles the XML declaration, comments, CDATA, attributes (kept),
// the five predefined entities and numeric character references (&#NN; / &#xNN;,
// encoded as UTF-8). Anything else malformed is an error, never a crash.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lance/result.h"

namespace lance::io::s3 {

struct XmlElement {
  /// \brief Tag name without namespace prefix handling ("ListBucketResult").
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  /// \brief Concatenated, entity-decoded character data directly inside this element
  /// (not of its children). Not trimmed.
  std::string text;
  std::vector<XmlElement> children;

  /// \brief First child named `name`, or nullptr.
  const XmlElement* Child(std::string_view name) const;
  /// \brief All children named `name`, in document order.
  std::vector<const XmlElement*> Children(std::string_view name) const;
  /// \brief Text of the first child named `name`, or "" when there is none.
  std::string ChildText(std::string_view name) const;
};

/// \brief Parses a document and returns its root element.
/// \return the root; Invalid("malformed XML: <what> at byte N") on bad input (the
/// message never quotes the document). Depth is limited to 64 levels.
Result<XmlElement> ParseXml(std::string_view document);

/// \brief Escapes text for element content or attribute values (& < > " ').
std::string XmlEscape(std::string_view text);

}  // namespace lance::io::s3

// SPDX-License-Identifier: Apache-2.0
// A Credential Access Boundary (the `options` of a Google STS token exchange) read the
// way Google reads it, as far as the tests' STS stand-in goes (token_proxy.h):
//
//   {"accessBoundary":{"accessBoundaryRules":[{
//       "availableResource":"//storage.googleapis.com/projects/_/buckets/B",
//       "availablePermissions":["inRole:roles/storage.objectViewer", ...],
//       "availabilityCondition":{"expression":"<CEL>", "title":...,
//       "description":...}}]}}
//
// The CEL expression is one or more clauses joined by `||`, each either
//   resource.name.startsWith('S')
// (object requests whose resource name "projects/_/buckets/B/objects/<name>" starts with
// S; a listing's resource is the bucket, "projects/_/buckets/B") or
//   api.getAttribute('storage.googleapis.com/objectListPrefix', 'D').startsWith('Q')
// (listings whose prefix starts with Q; every other request reads the default D). Strings
// in single or double quotes, without escapes. Anything else (another function, `&&`, a
// backslash, an unknown field or role, several rules) is refused: the stand-in answers
// 400 invalid_request instead of guessing.
#pragma once

#include <string>
#include <vector>

#include "lance/result.h"

namespace lance::testing {

/// \brief What a token may do, as the storage permissions of the predefined roles.
enum GcsPermission : unsigned {
  kGcsGet = 1,      ///< storage.objects.get
  kGcsList = 2,     ///< storage.objects.list
  kGcsCreate = 4,   ///< storage.objects.create (+ multipart / resumable upload steps)
  kGcsDelete = 8,   ///< storage.objects.delete (also needed to overwrite an object)
  kGcsUpdate = 16,  ///< storage.objects.update (metadata patch)
  kGcsAll = 31,
};

/// \brief The effective reach of a downscoped token.
struct GcsBoundary {
  std::string bucket;                        ///< the one bucket it reaches
  unsigned permissions = 0;                  ///< GcsPermission bits of its roles
  std::vector<std::string> object_prefixes;  ///< object names starting with one of these
  std::vector<std::string> list_prefixes;    ///< listing prefixes starting with one
  /// \brief "bucket=B permissions=get,list objects=[P/] lists=[P/]".
  std::string ToString() const;
};

/// \brief Parses the JSON of a Credential Access Boundary. \return Invalid saying what
/// could not be read.
Result<GcsBoundary> ParseGcsAccessBoundary(const std::string& json);

}  // namespace lance::testing

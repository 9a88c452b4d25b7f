// SPDX-License-Identifier: Apache-2.0
/// \file storage_options.h
/// \brief StorageOptions: the flat map of Lance storage-option keys ("aws_region",
/// "aws_access_key_id", "expires_at_millis", ...) that configures every store. Declared
/// here once; every layer uses this type.

#pragma once

#include <map>
#include <string>

namespace lance::io {

/// \brief Storage options: Lance's key names to values. Options a store does not know are
/// ignored.
using StorageOptions = std::map<std::string, std::string>;

}  // namespace lance::io

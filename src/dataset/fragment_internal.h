// SPDX-License-Identifier: Apache-2.0
// Conversions between the public FragmentMetadata and the manifest's DataFragment.
#pragma once

#include "lance/dataset/fragment.h"
#include "table/manifest.h"

namespace lance::table_internal {

pb::DataFragment FragmentToProto(const FragmentMetadata& fragment);
FragmentMetadata FragmentFromProto(const pb::DataFragment& fragment);

}  // namespace lance::table_internal

// SPDX-License-Identifier: Apache-2.0
/// \file mutation.h
/// \brief Option and result types of the Dataset mutation methods (see dataset.h).
#pragma once

namespace lance {}  // namespace lance

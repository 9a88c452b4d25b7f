// SPDX-License-Identifier: Apache-2.0
/// \file maintenance.h
/// \brief Option and result types of the Dataset maintenance methods (see dataset.h).
#pragma once

namespace lance {}  // namespace lance

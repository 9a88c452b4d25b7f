// SPDX-License-Identifier: Apache-2.0
/// \file surface.h
/// \brief Option and result types of the Dataset surface methods (see dataset.h).
#pragma once

namespace lance {}  // namespace lance

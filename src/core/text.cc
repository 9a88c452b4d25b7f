// SPDX-License-Identifier: Apache-2.0
#include "lance/core/text.h"

namespace lance {

std::string_view TrimAscii(std::string_view s, std::string_view chars) {
  const size_t begin = s.find_first_not_of(chars);
  if (begin == std::string_view::npos) return {};
  const size_t end = s.find_last_not_of(chars);
  return s.substr(begin, end - begin + 1);
}

}  // namespace lance

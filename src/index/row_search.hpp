#pragma once
// The binary search over suffix-array rows that the host index and the CUDA kernels share.
#include <cstdint>

#include "core/host_device.hpp"

namespace hyalign::index {

// The first row in [lo, hi) whose suffix is not below a pattern (`upper`: not below nor starting
// with it). compare(row, from, same) orders the row's suffix against the pattern (negative: below;
// 0: it starts with the pattern), comparing from letter `from` on, which both are known to share,
// and sets `same` to the letters they share. The rows' suffixes all share `depth` letters with the
// pattern, and every row between two compared ones shares the lesser of what those share, so each
// comparison starts there.
template <class Compare>
HYALIGN_HOST_DEVICE inline std::uint32_t bound_row_by(std::uint32_t lo, std::uint32_t hi, std::uint32_t depth,
                                                      bool upper, Compare compare) {
  std::uint32_t lo_same = depth, hi_same = depth;
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    std::uint32_t same = 0;
    const int order = compare(mid, lo_same < hi_same ? lo_same : hi_same, same);
    if (order < 0 || (upper && order == 0)) {
      lo = mid + 1;
      lo_same = same;
    } else {
      hi = mid;
      hi_same = same;
    }
  }
  return lo;
}

}  // namespace hyalign::index

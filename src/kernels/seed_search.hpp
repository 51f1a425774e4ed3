#pragma once
// What the map's seed search (map/seeds.hpp) finds, in a form a GPU returns: for each strand, its
// exact matches of at least `min_seed` letters in the order the search meets them, each as the
// suffix-array rows that hold it. The constants are shared so that every device searches alike.
#include <cstdint>

#include "core/host_device.hpp"

namespace hyalign::kernels {

inline constexpr std::uint32_t kReseedMaxCopies = 10;  // a seed with more copies already shows the repeat
inline constexpr std::uint32_t kDirectRows = 2 * kReseedMaxCopies + 2;  // intervals this small are read, not searched

struct SeedSearchParams {
  std::uint32_t min_seed = 19;       // -k
  std::uint32_t reseed_length = 29;  // matches this long with at most kReseedMaxCopies copies are searched inside
};

// Where the search after a scan match of `length` letters from `start` begins (0: none), in the
// a/c/g/t run [run_begin, run_end). Such searches begin at least half a seed apart, `floor` on
// (moved past the one returned), which bounds a strand's matches. Its min_seed letters end
// - one past the end of a seed that a mismatch ended: every copy of the seed differs from the read
//   at that letter, and a copy that agrees there (the read's own, when the seed came from a
//   near-copy that matched longer from the read's start) would be passed over by the scan;
// - at the end of a match too short to seed: the scan's jump past a longer match elsewhere (a
//   chance match of the genome) may have begun after a seed of this copy began, as a read with a
//   few errors close together has; this search reaches back to it.
HYALIGN_HOST_DEVICE constexpr std::uint32_t side_search_start(std::uint32_t start, std::uint32_t length,
                                                              std::uint32_t min_seed, std::uint32_t run_begin,
                                                              std::uint32_t run_end, std::uint32_t& floor) {
  const std::uint32_t end = start + length;
  std::uint32_t at = 0;
  if (length >= min_seed) {
    if (end >= run_end) return 0;
    at = end + 1 - min_seed;
  } else {
    if (end < run_begin + min_seed) return 0;
    at = end - min_seed;
  }
  if (at < floor || at == 0) return 0;
  floor = at + (min_seed + 1) / 2;
  return at;
}

// Query letters [begin, begin + length) equal the suffixes of rows [lo, hi).
struct SeedMatch {
  std::uint32_t begin = 0, length = 0, lo = 0, hi = 0;
  bool operator==(const SeedMatch&) const = default;
};

}  // namespace hyalign::kernels

#pragma once
// What the map's seed search (map/seeds.hpp) finds, in a form a GPU returns: for each strand, its
// exact matches of at least `min_seed` letters in the order the search meets them, each as the
// suffix-array rows that hold it. The constants are shared so that every device searches alike.
#include <cstdint>

namespace hyalign::kernels {

inline constexpr std::uint32_t kReseedMaxCopies = 10;  // a seed with more copies already shows the repeat
inline constexpr std::uint32_t kDirectRows = 2 * kReseedMaxCopies + 2;  // intervals this small are read, not searched

struct SeedSearchParams {
  std::uint32_t min_seed = 19;       // -k
  std::uint32_t reseed_length = 29;  // matches this long with at most kReseedMaxCopies copies are searched inside
};

// Query letters [begin, begin + length) equal the suffixes of rows [lo, hi).
struct SeedMatch {
  std::uint32_t begin = 0, length = 0, lo = 0, hi = 0;
  bool operator==(const SeedMatch&) const = default;
};

}  // namespace hyalign::kernels

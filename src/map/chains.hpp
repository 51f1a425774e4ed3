#pragma once
// Seeds grouped by locus: hits on one strand of one reference sequence whose diagonals (reference
// position minus read position) lie close together are one chain, a candidate place for the read.
// Chains much lighter than a better one over the same read letters are dropped before alignment,
// but for the one of them whose diagonal matches the read best: the read's second place.
#include <cstdint>
#include <string_view>
#include <vector>

#include "index/reference_text.hpp"
#include "map/map.hpp"
#include "map/seeds.hpp"

namespace hyalign::map {

struct Chain {
  bool reverse = false;
  std::uint32_t sequence = 0;
  std::int64_t diagonal_min = 0, diagonal_max = 0;
  std::uint32_t weight = 0;  // read letters its seeds cover
  std::uint32_t query_begin = 0, query_end = 0;  // the seeds' span on the read
  // Where the alignment may clip the seeds on one side of a stretch of the read rather than pay
  // for crossing it (a long deletion or insertion, a run of N): the seeds before and after the
  // costliest such stretch, each aligned on its own too, as BWA-MEM aligns the seeds a chain's
  // alignment leaves out. `split` is the read letter between the sides. A deletion of 60 letters in
  // a read of 150 is then a split alignment, not 60 letters lost.
  std::vector<Chain> sides;
  std::uint32_t split = 0;
};

// BWA-MEM's chain filter: seeds weighing `light` letters are dropped beside seeds over the same
// read letters weighing `heavy`, when light is under -D of heavy and by two seeds' letters at least.
bool outweighed_by(std::uint32_t light, std::uint32_t heavy, const MapParams& params);

// `hits` is reordered; `read` holds the read's letters as the seeds' search text, forward and
// reverse complement.
// Chains come out heaviest first, at most params.max_chains.
std::vector<Chain> chain_seeds(std::vector<SeedHit>& hits, const index::ReferenceText& reference,
                               const std::string_view (&read)[2], const MapParams& params);

}  // namespace hyalign::map

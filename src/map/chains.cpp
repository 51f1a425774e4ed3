#include "map/chains.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>
#include <tuple>

#include "index/suffix_index.hpp"

namespace hyalign::map {
namespace {

// What aligning across the read letters between two seeds next to each other on the read costs
// (`before` is the hit before `after`, the seeds so far end at `seeded`): a gap where their diagonals
// differ; else, along the diagonal, the stretch of those letters that loses most (N and mismatches
// against matches): the stretch an alignment would clip a side at rather than cross.
std::int64_t crossing_cost(const SeedHit& before, std::uint32_t seeded, const SeedHit& after, std::string_view read,
                           const std::string& text, const kernels::ExtendScoring& scoring) {
  if (const std::int64_t jump = std::abs(after.diagonal() - before.diagonal()); jump > 0)
    return scoring.gap_open + jump * scoring.gap_extend;
  std::int64_t loss = 0, worst = 0;  // the loss of the stretch ending here, and the largest
  for (std::uint32_t i = seeded; i < after.query_begin; ++i) {
    const std::int64_t at = after.diagonal() + i;
    if (at < 0 || at >= static_cast<std::int64_t>(text.size())) return std::numeric_limits<std::int32_t>::max();
    const char r = read[i], t = text[static_cast<std::size_t>(at)];
    loss = std::max<std::int64_t>(0, loss + (r == 'N' || index::base_code(t) < 0 ? scoring.ambiguous
                                             : r == t                            ? -scoring.match
                                                                                 : scoring.mismatch));
    worst = std::max(worst, loss);
  }
  return worst;
}

// A chain being built: its hits sorted by read position, and what joining it checks.
struct Building {
  std::vector<SeedHit> hits;  // by query_begin
  std::int64_t first_diagonal = 0, last_diagonal = 0;  // hits arrive in diagonal order
  std::uint32_t longest = 0;  // the longest hit's length: how far back in the read a hit may reach
  std::uint32_t sequence = 0;
  bool reverse = false;

  Building(const SeedHit& h, std::uint32_t in_sequence)
      : hits{h}, first_diagonal(h.diagonal()), last_diagonal(h.diagonal()), longest(h.length), sequence(in_sequence),
        reverse(h.reverse) {}

  void add(const SeedHit& h) {
    const auto at = std::upper_bound(hits.begin(), hits.end(), h.query_begin,
                                     [](std::uint32_t begin, const SeedHit& m) { return begin < m.query_begin; });
    hits.insert(at, h);
    last_diagonal = h.diagonal();
    longest = std::max(longest, h.length);
  }

  // A hit belongs with the chain's hits when each lies on its diagonal or on another read part: hits
  // on different diagonals over the same read letters are different places for them (a tandem
  // repeat's shifted copies), not one alignment with a gap. An indel lets the parts overlap by its
  // length. Only hits over some of h's letters can clash, and they begin less than `longest`
  // letters before it.
  bool colinear(const SeedHit& h) const {
    auto m = std::partition_point(hits.begin(), hits.end(),
                                  [&](const SeedHit& k) { return k.query_begin + longest <= h.query_begin; });
    for (; m != hits.end() && m->query_begin < h.query_begin + h.length; ++m) {
      if (m->diagonal() == h.diagonal()) continue;
      const std::int64_t overlap = std::min<std::int64_t>(m->query_begin + m->length, h.query_begin + h.length) -
                                   std::max(m->query_begin, h.query_begin);
      if (overlap > std::abs(m->diagonal() - h.diagonal())) return false;
    }
    return true;
  }

  // The chain; where the alignment may clip the seeds on one side of a stretch rather than pay
  // for crossing it, with its sides (Chain::sides) at the costliest such stretch.
  Chain chain(const std::string_view (&read)[2], const std::string& text, const kernels::ExtendScoring& scoring) const {
    Chain c = chain_of(hits.begin(), hits.end());
    std::size_t split = 0;
    std::int64_t costliest = 0;
    std::uint32_t end = hits.front().query_begin + hits.front().length, split_end = 0;  // letters seeded so far
    for (std::size_t k = 1; k < hits.size(); ++k) {
      const std::int64_t cost = crossing_cost(hits[k - 1], end, hits[k], read[reverse ? 1 : 0], text, scoring);
      if (cost > costliest) costliest = cost, split = k, split_end = end;
      end = std::max(end, hits[k].query_begin + hits[k].length);
    }
    if (split == 0) return c;
    Chain before = chain_of(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(split));
    Chain after = chain_of(hits.begin() + static_cast<std::ptrdiff_t>(split), hits.end());
    const std::int64_t lighter = std::min(before.weight, after.weight);
    if (lighter * scoring.match + std::max(scoring.clip5, scoring.clip3) > costliest) return c;
    c.split = std::min(after.query_begin, (split_end + after.query_begin) / 2);
    c.sides = {std::move(before), std::move(after)};
    return c;
  }

 private:
  // The chain of hits [first, last) (sorted by query_begin).
  Chain chain_of(std::vector<SeedHit>::const_iterator first, std::vector<SeedHit>::const_iterator last) const {
    Chain c;
    c.reverse = reverse;
    c.sequence = sequence;
    c.diagonal_min = std::numeric_limits<std::int64_t>::max();
    c.diagonal_max = std::numeric_limits<std::int64_t>::min();
    for (auto m = first; m != last; ++m) {
      c.diagonal_min = std::min(c.diagonal_min, m->diagonal());
      c.diagonal_max = std::max(c.diagonal_max, m->diagonal());
      c.query_end = std::max(c.query_end, m->query_begin + m->length);
    }
    c.weight = letters_in_union(first, last,
                                [](const SeedHit& m) { return LetterSpan{m.query_begin, m.query_begin + m.length}; });
    c.query_begin = first->query_begin;
    return c;
  }
};

bool overlaps_mostly(const Chain& a, const Chain& b) {
  const std::uint32_t lo = std::max(a.query_begin, b.query_begin), hi = std::min(a.query_end, b.query_end);
  if (hi <= lo) return false;
  const std::uint32_t shorter = std::min(a.query_end - a.query_begin, b.query_end - b.query_begin);
  return 2 * (hi - lo) >= shorter;
}

// Letters of `read` that differ from the text along `diagonal` (letters off the text differ).
std::uint32_t mismatches(std::string_view read, const std::string& text, std::int64_t diagonal) {
  const auto n = static_cast<std::int64_t>(read.size()), size = static_cast<std::int64_t>(text.size());
  const std::int64_t first = std::clamp<std::int64_t>(-diagonal, 0, n), last = std::clamp<std::int64_t>(size - diagonal, first, n);
  std::uint32_t differ = static_cast<std::uint32_t>(first + (n - last));
  std::int64_t i = first;
  constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL, kHigh = 0x8080808080808080ULL, kOnes = 0x0101010101010101ULL;
  for (; i + 8 <= last; i += 8) {  // eight letters per step: the bytes that differ have their high bit set
    std::uint64_t a, b;
    std::memcpy(&a, read.data() + i, 8);
    std::memcpy(&b, text.data() + diagonal + i, 8);
    const std::uint64_t x = a ^ b;
    // The bytes' high bits moved to their low bits and summed into the top byte by one multiply:
    // std::popcount is a library call on x86-64 without -mpopcnt.
    differ += static_cast<std::uint32_t>((((((x & kLow7) + kLow7) | x) & kHigh) >> 7) * kOnes >> 56);
  }
  for (; i < last; ++i) differ += read[static_cast<std::size_t>(i)] != text[static_cast<std::size_t>(diagonal + i)];
  return differ;
}

// Keeps the chains not much lighter than a kept heavier one over the same read letters (BWA-MEM's
// rule: lighter than -D of it, and by two seeds' letters at least), and of each kept chain the one
// it drops whose diagonal (its first, or its last) differs from the read in fewest letters: the
// read's second-best place, whose score the MAPQ needs. (The heaviest one, BWA-MEM's pick, is
// often a tandem repeat's unit that shares a stretch of the read, while a near copy of the whole
// read weighs a letter less.)
std::vector<Chain> drop_light_chains(std::vector<Chain> chains, const index::ReferenceText& reference,
                                     const std::string_view (&read)[2], const MapParams& params) {
  std::sort(chains.begin(), chains.end(), [](const Chain& a, const Chain& b) {
    return std::tie(b.weight, a.reverse, a.sequence, a.diagonal_min) <
           std::tie(a.weight, b.reverse, b.sequence, b.diagonal_min);
  });
  std::vector<std::size_t> kept;    // indices into chains, heaviest first
  std::vector<std::size_t> shadow;  // per kept chain: the dropped chain it keeps, or chains.size()
  std::vector<std::uint32_t> shadow_differ;  // and the letters that one differs in
  for (std::size_t c = 0; c < chains.size() && kept.size() < params.max_chains; ++c) {
    const Chain& chain = chains[c];
    std::size_t by = kept.size();
    for (std::size_t k = 0; k < kept.size(); ++k) {
      const Chain& better = chains[kept[k]];
      if (overlaps_mostly(chain, better) && outweighed_by(chain.weight, better.weight, params)) {
        by = k;
        break;
      }
    }
    if (by == kept.size()) {
      kept.push_back(c);
      shadow.push_back(chains.size());
      shadow_differ.push_back(std::numeric_limits<std::uint32_t>::max());
      continue;
    }
    const std::string_view strand = read[chain.reverse ? 1 : 0];
    std::uint32_t differ = mismatches(strand, reference.text, chain.diagonal_min);
    if (chain.diagonal_max != chain.diagonal_min)
      differ = std::min(differ, mismatches(strand, reference.text, chain.diagonal_max));
    if (differ < shadow_differ[by]) shadow[by] = c, shadow_differ[by] = differ;
  }
  std::vector<std::size_t> chosen = kept;
  for (std::size_t s : shadow)
    if (s < chains.size()) chosen.push_back(s);
  std::sort(chosen.begin(), chosen.end());
  chosen.resize(std::min<std::size_t>(chosen.size(), params.max_chains));
  std::vector<Chain> out;
  out.reserve(chosen.size());
  for (std::size_t c : chosen) out.push_back(chains[c]);
  return out;
}

}  // namespace

bool outweighed_by(std::uint32_t light, std::uint32_t heavy, const MapParams& params) {
  return light < params.drop_ratio * heavy && heavy >= light + 2 * params.min_seed;
}

std::vector<Chain> chain_seeds(std::vector<SeedHit>& hits, const index::ReferenceText& reference,
                               const std::string_view (&read)[2], const MapParams& params) {
  const auto read_length = static_cast<std::uint32_t>(read[0].size());
  // A total order: the chains do not depend on the order the seed search (CPU or GPU) found hits in.
  std::sort(hits.begin(), hits.end(), [](const SeedHit& a, const SeedHit& b) {
    return std::make_tuple(a.reverse, a.diagonal(), a.query_begin, a.length) <
           std::make_tuple(b.reverse, b.diagonal(), b.query_begin, b.length);
  });
  // The same match found by two of the search's rounds.
  hits.erase(std::unique(hits.begin(), hits.end(), [](const SeedHit& a, const SeedHit& b) {
               return a.reverse == b.reverse && a.text_pos == b.text_pos && a.query_begin == b.query_begin &&
                      a.length == b.length;
             }), hits.end());
  const std::int64_t max_step = params.band_margin, max_spread = std::max<std::int64_t>(read_length, max_step);
  // Chains still open to hits on later diagonals.
  std::vector<Building> open;
  std::vector<Chain> chains;
  for (const SeedHit& h : hits) {
    const auto sequence = static_cast<std::uint32_t>(reference.sequence_at(h.text_pos));
    // Chains that end too far before this diagonal are done.
    std::size_t kept = 0;
    for (std::size_t k = 0; k < open.size(); ++k) {
      if (open[k].reverse != h.reverse || h.diagonal() - open[k].last_diagonal > max_step)
        chains.push_back(open[k].chain(read, reference.text, params.scoring));
      else if (kept++ != k)
        open[kept - 1] = std::move(open[k]);
    }
    open.erase(open.begin() + static_cast<std::ptrdiff_t>(kept), open.end());
    Building* home = nullptr;
    for (Building& b : open)
      if (b.sequence == sequence && h.diagonal() - b.first_diagonal <= max_spread && b.colinear(h)) {
        home = &b;
        break;
      }
    if (home != nullptr) home->add(h);
    else open.emplace_back(h, sequence);
  }
  for (const Building& b : open) chains.push_back(b.chain(read, reference.text, params.scoring));
  return drop_light_chains(std::move(chains), reference, read, params);
}

}  // namespace hyalign::map

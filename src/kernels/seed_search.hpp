#pragma once
// What the map's seed search (map/seeds.hpp) finds, in a form a GPU returns: for each strand, its
// exact matches of at least `min_seed` letters in the order the search meets them, each as the
// suffix-array rows that hold it. The constants are shared so that every device searches alike.
#include <cstdint>

#include "core/host_device.hpp"
#include "index/suffix_index.hpp"

namespace hyalign::kernels {

inline constexpr std::uint32_t kReseedMaxCopies = 10;  // a seed with more copies already shows the repeat
inline constexpr std::uint32_t kDirectRows = 2 * kReseedMaxCopies + 2;  // intervals this small are read, not searched

struct SeedSearchParams {
  std::uint32_t min_seed = 19;       // -k
  std::uint32_t reseed_length = 29;  // matches this long with at most kReseedMaxCopies copies are searched inside
};

// After each match of the scan, one more seed may be sought (CPU and GPU alike):
// - across the end of a seed that a mismatch ended, by a search from min_seed - 1 letters before
//   that letter: every copy of the seed differs from the read there, and a copy that agrees (the
//   read's own, when the seed came from a near-copy that matched longer from the read's start)
//   would be passed over by the scan;
// - back from the start of a match too short to seed, along its one or two copies and, with one,
//   the copy that alone shares the next most letters (back_copies): the scan jumps past the
//   longest match from a start, often a chance match of the genome, which can carry it into the
//   middle of the read's own exact run with too few of its letters left to seed, and the read's
//   own copy there may share fewer letters than a chance one. The letters before the match that
//   agree with a copy are added to it (BWA-MEM's backward extension), a match for each copy that
//   makes a seed so.
// The searches, and the backward extensions of a scan match, begin at least half a seed apart,
// `floor` on, which bounds a strand's matches.
HYALIGN_HOST_DEVICE constexpr bool claim_side_start(std::uint32_t at, std::uint32_t min_seed, std::uint32_t& floor) {
  if (at < floor) return false;
  floor = at + (min_seed + 1) / 2;
  return true;
}

// The start of the search across the end of the scan's match [start, start + length) in the
// a/c/g/t run ending at run_end, or 0 for none.
HYALIGN_HOST_DEVICE constexpr std::uint32_t cross_search_start(std::uint32_t start, std::uint32_t length,
                                                               std::uint32_t min_seed, std::uint32_t run_end,
                                                               std::uint32_t& floor) {
  const std::uint32_t end = start + length, at = end + 1 - min_seed;
  return length >= min_seed && end < run_end && claim_side_start(at, min_seed, floor) ? at : 0;
}

inline constexpr std::uint32_t kBackExtendMaxCopies = 2;
// Rows a scan search reads on each side of where its pattern sorts: enough to see whether the
// rows sharing the most and the next most letters are one or two.
inline constexpr std::uint32_t kScanRowsAround = kBackExtendMaxCopies + 1;

// Suffix-array rows a scan match is extended back along, with the letters each shares with it.
struct BackCopies {
  std::uint32_t row[kBackExtendMaxCopies] = {};
  std::uint32_t length[kBackExtendMaxCopies] = {};
  std::uint32_t count = 0;
};

// Widens the run [b, e) of shared[0, n) to the rows sharing at least `letters`; whether it holds
// kBackExtendMaxCopies rows or fewer, all of them seen (it reaches no side with unread rows).
HYALIGN_HOST_DEVICE inline bool widen_few_rows(const std::uint32_t* shared, std::uint32_t n, std::uint32_t letters,
                                               bool more_below, bool more_above, std::uint32_t& b, std::uint32_t& e) {
  while (b > 0 && shared[b - 1] >= letters) --b;
  while (e < n && shared[e] >= letters) ++e;
  return e - b <= kBackExtendMaxCopies && !(b == 0 && more_below) && !(e == n && more_above);
}

// Of rows lo + [0, n) read where a pattern sorts, sharing shared[k] letters with it (all the
// rows of its interval, or some around where it sorts: `more_below`/`more_above` say whether
// unread rows of the interval lie beyond), the copies a match too short to seed is extended back
// along: the longest match's one or two rows, and with one, the row that alone shares the next most
// letters. The letters shared fall away from where the pattern sorts on both sides, so the rows
// sharing at least some number of letters are a run; a run that reaches unread rows may be longer,
// and is taken as too many.
HYALIGN_HOST_DEVICE inline BackCopies back_copies(const std::uint32_t* shared, std::uint32_t n, std::uint32_t lo,
                                                  bool more_below, bool more_above, std::uint32_t min_seed) {
  BackCopies out;
  std::uint32_t first = 0;
  for (std::uint32_t k = 1; k < n; ++k)
    if (shared[k] > shared[first]) first = k;
  if (n == 0 || shared[first] == 0 || shared[first] >= min_seed) return out;
  std::uint32_t b = first, e = first + 1;
  if (!widen_few_rows(shared, n, shared[first], more_below, more_above, b, e)) return out;
  for (std::uint32_t k = b; k < e; ++k) out.row[out.count] = lo + k, out.length[out.count++] = shared[first];
  if (out.count > 1) return out;
  const std::uint32_t below = b > 0 ? shared[b - 1] : 0, above = e < n ? shared[e] : 0;
  const std::uint32_t next = below > above ? below : above;
  const std::uint32_t other = below > above ? b - 1 : e;
  if (next > 0 && widen_few_rows(shared, n, next, more_below, more_above, b, e) && e - b == 2) {
    out.row[1] = lo + other;
    out.length[1] = next;
    out.count = 2;
  }
  return out;
}

// The letters before the scan's match [start, start + length) of the run from run_begin that its
// copy at text position `pos` shares, when with them it makes a seed; else 0.
template <typename Letter>
HYALIGN_HOST_DEVICE std::uint32_t back_extension(const Letter* pattern, std::uint32_t start, std::uint32_t length,
                                                 std::uint32_t run_begin, const Letter* text, std::uint64_t pos,
                                                 std::uint32_t min_seed) {
  std::uint32_t back = 0;
  while (back < start - run_begin && back < pos && pattern[start - 1 - back] == text[pos - 1 - back]) ++back;
  return length + back >= min_seed ? back : 0;
}

// The third round of seeding (BWA-MEM's): from the strand's start on, the shortest match of more
// than min_seed letters with fewer than kRareMaxCopies copies, all of them seeds, then on from the
// letter after it. It runs after the scan and finds the copies of a repeat family that the longest
// matches pass over: when a read's errors make another copy match longer, its own copy is met by no
// longest match, and the read's place would be named sure on the wrong copy.
inline constexpr std::uint32_t kRareMaxCopies = 20;
inline constexpr std::uint32_t kRareWindowRows = 2 * kRareMaxCopies;  // rows read around where a pattern sorts

// The next start at or after `at` of a pattern of `length` letters with `letters` a/c/g/t letters
// from it on, and the a/c/g/t run [run_begin, run_end) holding it; false when none is left.
template <typename Letter>
HYALIGN_HOST_DEVICE bool next_run_start(const Letter* pattern, std::uint32_t length, std::uint32_t letters,
                                        std::uint32_t& at, std::uint32_t& run_begin, std::uint32_t& run_end) {
  while (at < length) {
    if (index::base_code(static_cast<char>(pattern[at])) < 0) {
      ++at;
      continue;
    }
    if (run_end <= at) {
      run_begin = run_end = at;
      while (run_end < length && index::base_code(static_cast<char>(pattern[run_end])) >= 0) ++run_end;
    }
    if (at + letters <= run_end) return true;
    at = run_end + 1;
  }
  return false;
}

// The scan's next start: from `at` (next_run_start with a seed's letters left), or, once a run's
// last match ended before the run's end with fewer letters than a seed left after it, the start of
// the run's last min_seed letters. A chance match of the genome from an earlier start can carry the
// scan into the read's own exact run where it ends the read, with too few of its letters left to
// seed; BWA-MEM finds that run by extending backwards from the read's end.
template <typename Letter>
HYALIGN_HOST_DEVICE bool next_scan_start(const Letter* pattern, std::uint32_t length, std::uint32_t min_seed,
                                         std::uint32_t& at, std::uint32_t& run_begin, std::uint32_t& run_end) {
  if (at <= run_end && at + min_seed > run_end && run_end - run_begin >= min_seed) {
    at = run_end - min_seed;
    return true;
  }
  return next_run_start(pattern, length, min_seed, at, run_begin, run_end);
}

// Where the scan goes on after its match [start, start + length): past the letter that ended the
// match, or past the run after the search of its last min_seed letters.
HYALIGN_HOST_DEVICE constexpr std::uint32_t scan_next(std::uint32_t start, std::uint32_t length, std::uint32_t min_seed,
                                                      std::uint32_t run_end) {
  return start + min_seed == run_end ? run_end + 1 : start + length + 1;
}

// Of `n` neighbouring suffix-array rows whose first shared[r] letters a pattern shares (rows
// around where it sorts, so the counts rise to a peak and fall), the shortest prefix of at least
// min_length letters that fewer than kRareMaxCopies rows hold, and those rows [first, last).
struct RareRows {
  std::uint32_t length = 0, first = 0, last = 0;
};
HYALIGN_HOST_DEVICE inline RareRows shortest_rare_prefix(const std::uint32_t* shared, std::uint32_t n,
                                                         std::uint32_t min_length) {
  std::uint32_t peak = 0;
  for (std::uint32_t r = 1; r < n; ++r)
    if (shared[r] > shared[peak]) peak = r;
  // The longest prefix that kRareMaxCopies rows hold: widen from the peak towards the longer side.
  std::uint32_t held = 0;
  if (n >= kRareMaxCopies) {
    std::uint32_t lo = peak, hi = peak + 1;
    held = shared[peak];
    while (hi - lo < kRareMaxCopies) {
      const std::uint32_t r = lo > 0 && (hi == n || shared[lo - 1] >= shared[hi]) ? --lo : hi++;
      held = held < shared[r] ? held : shared[r];
    }
  }
  RareRows rare{held + 1 > min_length ? held + 1 : min_length, peak, peak};
  if (n == 0 || shared[peak] < rare.length) return rare;
  rare.last = peak + 1;
  while (rare.first > 0 && shared[rare.first - 1] >= rare.length) --rare.first;
  while (rare.last < n && shared[rare.last] >= rare.length) ++rare.last;
  return rare;
}

// Whether a third-round match of `length` letters lies in a large repeat family: longer than the
// shortest it may be, so its prefix one letter shorter has kRareMaxCopies copies or more, of which
// the read's own copy may be one that no seed names.
HYALIGN_HOST_DEVICE inline bool in_large_family(std::uint32_t length, std::uint32_t min_seed) {
  return length > min_seed + 1;
}

// Query letters [begin, begin + length) equal the text from `back` letters before the suffixes of
// rows [lo, hi) on (back: letters a backward extension added to the match of those rows).
// `family`: a third-round match in_large_family, reported even when its rows are none.
struct SeedMatch {
  std::uint32_t begin = 0, length = 0, lo = 0, hi = 0, back = 0;
  bool family = false;
  // A family match's letters with kRareMaxCopies copies or more: [begin, family_end()).
  std::uint32_t family_end() const { return begin + length - 1; }
  bool operator==(const SeedMatch&) const = default;
};

// The matches the backward extensions of the scan's match from `start` along `back` make, into
// `out` (kBackExtendMaxCopies at most), once their start claims the side searches' `floor`;
// `text_pos(row)` is where a suffix-array row's suffix starts. Returns how many.
template <typename Letter, typename TextPos>
HYALIGN_HOST_DEVICE std::uint32_t back_extended_matches(const Letter* pattern, std::uint32_t start, std::uint32_t run_begin,
                                                        const Letter* text, const BackCopies& back, TextPos text_pos,
                                                        std::uint32_t min_seed, std::uint32_t& floor, SeedMatch* out) {
  std::uint32_t backs[kBackExtendMaxCopies], most = 0;
  for (std::uint32_t k = 0; k < back.count; ++k) {
    backs[k] = back_extension(pattern, start, back.length[k], run_begin, text, text_pos(back.row[k]), min_seed);
    most = most > backs[k] ? most : backs[k];
  }
  std::uint32_t n = 0;
  if (most > 0 && claim_side_start(start - most, min_seed, floor))
    for (std::uint32_t k = 0; k < back.count; ++k)
      if (backs[k] > 0) out[n++] = {start - backs[k], back.length[k] + backs[k], back.row[k], back.row[k] + 1, backs[k]};
  return n;
}

}  // namespace hyalign::kernels

#pragma once
// Where a read aligns: each chain becomes one (read, locus) task for the extension kernel, a band
// of reference letters around the chain's diagonals; the best cell of each is a placement, and the
// placements a record reports are traced back (straight down the diagonal when no gap is needed,
// which the kernel's definition allows to check exactly; with the scalar traceback otherwise).
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "index/suffix_index.hpp"
#include "kernels/extend_kernel.hpp"
#include "map/chains.hpp"
#include "map/map.hpp"

namespace hyalign::map {

// A band of the reference: target letter k of the task is text position start + k.
struct Window {
  std::int64_t start = 0;
  std::uint32_t band_width = 1;
  std::uint32_t sequence = 0;
};

struct Placement {
  bool reverse = false;
  std::uint32_t sequence = 0;
  int score = 0;
  std::int64_t text_begin = 0, text_end = 0;    // reference text [begin, end) aligned
  std::int32_t query_begin = 0, query_end = 0;  // read letters aligned (of the strand aligned)
  std::uint32_t seed_weight = 0;                // read letters its chain's seeds covered
  bool traced = false;  // query_begin, text_begin and cigar are exact (else begins are estimates)
  bool rescued = false;                         // found by a search near the mate, not by seeds
  // Once traced: the best score of a stretch of the alignment, without clip bonuses. BWA-MEM's
  // score, which -T is compared with; it may exceed AS where a read's end letters cost more than
  // the end's clip bonus saves.
  int local_score = 0;
  std::vector<kernels::CigarRun> cigar;         // the whole read, soft clips at both ends
  Window window;        // the task that found it, to trace it back
  std::int32_t masked_begin = 0, masked_end = 0;  // read letters that task saw as N (a chain's side)
};

// The band around a chain's diagonals, `margin` letters wider on each side.
Window chain_window(const Chain& chain, std::uint32_t margin);
// The clip bonuses a placement's score holds: BWA's -L for each end of the read it reaches. SAM's
// AS is the score without them.
int alignment_bonus(const Placement& p, std::int32_t read_length, const kernels::ExtendScoring& scoring);
int sam_score(const Placement& p, std::int32_t read_length, const kernels::ExtendScoring& scoring);
// Whether a placement scores -T or more. As BWA-MEM's, -T is compared with a score without the
// clip bonuses: the best stretch of the alignment once traced, else AS.
bool scores_enough(const Placement& p, std::int32_t read_length, const MapParams& params);
// Whether a placement may be one end of a pair: as BWA-MEM pairs and rescues ends, one that scores
// a seed's worth (-k letters) though under -T (a mate trimmed short), or -T where that is lower.
bool pairs_enough(const Placement& p, std::int32_t read_length, const MapParams& params);
// The best score of a stretch of an alignment (`query` and `target` from its first letters).
int best_stretch_score(std::span<const kernels::CigarRun> cigar, const std::uint8_t* query, const std::uint8_t* target,
                       const kernels::ExtendScoring& scoring);
// The band for a mate expected to start at text positions [lowest, highest].
Window rescue_window(std::int64_t lowest, std::int64_t highest, std::uint32_t sequence);

// The tasks of one thread's reads: windows copied out of the reference (walls outside the
// window's sequence), scored in one batch by the kernel, traced back on demand.
class LocusAligner {
 public:
  LocusAligner(const index::SuffixIndex& index, const kernels::ExtendScoring& scoring, kernels::ExtendScorer& scorer);
  void clear();
  // `query` must stay alive until clear(). Returns the task's number. score_wider() leaves a task
  // that may not `widen` as it is.
  std::size_t add(std::span<const std::uint8_t> query, const Window& window, bool widen = true);
  void score_all();
  // A second try in a wider band, as BWA-MEM's: the tasks scored so far (chains' bands, each
  // `margin` letters beyond its seeds' diagonals) whose best leaves room for a better alignment
  // outside the band (one that leaves it shifts by more than `margin` diagonals, a gap of that
  // many letters) and that end short of the read's last letter (the chain before such a gap does)
  // are scored again with the band reaching as far as the longest gap such an
  // alignment can hold, up to kWiderBands * margin letters beyond the diagonals, and keep that
  // result where it scores more. A read with a deletion or insertion between its seeds' chains is
  // then aligned through it.
  static constexpr std::uint32_t kWiderBands = 4;
  void score_wider(std::uint32_t margin);
  // Where score_wider() gave task `id` a wider band's result, the task that holds its own band's:
  // the chain's own alignment, which the wider band may have passed over for another chain's.
  std::optional<std::size_t> own_band(std::size_t id) const;
  // The placement task `id` found (score 0: none), not traced back: its begins are estimated from
  // `query_begin`, the first read letter its seeds cover.
  Placement placement(std::size_t id, bool reverse, std::int32_t query_begin) const;

 private:
  kernels::ExtendTask task(std::size_t id) const;
  const index::SuffixIndex& index_;
  kernels::ExtendScoring scoring_;
  kernels::ExtendScorer& scorer_;
  std::vector<std::uint8_t> letters_;
  std::vector<std::size_t> offsets_;
  std::vector<std::span<const std::uint8_t>> queries_;
  std::vector<Window> windows_;
  std::vector<bool> widen_;
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::size_t> own_band_;  // own_band()'s, kNone where not replaced
  std::vector<kernels::ExtendTask> tasks_;
  std::vector<kernels::ExtendScore> scores_;
};

// `codes` with the read letters [begin, end) as N: what a chain's side is aligned and traced on
// (Placement::masked_begin).
std::vector<std::uint8_t> with_letters_masked(std::span<const std::uint8_t> codes, std::int32_t begin, std::int32_t end);

// Traces a placement back (exact begins and CIGAR) from its window; `query` is the strand it aligns.
// With Trace::if_ungapped, one whose alignment has gaps (a banded DP) is left as it is, its begins
// estimated.
enum class Trace { always, if_ungapped };
void trace_placement(const index::SuffixIndex& index, const MapParams& params, std::span<const std::uint8_t> query,
                     Placement& placement, Trace trace = Trace::always);

// Equal choices (copies of a repeat) are made as BWA-MEM makes them: each gets a hash of the
// read's number and its rank by reference position, the same way at any thread count. Where both
// find the same copies, a read of a repeat goes to the copy bwa mem puts it on, so outputs agree
// and a comparison of the two measures their real differences, not two draws of a coin. The
// number is the read's ordinal in the input, 2k + end (0 or 1) for the ends of pair k.
std::uint64_t tie_hash(std::uint64_t key);  // Thomas Wang's 64-bit integer hash, as BWA's

// Placements of the same alignment found from two chains kept once (the higher score); then the
// best first, equal scores in the order tie_hash(read_number + rank) gives them, lowest first.
void sort_placements(std::vector<Placement>& placements, std::uint64_t read_number);

// Read letters both placements align, over the shorter's aligned letters, at least a half.
bool overlap_on_read(const Placement& a, const Placement& b, std::int32_t read_length);

}  // namespace hyalign::map

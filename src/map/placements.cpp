#include "map/placements.hpp"

#include <algorithm>
#include <optional>

#include "core/nucleotides.hpp"

namespace hyalign::map {
namespace {

using kernels::CigarOp;
using kernels::ExtendAlignment;
using kernels::ExtendScore;
using kernels::ExtendTask;

// The traceback when the best cell is reached straight down its diagonal: the same alignment
// extend_align_scalar returns (the diagonal is its first choice at every cell, and where the
// ungapped path reaches the best score every H on it equals the path's running score), or none.
std::optional<ExtendAlignment> trace_ungapped(const ExtendTask& task, const kernels::ExtendScoring& scoring,
                                              const ExtendScore& best) {
  const int d = best.target_end - best.query_end, m = static_cast<int>(task.query.size());
  int h = 0, begin = 0;
  for (int i = 0; i < best.query_end; ++i) {
    const int before = i == 0 ? scoring.clip5 : h;
    if (i > 0 && h == 0) begin = i;  // the alignment restarts after a cell that fell to 0
    h = std::max(0, before + scoring.letter_score(task.query[i], task.target[i + d]));
  }
  if (h == 0 || h + (best.query_end == m ? scoring.clip3 : 0) != best.score) return std::nullopt;
  ExtendAlignment out;
  out.best = best;
  out.query_begin = begin;
  out.target_begin = begin + d;
  if (begin > 0) out.cigar.push_back({CigarOp::soft_clip, static_cast<std::uint32_t>(begin)});
  out.cigar.push_back({CigarOp::match, static_cast<std::uint32_t>(best.query_end - begin)});
  if (best.query_end < m) out.cigar.push_back({CigarOp::soft_clip, static_cast<std::uint32_t>(m - best.query_end)});
  return out;
}

// `length` letters of the window's reference text as codes, walls outside its sequence.
void append_window_letters(const index::SuffixIndex& index, const Window& window, std::size_t length,
                           std::vector<std::uint8_t>& out) {
  const auto& ref = index.reference();
  const std::int64_t seq_begin = static_cast<std::int64_t>(ref.starts[window.sequence]);
  const std::int64_t seq_end = seq_begin + static_cast<std::int64_t>(ref.lengths[window.sequence]);
  const std::string_view text = index.text();
  for (std::size_t k = 0; k < length; ++k) {
    const std::int64_t p = window.start + static_cast<std::int64_t>(k);
    out.push_back(p >= seq_begin && p < seq_end ? base_code_of(text[static_cast<std::size_t>(p)]) : kernels::kWallCode);
  }
}

}  // namespace

Window chain_window(const Chain& chain, std::uint32_t margin) {
  const std::int64_t spread = chain.diagonal_max - chain.diagonal_min;
  const std::int64_t half = (spread + 1) / 2 + margin;
  const std::int64_t center = chain.diagonal_min + spread / 2;
  return {center - half, static_cast<std::uint32_t>(2 * half + 1), chain.sequence};
}

int alignment_bonus(const Placement& p, std::int32_t read_length, const kernels::ExtendScoring& scoring) {
  return (p.query_begin == 0 ? scoring.clip5 : 0) + (p.query_end == read_length ? scoring.clip3 : 0);
}

int sam_score(const Placement& p, std::int32_t read_length, const kernels::ExtendScoring& scoring) {
  return p.score - alignment_bonus(p, read_length, scoring);
}

namespace {

// The score -T is compared with: the best stretch of the alignment once traced, else AS.
int threshold_score(const Placement& p, std::int32_t read_length, const kernels::ExtendScoring& scoring) {
  return std::max(sam_score(p, read_length, scoring), p.local_score);
}

}  // namespace

bool scores_enough(const Placement& p, std::int32_t read_length, const MapParams& params) {
  return threshold_score(p, read_length, params.scoring) >= params.min_score;
}

bool pairs_enough(const Placement& p, std::int32_t read_length, const MapParams& params) {
  const int floor = std::min(params.min_score, static_cast<int>(params.min_seed) * params.scoring.match);
  return threshold_score(p, read_length, params.scoring) >= floor;
}

int best_stretch_score(std::span<const kernels::CigarRun> cigar, const std::uint8_t* query, const std::uint8_t* target,
                       const kernels::ExtendScoring& scoring) {
  int best = 0, ending_here = 0;  // the best stretch, and the best one ending at the column reached
  auto add = [&](int score) {
    ending_here = std::max(ending_here + score, score);
    best = std::max(best, ending_here);
  };
  for (const kernels::CigarRun& run : cigar) {
    switch (run.op) {
      case kernels::CigarOp::match:
        for (std::uint32_t k = 0; k < run.length; ++k) add(scoring.letter_score(*query++, *target++));
        break;
      case kernels::CigarOp::insertion:
        query += run.length;
        add(-(scoring.gap_open + static_cast<int>(run.length) * scoring.gap_extend));
        break;
      case kernels::CigarOp::deletion:
        target += run.length;
        add(-(scoring.gap_open + static_cast<int>(run.length) * scoring.gap_extend));
        break;
      case kernels::CigarOp::soft_clip:
        break;
    }
  }
  return best;
}

Window rescue_window(std::int64_t lowest, std::int64_t highest, std::uint32_t sequence) {
  return {lowest, static_cast<std::uint32_t>(std::max<std::int64_t>(1, highest - lowest + 1)), sequence};
}

LocusAligner::LocusAligner(const index::SuffixIndex& index, const kernels::ExtendScoring& scoring,
                           kernels::ExtendScorer& scorer)
    : index_(index), scoring_(scoring), scorer_(scorer) {}

void LocusAligner::clear() {
  letters_.clear();
  offsets_.clear();
  queries_.clear();
  windows_.clear();
  widen_.clear();
  own_band_.clear();
  tasks_.clear();
  scores_.clear();
}

std::size_t LocusAligner::add(std::span<const std::uint8_t> query, const Window& window, bool widen) {
  offsets_.push_back(letters_.size());
  append_window_letters(index_, window, query.size() + window.band_width - 1, letters_);
  queries_.push_back(query);
  windows_.push_back(window);
  widen_.push_back(widen);
  return queries_.size() - 1;
}

ExtendTask LocusAligner::task(std::size_t id) const {
  return {queries_[id], letters_.data() + offsets_[id], windows_[id].band_width};
}

void LocusAligner::score_all() {
  tasks_.resize(queries_.size());
  for (std::size_t id = 0; id < tasks_.size(); ++id) tasks_[id] = task(id);
  scores_.assign(tasks_.size(), {});
  scorer_.score(tasks_, scores_);
}

void LocusAligner::score_wider(std::uint32_t margin) {
  const std::size_t scored = scores_.size();
  std::vector<std::size_t> narrow;  // the tasks scored again, and their wider ones' ids from `scored` on
  for (std::size_t id = 0; id < scored && margin > 0; ++id) {
    // The longest gap an alignment scoring more than this one can hold.
    const long long longest_gap =
        (scoring_.max_score(queries_[id].size()) - scores_[id].score - 1 - scoring_.gap_open) / scoring_.gap_extend;
    // A better alignment through a long gap has a chain on each side of it, and the band of the
    // chain before the gap ends short of the read's end: only such tasks are tried again.
    const bool reaches_end = scores_[id].query_end == static_cast<std::int32_t>(queries_[id].size());
    if (longest_gap <= margin || reaches_end || !widen_[id]) continue;
    const auto extra = static_cast<std::uint32_t>(std::min<long long>(longest_gap, kWiderBands * margin) - margin);
    Window wider = windows_[id];
    wider.start -= extra;
    wider.band_width += 2 * extra;
    add(queries_[id], wider);
    narrow.push_back(id);
  }
  if (narrow.empty()) return;
  tasks_.resize(queries_.size());
  for (std::size_t id = 0; id < tasks_.size(); ++id) tasks_[id] = task(id);  // letters_ may have moved
  scores_.resize(tasks_.size());
  scorer_.score(std::span(tasks_).subspan(scored), std::span(scores_).subspan(scored));
  for (std::size_t k = 0; k < narrow.size(); ++k) {
    const std::size_t id = narrow[k], wide = scored + k;
    if (scores_[wide].score <= scores_[id].score) continue;
    std::swap(scores_[id], scores_[wide]);
    std::swap(windows_[id], windows_[wide]);
    own_band_.resize(scored, kNone);
    own_band_[id] = wide;
  }
}

std::optional<std::size_t> LocusAligner::own_band(std::size_t id) const {
  if (id >= own_band_.size() || own_band_[id] == kNone) return std::nullopt;
  return own_band_[id];
}

Placement LocusAligner::placement(std::size_t id, bool reverse, std::int32_t query_begin) const {
  const ExtendScore& s = scores_[id];
  Placement p;
  p.reverse = reverse;
  p.sequence = windows_[id].sequence;
  p.score = s.score;
  p.query_end = s.query_end;
  p.text_end = windows_[id].start + s.target_end;
  // The alignment holds at least as many read letters as its score without the end bonuses counts
  // matches: a begin after that (a chain whose seeds start late) would leave too short a span.
  const int matched = (s.score - scoring_.clip5 - (s.query_end == static_cast<std::int32_t>(queries_[id].size()) ? scoring_.clip3 : 0)) /
                      std::max(1, scoring_.match);
  p.query_begin = std::clamp(std::min(query_begin, p.query_end - matched), 0, p.query_end);
  p.text_begin = p.text_end - (p.query_end - p.query_begin);
  p.window = windows_[id];
  return p;
}

std::vector<std::uint8_t> with_letters_masked(std::span<const std::uint8_t> codes, std::int32_t begin, std::int32_t end) {
  std::vector<std::uint8_t> letters(codes.begin(), codes.end());
  std::fill(letters.begin() + begin, letters.begin() + end, kernels::kAmbiguousCode);
  return letters;
}

void trace_placement(const index::SuffixIndex& index, const MapParams& params, std::span<const std::uint8_t> query,
                     Placement& placement, Trace trace) {
  const kernels::ExtendScoring& scoring = params.scoring;
  if (placement.traced) return;
  std::vector<std::uint8_t> masked;  // the letters its task aligned: the traceback must see the same
  if (placement.masked_end > placement.masked_begin) {
    masked = with_letters_masked(query, placement.masked_begin, placement.masked_end);
    query = masked;
  }
  const Window& w = placement.window;
  std::vector<std::uint8_t> target;
  append_window_letters(index, w, query.size() + w.band_width - 1, target);
  const ExtendTask t{query, target.data(), w.band_width};
  const ExtendScore best{placement.score, placement.query_end, static_cast<std::int32_t>(placement.text_end - w.start)};
  std::optional<ExtendAlignment> a = trace_ungapped(t, scoring, best);
  if (!a && trace == Trace::if_ungapped) return;
  if (!a) a = kernels::extend_align_near(t, scoring, best, params.aligner);
  placement.query_begin = a->query_begin;
  placement.text_begin = w.start + a->target_begin;
  placement.cigar = std::move(a->cigar);
  placement.local_score = best_stretch_score(placement.cigar, query.data() + a->query_begin, target.data() + a->target_begin, scoring);
  placement.traced = true;
}

std::uint64_t tie_hash(std::uint64_t key) {
  key += ~(key << 32);
  key ^= key >> 22;
  key += ~(key << 13);
  key ^= key >> 8;
  key += key << 3;
  key ^= key >> 15;
  key += ~(key << 27);
  key ^= key >> 31;
  return key;
}

namespace {

// The order of reference positions ties are ranked in (BWA's coordinates: the forward strand
// first by position, then the reverse strand, whose coordinates run backwards). Ends are exact
// where begins may be estimates; among alignments of one read they order alike.
bool before_on_reference(const Placement& a, const Placement& b) {
  if (a.reverse != b.reverse) return b.reverse;
  return a.reverse ? a.text_end > b.text_end : a.text_end < b.text_end;
}

// Placements [first, last), of one score and ranked by position, in the order of
// tie_hash(read_number + rank), rank counted from the best placement.
void order_equal_run(std::vector<Placement>& placements, std::size_t first, std::size_t last, std::uint64_t read_number) {
  std::vector<std::pair<std::uint64_t, std::size_t>> order;  // (tie hash, rank)
  for (std::size_t k = first; k < last; ++k) order.emplace_back(tie_hash(read_number + k), k);
  std::sort(order.begin(), order.end());
  std::vector<Placement> run;
  run.reserve(last - first);
  for (const auto& [hash, k] : order) run.push_back(std::move(placements[k]));
  std::move(run.begin(), run.end(), placements.begin() + static_cast<std::ptrdiff_t>(first));
}

}  // namespace

void sort_placements(std::vector<Placement>& placements, std::uint64_t read_number) {
  auto same_alignment = [](const Placement& a, const Placement& b) {
    return a.reverse == b.reverse && a.text_end == b.text_end && a.query_end == b.query_end;
  };
  std::sort(placements.begin(), placements.end(), [](const Placement& a, const Placement& b) {
    return std::tie(a.reverse, a.text_end, a.query_end, b.score) < std::tie(b.reverse, b.text_end, b.query_end, a.score);
  });
  placements.erase(std::unique(placements.begin(), placements.end(), same_alignment), placements.end());
  std::sort(placements.begin(), placements.end(), [](const Placement& a, const Placement& b) {
    if (a.score != b.score) return a.score > b.score;
    return before_on_reference(a, b);
  });
  for (std::size_t first = 0, last = 0; first < placements.size(); first = last) {
    while (last < placements.size() && placements[last].score == placements[first].score) ++last;
    if (last - first > 1) order_equal_run(placements, first, last, read_number);
  }
}

bool overlap_on_read(const Placement& a, const Placement& b, std::int32_t read_length) {
  // On the read's forward strand: a reverse placement's letters count from the other end.
  auto forward_span = [read_length](const Placement& p) {
    return p.reverse ? std::pair{read_length - p.query_end, read_length - p.query_begin}
                     : std::pair{p.query_begin, p.query_end};
  };
  const auto [ab, ae] = forward_span(a);
  const auto [bb, be] = forward_span(b);
  const std::int32_t shared = std::min(ae, be) - std::max(ab, bb);
  return shared > 0 && 2 * shared >= std::min(ae - ab, be - bb);
}

}  // namespace hyalign::map

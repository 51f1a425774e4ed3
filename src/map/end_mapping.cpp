#include "map/end_mapping.hpp"

#include <algorithm>

#include "core/nucleotides.hpp"
#include "map/mapq.hpp"

namespace hyalign::map {
namespace {

// Placements traced before pairing: the best few, and more of those within the unpaired penalty
// of the best (a repeat's copies, whose pairs may tie), up to a bound for reads of large families.
constexpr std::size_t kTracedBeforePairing = 4;
constexpr std::size_t kMostTracedBeforePairing = 64;

// The placement of a chain that matches the whole read exactly: no alignment scores more.
Placement exact_placement(const Chain& chain, std::int32_t length, const kernels::ExtendScoring& scoring) {
  Placement p;
  p.reverse = chain.reverse;
  p.sequence = chain.sequence;
  p.score = length * scoring.match + scoring.clip5 + scoring.clip3;
  p.text_begin = chain.diagonal_min;
  p.text_end = chain.diagonal_min + length;
  p.query_begin = 0;
  p.query_end = length;
  p.seed_weight = chain.weight;
  p.local_score = length * scoring.match;
  p.traced = true;
  p.cigar = {{kernels::CigarOp::match, static_cast<std::uint32_t>(length)}};
  return p;
}

// Letters of the union of `spans` and `more`.
std::uint32_t letters_covered(std::vector<LetterSpan> spans, std::span<const LetterSpan> more = {}) {
  spans.insert(spans.end(), more.begin(), more.end());
  std::sort(spans.begin(), spans.end(), [](const LetterSpan& a, const LetterSpan& b) { return a.begin < b.begin; });
  return letters_in_union(spans.begin(), spans.end(), [](const LetterSpan& s) { return s; });
}

// Whether `p` aligns at least half of the reference letters `side` does: a side it covers is the
// chain's own alignment found again, or a part of it. Until traced, p's begin is an estimate: the
// letters its score needs (a letter a point at most, less both clip bonuses) it surely holds, and
// those of its band before them it may; only where the two answers differ is it traced.
template <class Trace>
bool covers(Placement& p, const Placement& side, const kernels::ExtendScoring& scoring, Trace&& trace) {
  if (p.reverse != side.reverse) return false;
  const auto holds_half = [&](std::int64_t begin) {
    const std::int64_t shared = std::min(p.text_end, side.text_end) - std::max(begin, side.text_begin);
    return 2 * shared >= side.text_end - side.text_begin;
  };
  if (p.traced) return holds_half(p.text_begin);
  const std::int64_t sure = std::max(0, (p.score - scoring.clip5 - scoring.clip3) / std::max(1, scoring.match));
  if (holds_half(p.text_end - sure)) return true;
  if (!holds_half(p.window.start)) return false;
  trace(p);
  return holds_half(p.text_begin);
}

// The placements of chains' sides (Chain::sides, LocusAligner::own_band) that no other placement
// covers, added to `placements`: the read letters those left out.
template <class Trace>
void add_sides_aligned_apart(std::vector<Placement>& sides, std::vector<Placement>& placements,
                             const kernels::ExtendScoring& scoring, Trace&& trace) {
  const std::size_t others = placements.size();
  for (Placement& side : sides) {
    const bool apart = std::none_of(placements.begin(), placements.begin() + static_cast<std::ptrdiff_t>(others),
                                    [&](Placement& p) { return covers(p, side, scoring, trace); });
    if (apart) placements.push_back(std::move(side));
  }
}

bool matches_whole_read(const Chain& chain, std::int32_t length) {
  return chain.diagonal_min == chain.diagonal_max && chain.query_begin == 0 &&
         chain.query_end == static_cast<std::uint32_t>(length) && chain.weight == static_cast<std::uint32_t>(length);
}

}  // namespace

void EndLetters::assign(std::string_view letters) {
  const std::size_t n = letters.size();
  for (int strand = 0; strand < 2; ++strand) {
    codes[strand].resize(n);
    pattern[strand].resize(n);
  }
  // Through local pointers: a byte store may alias a vector's own pointers, which the loop would
  // then load again for every letter.
  std::uint8_t* forward = codes[0].data();
  std::uint8_t* reverse = codes[1].data();
  char* forward_pattern = pattern[0].data();
  char* reverse_pattern = pattern[1].data();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t code = base_code_of(letters[i]), complement = complement_code(code);
    forward[i] = code;
    reverse[n - 1 - i] = complement;
    forward_pattern[i] = "acgtN"[code];
    reverse_pattern[n - 1 - i] = "acgtN"[complement];
  }
}

EndMapper::EndMapper(const index::SuffixIndex& index, const MapParams& params)
    : index_(index), params_(params), seeds_(index, params) {}

void EndMapper::add_tasks(std::span<const EndLetters> ends, StrandSeeder& seeder, LocusAligner& aligner,
                          std::span<EndTasks> tasks) const {
  std::vector<std::vector<SeedHit>> hits(2 * ends.size());  // each end's forward strand, then its reverse
  std::vector<SeedQuery> queries;
  queries.reserve(2 * ends.size());
  for (std::size_t e = 0; e < ends.size(); ++e) {
    tasks[e] = {};
    for (int strand = 0; strand < 2; ++strand)
      queries.push_back({ends[e].pattern[strand], strand == 1, &hits[2 * e + strand], &tasks[e].repetitive_spans[strand],
                         &tasks[e].family_spans[strand]});
  }
  seeder.find(queries);
  for (std::size_t e = 0; e < ends.size(); ++e) {
    const EndLetters& letters = ends[e];
    EndTasks& t = tasks[e];
    std::vector<SeedHit>& end_hits = hits[2 * e];
    end_hits.insert(end_hits.end(), hits[2 * e + 1].begin(), hits[2 * e + 1].end());
    const std::string_view read[2] = {letters.pattern[0], letters.pattern[1]};
    for (const Chain& chain : chain_seeds(end_hits, index_.reference(), read, params_)) {
      if (matches_whole_read(chain, letters.length())) {
        t.exact.push_back(exact_placement(chain, letters.length(), params_.scoring));
        continue;
      }
      add_task(chain, letters.codes[chain.reverse], {}, aligner, t);
      for (std::size_t k = 0; k < chain.sides.size(); ++k) {
        const auto length = static_cast<std::uint32_t>(letters.length());
        const LetterSpan other = k == 0 ? LetterSpan{chain.split, length} : LetterSpan{0, chain.split};
        add_task(chain.sides[k], masked_letters(letters.codes[chain.reverse], other, t), other, aligner, t);
      }
    }
  }
}

std::span<const std::uint8_t> EndMapper::masked_letters(const std::vector<std::uint8_t>& codes, LetterSpan masked,
                                                        EndTasks& t) {
  // As N: an alignment gains nothing there and loses a point a letter (the kernels take no other
  // letter for "none"), so it keeps to the other letters.
  return t.masked_letters.emplace_back(with_letters_masked(codes, static_cast<std::int32_t>(masked.begin),
                                                          static_cast<std::int32_t>(masked.end)));
}

void EndMapper::add_task(const Chain& chain, std::span<const std::uint8_t> codes, LetterSpan masked,
                         LocusAligner& aligner, EndTasks& t) const {
  // A chain's side is not tried in a wider band: that would reach across to the other side.
  const bool side = masked.end > masked.begin;
  t.ids.push_back(aligner.add(codes, chain_window(chain, params_.band_margin), !side));
  t.weights.push_back(chain.weight);
  // An alignment reaches the read's start unless its seeds start well inside it.
  t.query_begins.push_back(chain.query_begin < params_.min_seed ? 0 : static_cast<std::int32_t>(chain.query_begin));
  t.reverse.push_back(chain.reverse);
  t.masked.push_back(masked);
}

void EndMapper::collect(const EndTasks& tasks, const LocusAligner& aligner, const EndLetters& letters,
                        std::uint64_t read_number, bool has_mate, EndResult& result) const {
  const std::int32_t read_length = letters.length();
  result = {};
  result.placements = tasks.exact;
  for (int strand = 0; strand < 2; ++strand) {
    const std::vector<LetterSpan>& repetitive = tasks.repetitive_spans[strand];
    result.repetitive_letters[strand] = letters_covered(repetitive);
    // Only a read with no mate is discounted for its families' letters (set_single_end_mapq).
    result.family_letters[strand] =
        has_mate ? result.repetitive_letters[strand] : letters_covered(repetitive, tasks.family_spans[strand]);
  }
  std::vector<Placement> sides;
  for (std::size_t k = 0; k < tasks.ids.size(); ++k) {
    Placement p = aligner.placement(tasks.ids[k], tasks.reverse[k], tasks.query_begins[k]);
    if (p.score <= 0) continue;
    p.seed_weight = tasks.weights[k];
    p.masked_begin = static_cast<std::int32_t>(tasks.masked[k].begin);
    p.masked_end = static_cast<std::int32_t>(tasks.masked[k].end);
    // Where a wider band found a better alignment, it may be another chain's, not this one's
    // through a gap: this chain's own is kept too where it lies apart.
    if (const auto own = aligner.own_band(tasks.ids[k])) {
      Placement narrow = aligner.placement(*own, tasks.reverse[k], tasks.query_begins[k]);
      narrow.seed_weight = tasks.weights[k];
      if (narrow.score > 0) sides.push_back(std::move(narrow));
    }
    (p.masked_end > p.masked_begin ? sides : result.placements).push_back(std::move(p));
  }
  add_sides_aligned_apart(sides, result.placements, params_.scoring,
                          [&](Placement& p) { trace_placement(index_, params_, letters.codes[p.reverse], p); });
  sort_placements(result.placements, read_number);
  // The best placements are traced now, so pairs compare exact insert sizes where it matters (an
  // estimated begin one letter off puts a copy's pair in another whole score unit than its equals);
  // the rest of a repeat's many placements keep estimated begins. An insert size reads a forward
  // placement's begin and a reverse one's end, exact from its score, so a reverse placement with
  // gaps is left to be traced if it is reported (the banded DP of such tracebacks was 18 % of the
  // run on a repeat-rich genome's pairs).
  const int near_best = result.placements.empty() ? 0 : result.placements.front().score - params_.unpaired_penalty;
  const std::size_t most = has_mate ? kMostTracedBeforePairing : kTracedBeforePairing;
  for (std::size_t k = 0; k < std::min(most, result.placements.size()); ++k) {
    Placement& p = result.placements[k];
    if (k >= kTracedBeforePairing && p.score < near_best) break;
    trace_placement(index_, params_, letters.codes[p.reverse], p, p.reverse ? Trace::if_ungapped : Trace::always);
  }
  choose_placements(result, read_length, params_);
  set_single_end_mapq(result, read_length, has_mate, params_);
}

namespace {

// The read's first letter (in the read's own direction) that `p` aligns.
std::int32_t five_prime_begin(const Placement& p, std::int32_t read_length) {
  return p.reverse ? read_length - p.query_end : p.query_begin;
}

// Primary, supplementary and secondary placements, the primary the first that scores enough (the
// pair's choice, `paired_first`, as one end of a pair).
void mark_placements(EndResult& result, std::int32_t read_length, const MapParams& params, bool paired_first) {
  auto& all = result.placements;
  result.primary = -1;
  result.supplementary.clear();
  result.secondary.clear();
  result.listed.clear();
  result.sub_score = 0;
  result.alternatives.clear();
  result.supplementary_alternatives.clear();
  result.supplementary_mapq.clear();
  if (all.empty()) return;
  if (!(paired_first ? pairs_enough : scores_enough)(all.front(), read_length, params)) return;
  std::vector<int> heads;  // the primary and supplementary placements
  for (std::size_t k = 0; k < all.size(); ++k) {
    const Placement& p = all[k];
    int over = -1;
    for (int h : heads)
      if (overlap_on_read(p, all[static_cast<std::size_t>(h)], read_length)) {
        over = h;
        break;
      }
    if (over < 0) {
      if (!(k == 0 || scores_enough(p, read_length, params))) continue;
      heads.push_back(static_cast<int>(k));
      if (heads.size() == 1) {
        result.primary = static_cast<int>(k);
      } else {
        result.supplementary.push_back(static_cast<int>(k));
        result.supplementary_alternatives.emplace_back();
      }
      continue;
    }
    if (over == result.primary) {
      result.sub_score = std::max(result.sub_score, sam_score(p, read_length, params.scoring));
      result.alternatives.push_back(p.score);
      if (scores_enough(p, read_length, params)) result.secondary.push_back(static_cast<int>(k));
    } else {
      const auto part = std::find(result.supplementary.begin(), result.supplementary.end(), over);
      result.supplementary_alternatives[static_cast<std::size_t>(part - result.supplementary.begin())].push_back(p.score);
    }
  }
  result.seed_weight = result.best().seed_weight;
}

}  // namespace

void choose_placements(EndResult& result, std::int32_t read_length, const MapParams& params, bool keep_first) {
  mark_placements(result, read_length, params, keep_first);
  if (!params.primary5 || result.supplementary.empty()) return;
  int first = result.primary;
  for (int k : result.supplementary)
    if (five_prime_begin(result.placements[static_cast<std::size_t>(k)], read_length) <
        five_prime_begin(result.placements[static_cast<std::size_t>(first)], read_length))
      first = k;
  if (first == result.primary) return;
  auto& all = result.placements;
  std::rotate(all.begin(), all.begin() + first, all.begin() + first + 1);
  mark_placements(result, read_length, params, keep_first);
}

std::vector<int> listed_alternatives(const EndResult& result, std::int32_t read_length, const MapParams& params) {
  std::vector<int> listed;
  if (params.all_alignments || !result.mapped()) return listed;
  const double least = kListedScoreRatio * sam_score(result.best(), read_length, params.scoring);
  for (int k : result.secondary)
    if (sam_score(result.placements[static_cast<std::size_t>(k)], read_length, params.scoring) >= least) listed.push_back(k);
  if (listed.size() > params.listed_alternatives) listed.clear();
  return listed;
}

namespace {

// -a: secondary placements scoring (AS) under -D of the primary are not reported.
void drop_weak_secondaries(EndResult& result, std::int32_t read_length, const MapParams& params) {
  const double least = params.drop_ratio * sam_score(result.best(), read_length, params.scoring);
  std::erase_if(result.secondary, [&](int k) {
    return sam_score(result.placements[static_cast<std::size_t>(k)], read_length, params.scoring) < least;
  });
}

}  // namespace

void trace_reported(EndResult& result, const EndLetters& letters, const index::SuffixIndex& index,
                    const MapParams& params) {
  if (!result.mapped()) return;
  auto trace = [&](int k) {
    Placement& p = result.placements[static_cast<std::size_t>(k)];
    trace_placement(index, params, letters.codes[p.reverse], p);
  };
  trace(result.primary);
  for (int k : result.supplementary) trace(k);
  set_supplementary_mapq(result, params);
  if (params.all_alignments) drop_weak_secondaries(result, letters.length(), params);
  result.listed = listed_alternatives(result, letters.length(), params);
  for (int k : params.all_alignments ? result.secondary : result.listed) trace(k);
}

}  // namespace hyalign::map

#include "map/pairing.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>
#include <vector>

#include "map/chains.hpp"
#include "map/mapq.hpp"

namespace hyalign::map {
namespace {

constexpr std::size_t kMinPairsForEstimate = 25;
// No estimate is made from an orientation's pairs that are this small a share of the confidently
// placed ones (BWA-MEM's share for a pair orientation): such pairs are then chance neighbours.
constexpr double kMinOrientationShare = 0.05;
constexpr int kConfidentMapq = 20;     // ends trusted for the insert-size estimate
constexpr double kOutlierIqrs = 2.0;   // beyond the quartiles, pairs left out of the estimate
constexpr double kProperSds = 4.0;     // proper pairs' insert sizes: mean +- this many sds, or
constexpr double kProperIqrs = 3.0;    // beyond the quartiles this many IQRs, where wider (BWA-MEM's)
constexpr int kPairedMapqBoost = 40;   // the most pairing adds to an end's own MAPQ

bool placed_confidently(const EndResult& end) { return end.mapped() && end.mapq >= kConfidentMapq; }

// Whether the seeds placed `end` more than once near `score`, or left out a seed with too many
// copies: a read of a repeat, whose seeds may miss copies of it, tandem ones next to a found one too.
bool placed_among_copies(const EndResult& end, int score, const MapParams& params) {
  if (end.repetitive()) return true;
  int near = 0;
  for (const Placement& p : end.placements) near += !p.rescued && p.score >= score - params.unpaired_penalty;
  return near > 1;
}

double quantile(const std::vector<std::int64_t>& sorted, double q) {
  return static_cast<double>(sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5)]);
}

// How many standard deviations an insert size lies from the mean.
double insert_sds(std::int64_t size, const InsertSizes& sizes) {
  return std::fabs(static_cast<double>(size) - sizes.mean) / std::max(sizes.sd, 1.0);
}

// The insert size's log-likelihood under the normal distribution, relative to the mean's, in
// score units: Phred points of likelihood divided by the points a score unit is worth, so that a
// pair's alignment scores and its insert size weigh on one scale, in the pair's choice and its MAPQ.
double insert_score(std::int64_t size, const InsertSizes& sizes, const kernels::ExtendScoring& scoring) {
  const double z = insert_sds(size, sizes);
  const double phred = 10.0 / std::log(10.0) * z * z / 2.0;
  return -phred / phred_per_score_unit(scoring);
}

// BWA-MEM's pair score, by which it chooses among pairs: the ends' scores plus the insert size's
// two-sided normal tail probability, log base 4 (one score unit per factor of 4) times the match
// score, rounded as BWA-MEM rounds. Pairs whose scores round alike (equal copies whose insert
// sizes differ by a letter or two) are equal choices there, broken by its hash (PositionRanks),
// and are here too: those few letters are no evidence of which copy a pair came from.
int whole_unit_pair_score(int ends_score, std::int64_t size, const InsertSizes& sizes,
                          const kernels::ExtendScoring& scoring) {
  const double z = insert_sds(size, sizes);
  // The floor keeps the logarithm finite where the tail underflows (an insert size far out).
  const double tail = std::log(std::max(2.0 * std::erfc(z / std::sqrt(2.0)), 1e-300)) / std::log(4.0) * scoring.match;
  return std::max(0, static_cast<int>(ends_score + tail + 0.499));
}

// Moves placements[k] to the front (the rest keep their order) and chooses again around it.
void make_primary(EndResult& end, int k, std::int32_t read_length, const MapParams& params) {
  if (k > 0) std::rotate(end.placements.begin(), end.placements.begin() + k, end.placements.begin() + k + 1);
  const int mapq = end.mapq;
  choose_placements(end, read_length, params, true);
  end.mapq = mapq;
}

// A pair of placements of the two ends (first's i, second's j), its score, and BWA-MEM's score of
// it in whole units (whole_unit_pair_score).
struct PairScore {
  double score;
  int i, j;
  int whole;
};

// Both ends' placements ranked together by reference position, as BWA-MEM's pairing walks them:
// a pair's tie hash is made from its two ends' ranks. Placements whose seeds weigh much less than
// those of another over the same read letters are left out, as BWA-MEM's chain filter drops such
// chains before it aligns them (outweighed_by). hyalign's own filter keeps one such chain beside
// each kept one, for the MAPQ, so they are among its placements; their scores cannot stand in for
// the filter, as an alignment scores more than its seeds cover. Rescued ones are all
// ranked, as BWA-MEM adds every mate search's find to its list, however weak. So is a weak one
// that pairs with a placement of the other end within the unpaired penalty of that end's best:
// BWA-MEM's mate search from that placement would have found it.
class PositionRanks {
 public:
  PositionRanks(const EndResult& first, const EndResult& second, std::int32_t length1, std::int32_t length2,
                const std::vector<PairScore>& pairs, const MapParams& params) {
    const std::array<std::vector<char>, 2> near_anchor = near_anchors(first, second, pairs, params.unpaired_penalty);
    struct Entry {
      std::int64_t position;  // the leftmost letter of a forward placement, the last of a reverse one
      int score;
      std::size_t index;
      bool reverse;
      int end;
    };
    std::vector<Entry> all;
    for (int end = 0; end < 2; ++end) {
      const auto& placements = (end == 0 ? first : second).placements;
      const std::int32_t length = end == 0 ? length1 : length2;
      rank_[end].assign(placements.size(), kUnranked);
      for (std::size_t k = 0; k < placements.size(); ++k) {
        const Placement& p = placements[k];
        if (!p.rescued && !near_anchor[end][k] && outweighed(p, placements, length, params)) continue;
        all.push_back({p.reverse ? p.text_end - 1 : p.text_begin, p.score, k, p.reverse, end});
      }
    }
    std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) {
      return std::tie(a.position, a.score, a.index, a.reverse, a.end) <
             std::tie(b.position, b.score, b.index, b.reverse, b.end);
    });
    for (std::size_t r = 0; r < all.size(); ++r) rank_[all[r].end][all[r].index] = r;
  }
  // The tie hash of the pair of first's placement i and second's j (the earlier in position first).
  std::uint32_t pair_tie(std::size_t i, std::size_t j, std::uint64_t pair_number) const {
    const std::uint64_t a = rank_[0][i], b = rank_[1][j];
    const std::uint64_t key = std::min(a, b) << 32 | std::max(a, b);
    return static_cast<std::uint32_t>(tie_hash(key ^ pair_number << 8));
  }

 private:
  // Per end, per placement: whether it pairs with a placement of the other end that scores within
  // `penalty` of that end's best (where BWA-MEM searches for the mate).
  static std::array<std::vector<char>, 2> near_anchors(const EndResult& first, const EndResult& second,
                                                       const std::vector<PairScore>& pairs, int penalty) {
    std::array<std::vector<char>, 2> near{std::vector<char>(first.placements.size()),
                                          std::vector<char>(second.placements.size())};
    const int first_floor = first.placements.front().score - penalty;
    const int second_floor = second.placements.front().score - penalty;
    for (const PairScore& p : pairs) {
      const auto i = static_cast<std::size_t>(p.i), j = static_cast<std::size_t>(p.j);
      if (second.placements[j].score >= second_floor) near[0][i] = 1;
      if (first.placements[i].score >= first_floor) near[1][j] = 1;
    }
    return near;
  }

  // Whether a placement found by seeds over the same read letters outweighs `p`'s seeds as BWA-MEM's
  // chain filter requires to drop p's chain.
  static bool outweighed(const Placement& p, const std::vector<Placement>& placements, std::int32_t read_length,
                         const MapParams& params) {
    return std::any_of(placements.begin(), placements.end(), [&](const Placement& q) {
      return !q.rescued && outweighed_by(p.seed_weight, q.seed_weight, params) && overlap_on_read(p, q, read_length);
    });
  }

  static constexpr std::uint64_t kUnranked = 0xffffffff;
  std::vector<std::uint64_t> rank_[2];
};

// The pair of the highest whole-unit score; among equal ones, the one of the larger tie hash
// (PositionRanks).
PairScore best_pair(const std::vector<PairScore>& pairs, const EndResult& first, const EndResult& second,
                    std::int32_t length1, std::int32_t length2, std::uint64_t pair_number, const MapParams& params) {
  int top = pairs.front().whole;
  for (const PairScore& p : pairs) top = std::max(top, p.whole);
  std::vector<const PairScore*> tied;
  for (const PairScore& p : pairs)
    if (p.whole == top) tied.push_back(&p);
  if (tied.size() == 1) return *tied.front();
  const PositionRanks ranks(first, second, length1, length2, pairs, params);
  auto tie = [&](const PairScore* p) {
    return ranks.pair_tie(static_cast<std::size_t>(p->i), static_cast<std::size_t>(p->j), pair_number);
  };
  return **std::max_element(tied.begin(), tied.end(), [&](const PairScore* x, const PairScore* y) { return tie(x) < tie(y); });
}

// Where orientation `o` puts the mate of `p` (the first end's placement when `anchor_first`), for
// insert sizes [low, high]: its strand and the text positions its leftmost letter may take.
struct MateRange {
  bool reverse = false;
  std::int64_t lowest = 0, highest = 0;
};
MateRange mate_range(const Placement& p, bool anchor_first, Orientation o, const InsertSizes& sizes,
                     std::int64_t mate_length) {
  const std::int64_t p5 = p.reverse ? p.text_end - 1 : p.text_begin;
  const bool same_strand = o == Orientation::ff || o == Orientation::rr;
  const bool mate_reverse = same_strand ? p.reverse : !p.reverse;
  // Whether the mate's 5' letter lies after p's in the text.
  bool after = false;
  switch (o) {
    case Orientation::fr: after = !p.reverse; break;
    case Orientation::rf: after = p.reverse; break;
    case Orientation::ff: after = anchor_first != p.reverse; break;
    case Orientation::rr: after = anchor_first == p.reverse; break;
  }
  const std::int64_t nearest5 = after ? p5 + sizes.low - 1 : p5 - (sizes.high - 1);
  const std::int64_t farthest5 = after ? p5 + sizes.high - 1 : p5 - (sizes.low - 1);
  const std::int64_t to_leftmost = mate_reverse ? mate_length - 1 : 0;
  return {mate_reverse, nearest5 - to_leftmost, farthest5 - to_leftmost};
}

}  // namespace

std::optional<PairGeometry> pair_geometry(const Placement& first, const Placement& second) {
  if (first.sequence != second.sequence) return std::nullopt;
  const std::int64_t a5 = first.reverse ? first.text_end - 1 : first.text_begin;
  const std::int64_t b5 = second.reverse ? second.text_end - 1 : second.text_begin;
  PairGeometry g;
  g.size = (a5 > b5 ? a5 - b5 : b5 - a5) + 1;
  if (first.reverse != second.reverse) {
    const std::int64_t forward5 = first.reverse ? b5 : a5, reverse5 = first.reverse ? a5 : b5;
    g.orientation = reverse5 >= forward5 ? Orientation::fr : Orientation::rf;
  } else {
    const bool second_after = first.reverse ? b5 < a5 : b5 > a5;  // along the strand both lie on
    g.orientation = second_after ? Orientation::ff : Orientation::rr;
  }
  return g;
}

std::optional<ProperInsert> proper_insert(const Placement& first, const Placement& second, const PairSizes& sizes) {
  const std::optional<PairGeometry> g = pair_geometry(first, second);
  if (!g) return std::nullopt;
  const InsertSizes& s = sizes.of[static_cast<std::size_t>(g->orientation)];
  if (!s.known || !s.proper(g->size)) return std::nullopt;
  return ProperInsert{g->size, &s};
}

InsertSizes given_insert_sizes(double mean, double sd) {
  InsertSizes sizes;
  sizes.known = true;
  sizes.mean = mean;
  sizes.sd = sd > 0 ? sd : mean * 0.1;
  sizes.low = std::max<std::int64_t>(1, std::llround(mean - kProperSds * sizes.sd));
  sizes.high = std::llround(mean + kProperSds * sizes.sd);
  return sizes;
}

PairSizes given_fr_sizes(double mean, double sd) {
  PairSizes sizes;
  sizes.of[static_cast<std::size_t>(Orientation::fr)] = given_insert_sizes(mean, sd);
  return sizes;
}

namespace {

// One orientation's distribution from its pairs' sizes (sorted in place), IQR outliers left out;
// nothing from too few.
InsertSizes estimate_orientation(std::vector<std::int64_t>& sizes) {
  std::sort(sizes.begin(), sizes.end());
  const double q1 = quantile(sizes, 0.25), q3 = quantile(sizes, 0.75), iqr = q3 - q1;
  const double low = q1 - kOutlierIqrs * iqr, high = q3 + kOutlierIqrs * iqr;
  double sum = 0, sum2 = 0;
  std::size_t n = 0;
  for (std::int64_t s : sizes)
    if (s >= low && s <= high) sum += static_cast<double>(s), sum2 += static_cast<double>(s) * s, ++n;
  if (n < kMinPairsForEstimate) return {};
  const double mean = sum / n, sd = std::sqrt(std::max(0.0, sum2 / n - mean * mean));
  InsertSizes out = given_insert_sizes(mean, std::max(sd, 1.0));
  out.low = std::max<std::int64_t>(1, std::min<std::int64_t>(out.low, std::llround(q1 - kProperIqrs * iqr)));
  out.high = std::max<std::int64_t>(out.high, std::llround(q3 + kProperIqrs * iqr));
  out.pairs = n;
  return out;
}

}  // namespace

PairSizes estimate_insert_sizes(std::span<const EndResult> ends, const PairSizes& previous) {
  std::array<std::vector<std::int64_t>, 4> sizes;
  std::size_t confident = 0;
  for (std::size_t k = 0; k + 1 < ends.size(); k += 2) {
    if (!placed_confidently(ends[k]) || !placed_confidently(ends[k + 1])) continue;
    ++confident;
    const std::optional<PairGeometry> g = pair_geometry(ends[k].best(), ends[k + 1].best());
    if (g && g->size <= kMaxEstimatedInsert) sizes[static_cast<std::size_t>(g->orientation)].push_back(g->size);
  }
  PairSizes out;
  for (std::size_t o = 0; o < sizes.size(); ++o)
    if (sizes[o].size() >= kMinPairsForEstimate &&
        static_cast<double>(sizes[o].size()) >= kMinOrientationShare * static_cast<double>(confident))
      out.of[o] = estimate_orientation(sizes[o]);
  return out.known() ? out : previous;
}

void queue_rescues(const EndResult& anchor, bool anchor_first, std::int32_t anchor_length, const EndLetters& mate_letters,
                   const EndResult& mate, const PairSizes& sizes, const index::ReferenceText& reference,
                   const MapParams& params, LocusAligner& aligner, std::vector<RescueTask>& tasks) {
  if (!anchor.mapped() || !sizes.known()) return;
  const std::int64_t length = mate_letters.length();
  const int floor = anchor.best().score - params.unpaired_penalty;
  // A repeat's seeds may have missed a better copy near the anchor's best place than the one found.
  const bool search_near_best = mate.mapped() && placed_among_copies(mate, mate.best().score, params);
  unsigned queued = 0;
  for (const Placement& p : anchor.placements) {
    if (p.score < floor || !scores_enough(p, anchor_length, params)) continue;
    bool mate_near = false;
    for (const Placement& q : mate.placements)
      mate_near |= (anchor_first ? proper_insert(p, q, sizes) : proper_insert(q, p, sizes)).has_value();
    if (mate_near && !(search_near_best && &p == &anchor.best())) continue;
    const std::int64_t seq_begin = static_cast<std::int64_t>(reference.starts[p.sequence]);
    const std::int64_t seq_end = seq_begin + static_cast<std::int64_t>(reference.lengths[p.sequence]);
    for (std::size_t o = 0; o < sizes.of.size() && queued < params.max_rescues; ++o) {
      if (!sizes.of[o].known) continue;
      const MateRange m = mate_range(p, anchor_first, static_cast<Orientation>(o), sizes.of[o], length);
      if (m.highest + length <= seq_begin || m.lowest >= seq_end) continue;
      const Window window = rescue_window(std::max(m.lowest, seq_begin - length), std::min(m.highest, seq_end), p.sequence);
      tasks.push_back({aligner.add(mate_letters.codes[m.reverse], window), m.reverse});
      ++queued;
    }
  }
}

void add_rescued(std::span<const RescueTask> tasks, const LocusAligner& aligner, std::int32_t read_length,
                 std::uint64_t read_number, const MapParams& params, EndResult& mate) {
  bool added = false;
  for (const RescueTask& t : tasks) {
    Placement p = aligner.placement(t.task, t.reverse, 0);
    if (!pairs_enough(p, read_length, params)) continue;
    const auto same_place = [&](const Placement& q) {
      return q.reverse == p.reverse && q.sequence == p.sequence && q.text_end == p.text_end;
    };
    if (std::any_of(mate.placements.begin(), mate.placements.end(), same_place)) continue;
    p.rescued = true;
    mate.placements.push_back(std::move(p));
    added = true;
  }
  if (!added) return;
  sort_placements(mate.placements, read_number);
  choose_placements(mate, read_length, params);
  set_single_end_mapq(mate, read_length, true, params);
}

bool proper_pair(const EndResult& first, const EndResult& second, const PairSizes& sizes) {
  return first.mapped() && second.mapped() && proper_insert(first.best(), second.best(), sizes).has_value();
}

bool choose_pair(EndResult& first, EndResult& second, std::int32_t length1, std::int32_t length2,
                 const PairSizes& sizes, const MapParams& params, std::uint64_t pair_number) {
  if (!sizes.known() || first.placements.empty() || second.placements.empty()) return false;
  std::vector<PairScore> pairs;
  std::vector<char> second_enough(second.placements.size());
  for (std::size_t j = 0; j < second.placements.size(); ++j)
    second_enough[j] = pairs_enough(second.placements[j], length2, params);
  for (std::size_t i = 0; i < first.placements.size(); ++i) {
    const Placement& a = first.placements[i];
    if (!pairs_enough(a, length1, params)) continue;
    for (std::size_t j = 0; j < second.placements.size(); ++j) {
      const Placement& b = second.placements[j];
      if (!second_enough[j]) continue;
      const std::optional<ProperInsert> insert = proper_insert(a, b, sizes);
      if (!insert) continue;
      pairs.push_back({a.score + b.score + insert_score(insert->size, *insert->sizes, params.scoring),
                       static_cast<int>(i), static_cast<int>(j),
                       whole_unit_pair_score(a.score + b.score, insert->size, *insert->sizes, params.scoring)});
    }
  }
  // Placements are sorted best first: an end with no primary (all under -T) counts its best too, as
  // BWA-MEM's unpaired score does.
  const double unpaired = first.placements.front().score + second.placements.front().score - params.unpaired_penalty;
  if (pairs.empty()) return false;
  const PairScore best = best_pair(pairs, first, second, length1, length2, pair_number, params);
  if (best.score < unpaired) return false;
  // Each end's alternatives: the pairs through its other placements, and hypothetically the ends
  // placed unpaired.
  const double repeats = (repetitive_share(first, first.placements[static_cast<std::size_t>(best.i)], length1, false) +
                          repetitive_share(second, second.placements[static_cast<std::size_t>(best.j)], length2, false)) / 2;
  auto end_mapq = [&](EndResult& end, int chosen, bool is_first) {
    const Placement& mine = end.placements[static_cast<std::size_t>(chosen)];
    // A repeat's read placed by a search near its mate: the search reports the best place of a
    // window that may hold other copies (a tandem one) as good.
    if (mine.rescued && placed_among_copies(end, mine.score, params)) return 0;
    const double hypothetical[] = {unpaired};
    std::vector<double> others;
    for (const PairScore& p : pairs)
      if ((is_first ? p.i : p.j) != chosen) others.push_back(p.score);
    const double unseen = best.score - mine.score + unseen_alternative_score(params);
    const int paired = discount_repeats(mapq_from_scores(best.score, others, hypothetical, unseen, params), repeats);
    return chosen == end.primary ? std::max(end.mapq, std::min(paired, end.mapq + kPairedMapqBoost)) : paired;
  };
  const int q1 = end_mapq(first, best.i, true), q2 = end_mapq(second, best.j, false);
  make_primary(first, best.i, length1, params);
  make_primary(second, best.j, length2, params);
  first.mapq = q1;
  second.mapq = q2;
  return true;
}

}  // namespace hyalign::map

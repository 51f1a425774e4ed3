#include "map/mapq.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hyalign::map {
namespace {

constexpr double kPhredPerMismatch = 25;  // log10(0.99 / (0.01 / 3)) * 10, Illumina's ~1 % errors
constexpr int kMaxMapq = 60;
// A family's copy a substitution away, on BWA-MEM's scale: its pair MAPQ takes 6.02 points a score
// unit (30.1 a substitution) less 10 log10(n + 1) for n such pairs, 27.1 for one.
constexpr double kFamilyPhredPerSubstitution = 27.1;
// Below this a placement is wrong more than one time in four: the pick between copies rests on an
// insert-size difference or a gap extension, too little evidence to rank it above MAPQ 0, the mark
// SAM readers (and `samtools view -q 1`) take for "one of several places". Measured on dwgsim pairs
// (docs/performance.md): the pair picks named 6 are wrong as often as Q6 says (25-30 %), those the
// model names 3-4 are wrong more often than it says on a real genome (60-68 % against 40-50 %).
constexpr double kMinNamedPhred = 6;
// A copy within one substitution of the placement differs from it at a single read base, where a
// sequencing error or a variant of the sample's genome (which the error model does not see: strains
// and paralogs differ from the reference far more often than bases are misread) swaps the two.
// BWA-MEM, whose MAPQ users' filters are tuned to (`-q 10`, `-q 20`), names such single reads 8-10
// (measured: 10 at 100 bp, 8 at 150 bp, less as identity drops); hyalign names them no higher, on
// the same scale: Phred points per substitution of gap, shrinking with the log of the aligned
// length past 50 letters and with the square of identity. A pair's mate is evidence of its own:
// pairing scores the pair's alternatives, as BWA-MEM does.
constexpr double kNearCopyPhredPerSubstitution = 13.5;
// A read with no mate whose letters lie in large repeat families (third-round matches of 20 copies
// or more) may have a copy its seeds missed, so those letters discount its MAPQ as repeats over -c
// do, but not below 20: that keeps MAPQ 60 honest on a 1.1 Gbp genome, and the reads the floor
// lifts to 20 were wrong 0.46 % of the time there and 0-0.5 % on the 20 Mbp repeat-rich genome
// (docs/performance.md), within what MAPQ 20 claims (1 %); those it lifts less, no more often than
// their new MAPQ says.
constexpr int kFamilyDiscountFloor = 20;

// Phred points against the placement `p` per score unit of gap to a near copy.
double near_copy_phred_per_unit(const Placement& p, std::int32_t read_length, const kernels::ExtendScoring& scoring) {
  const double length = std::max(p.query_end - p.query_begin, 1);
  const double one_substitution = scoring.match + scoring.mismatch;
  const double score = sam_score(p, read_length, scoring);
  const double identity = std::clamp(1.0 - (length * scoring.match - score) / one_substitution / length, 0.0, 1.0);
  const double shrink = (length <= 50 ? 1.0 : std::log(50.0) / std::log(length)) * identity * identity;
  return kNearCopyPhredPerSubstitution / one_substitution * shrink * shrink;
}

// The odds of n copies of a family summed, `summed`, counted as BWA-MEM counts n suboptimal hits
// (4.343 ln(n + 1) points): (n + 1) / 2 times one copy's.
double family_odds(double summed, int copies) { return copies == 0 ? 0 : summed * (copies + 1) / (2.0 * copies); }

// The MAPQ that the copies within one substitution leave the placement, on BWA-MEM's scale in the
// number of copies too: n copies at the same gap take 10 log10((n + 1) / 2) points more than one
// (BWA-MEM's 4.343 ln(n + 1) for n suboptimal hits). Summing n copies' odds, 10 log10(n), named 0
// the reads of a family of 8 copies (rRNA operons) that sit on the one copy a read's letter singles
// out, which BWA-MEM names 1-2 and are right 57 times in 58 (docs/performance.md).
int near_copies_mapq(const EndResult& end, std::int32_t read_length, const kernels::ExtendScoring& scoring) {
  const int best = end.best().score, one_substitution = scoring.match + scoring.mismatch;
  const double per_unit = near_copy_phred_per_unit(end.best(), read_length, scoring);
  double odds = 0;  // of the near copies against the placement
  int copies = 0;
  for (int score : end.alternatives)
    if (best - score <= one_substitution) odds += std::pow(10.0, -per_unit * std::max(0, best - score) / 10.0), ++copies;
  if (odds == 0) return kMaxMapq;
  odds = family_odds(odds, copies);
  return std::clamp(static_cast<int>(-10.0 * std::log10(odds) + 0.499), 0, kMaxMapq);
}

// The odds of the `others` against a placement scoring `best`, `weight` giving one's on the error
// model's scale. Those a substitution or more below it and within one of the best of them are
// copies of a family that the read's letters tell apart, weighed as BWA-MEM weighs its suboptimal
// pairs: kFamilyPhredPerSubstitution, and n copies (n + 1) / 2 times one, as near_copies_mapq counts
// them. Summed on the error model's scale, pairs in the 8 rRNA operons whose other copies differ
// from them in a letter were named 17-19 where BWA-MEM names them 21-22. Measured on 28 paired
// dwgsim sets (docs/performance.md), the ends this rule raised were wrong 26 times in 5,563 at
// MAPQ 19-29 (Q23, where they claim Q26 on average; BWA-MEM names 4,105 of them alike) and never
// in 3,105 at 30-60. Those less than a substitution below (picks on the insert size alone) are summed
// in full, on the error model's scale: such picks named 8-12 were wrong 18 % of the time (6-16 %
// claimed), and weighing their alternatives less put more of them wrong at MAPQ 10 than bwa.
template <typename Weight>
double others_odds(double best, std::span<const double> others, const Weight& weight,
                   const kernels::ExtendScoring& scoring) {
  const double substitution = scoring.match + scoring.mismatch;
  const auto letters_apart = [&](double s) { return best - s >= substitution; };
  double top = -std::numeric_limits<double>::infinity();
  for (double s : others)
    if (letters_apart(s)) top = std::max(top, s);
  const double family_scale = kFamilyPhredPerSubstitution / kPhredPerMismatch;
  double odds = 0, family = 0;
  int copies = 0;
  for (double s : others) {
    if (letters_apart(s) && top - s <= substitution) family += std::pow(weight(s), family_scale), ++copies;
    else odds += weight(s);
  }
  return odds + family_odds(family, copies);
}

}  // namespace

double phred_per_score_unit(const kernels::ExtendScoring& scoring) {
  return kPhredPerMismatch / (scoring.match + scoring.mismatch);
}

int unseen_alternative_score(const MapParams& params) {
  return static_cast<int>(params.min_seed) * params.scoring.match;
}

int mapq_from_scores(double best, std::span<const double> others, std::span<const double> hypothetical,
                     double unseen, const MapParams& params) {
  // An alternative as good as the placement: the choice between them is a coin toss, which SAM
  // readers (and every mapper) mark with 0.
  auto as_good = [best](double s) { return s >= best; };
  if (std::any_of(others.begin(), others.end(), as_good) || std::any_of(hypothetical.begin(), hypothetical.end(), as_good))
    return 0;
  const double per_unit = phred_per_score_unit(params.scoring);
  // Each alternative's likelihood relative to the placement's.
  auto weight = [&](double score) { return std::pow(10.0, -per_unit * std::max(0.0, best - score) / 10.0); };
  double rest = weight(unseen) + others_odds(best, others, weight, params.scoring);
  for (double s : hypothetical) rest += weight(s);
  const double wrong = rest / (1.0 + rest);
  const double q = -10.0 * std::log10(std::max(wrong, 1e-30));
  if (q < kMinNamedPhred) return 0;
  return std::clamp(static_cast<int>(q + 0.499), 0, kMaxMapq);
}

double repetitive_share(const EndResult& end, const Placement& p, std::int32_t read_length, bool with_families) {
  const int strand = p.reverse ? 1 : 0;
  const std::uint32_t letters = with_families ? end.family_letters[strand] : end.repetitive_letters[strand];
  return std::min(1.0, letters / static_cast<double>(std::max(read_length, 1)));
}

int discount_repeats(int mapq, double repetitive_share) {
  return static_cast<int>(mapq * (1.0 - repetitive_share) + 0.499);
}

void set_single_end_mapq(EndResult& end, std::int32_t read_length, bool has_mate, const MapParams& params) {
  if (!end.mapped()) {
    end.mapq = 0;
    return;
  }
  const int best = end.best().score;
  const std::vector<double> others(end.alternatives.begin(), end.alternatives.end());
  end.mapq = std::min(mapq_from_scores(best, others, {}, unseen_alternative_score(params), params),
                      near_copies_mapq(end, read_length, params.scoring));
  const int undiscounted = end.mapq;
  end.mapq = discount_repeats(undiscounted, repetitive_share(end, end.best(), read_length, false));
  if (has_mate) return;
  const int families = discount_repeats(undiscounted, repetitive_share(end, end.best(), read_length, true));
  end.mapq = std::max(families, std::min(end.mapq, kFamilyDiscountFloor));
}

void set_supplementary_mapq(EndResult& end, const MapParams& params) {
  end.supplementary_mapq.clear();
  for (std::size_t i = 0; i < end.supplementary.size(); ++i) {
    const Placement& part = end.placements[static_cast<std::size_t>(end.supplementary[i])];
    const std::vector<double> others(end.supplementary_alternatives[i].begin(), end.supplementary_alternatives[i].end());
    const int own = mapq_from_scores(part.score, others, {}, unseen_alternative_score(params), params);
    end.supplementary_mapq.push_back(std::min(own, end.mapq));
  }
}

}  // namespace hyalign::map

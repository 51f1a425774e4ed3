#pragma once
// Mapping qualities: the Phred-scaled probability that a placement is wrong, from the score gaps
// to the other placements found for the same read letters. A score unit is worth a fixed number of
// Phred points (a mismatch in place of a match costs match + mismatch units, and at Illumina error
// rates such a difference makes the other place about 10^-2.5 times as likely); a floor stands for
// the places the seeds would not find (a read aligned with many errors could have come from one).
#include <span>

#include "map/end_mapping.hpp"
#include "map/map.hpp"

namespace hyalign::map {

// Phred points per score unit for `scoring`.
double phred_per_score_unit(const kernels::ExtendScoring& scoring);

// MAPQ (0-60) of a placement scoring `best`, with `others` the scores of the other placements
// found for the same letters, `hypothetical` those of other explanations (a pair's ends placed
// unpaired) and `unseen` the score of an alternative the search might have missed.
int mapq_from_scores(double best, std::span<const double> others, std::span<const double> hypothetical,
                     double unseen, const MapParams& params);

// The score of an alternative the seeds could miss: one exact match of `min_seed` letters.
int unseen_alternative_score(const MapParams& params);

// The share of the read's letters on `p`'s strand whose copies the seeds may not all have looked
// at: letters that matched more than -c copies and, `with_families`, letters in large repeat
// families (kernels::in_large_family) too.
double repetitive_share(const EndResult& end, const Placement& p, std::int32_t read_length, bool with_families);

// `mapq` less the share of it that rests on letters whose copies were not looked at (BWA-MEM's
// frac_rep rule): such copies may be alternatives as good.
int discount_repeats(int mapq, double repetitive_share);

// The single-end MAPQ of an end's primary placement, from its alternatives. A read with no mate
// is discounted for its letters in large repeat families as well, down to MAPQ 20 at most: nothing
// else can place it among copies its seeds did not name. (A pair's mate does; discounting ends there
// cost more right placements than it saved wrong ones.)
void set_single_end_mapq(EndResult& end, std::int32_t read_length, bool has_mate, const MapParams& params);

// Each supplementary placement's MAPQ, from its own alternatives (supplementary_alternatives),
// no higher than the primary's (BWA-MEM's rule: a part is placed no surer than the read).
void set_supplementary_mapq(EndResult& end, const MapParams& params);

}  // namespace hyalign::map

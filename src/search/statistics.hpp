#pragma once
// Karlin–Altschul statistics for gapped local alignment scores: bit scores and E-values from the
// lambda and K that BLAST tabulates for each matrix and gap cost (BLAST convention: a gap of length
// k costs open + k·extend).
#include <optional>
#include <string_view>

namespace hyalign::search {

struct KarlinAltschul {
  double lambda = 0;
  double k = 0;
  double h = 0;  // relative entropy (nats), for reference
  // BLASTN's tables for some reward/penalty pairs (2/-3, 2/-5, 2/-7, 3/-4, and their multiples) hold
  // only for even scores: BLAST rounds odd raw scores down to even before reporting them and their
  // statistics (Blast_HSPListAdjustOddBlastnScores). bit_score()/evalue() do not round; callers do.
  bool round_down = false;
};

// Parameters for a built-in matrix name (case-insensitive) and gap costs, or nothing when the
// combination is not tabulated (then hyalign reports raw scores and leaves E-values empty).
std::optional<KarlinAltschul> karlin_altschul(std::string_view matrix, int gap_open, int gap_extend);
// DNA match/mismatch scoring (BLASTN's table for its supported reward/penalty/gap combinations).
std::optional<KarlinAltschul> karlin_altschul_dna(int match, int mismatch, int gap_open, int gap_extend);

double bit_score(int raw_score, const KarlinAltschul& ka);
// E-value of a raw score for a query of `query_length` residues against a database of
// `database_residues` residues: K·m·n·e^(−λS), without length correction.
double evalue(int raw_score, double query_length, double database_residues, const KarlinAltschul& ka);

}  // namespace hyalign::search

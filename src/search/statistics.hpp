#pragma once
// Karlin–Altschul statistics for gapped local alignment scores: bit scores and E-values as BLAST+
// computes them (blastp and blastn, without composition-based statistics), from the parameters BLAST
// tabulates for each matrix and gap cost (BLAST convention: a gap of length k costs open + k·extend).
// See docs/search-statistics.md.
#include <optional>
#include <string_view>

namespace hyalign::search {

// Spouge's finite-size correction (BLAST's Gumbel parameters, protein only): the lengths an
// alignment of score y spans in the query and in the subject are normal, with mean a·y + b,
// variance alpha·y + beta and covariance sigma·y + tau (these two at least 2·slope/λ).
struct FiniteSizeCorrection {
  double a = 0, b = 0;
  double alpha = 0, beta = 0;
  double sigma = 0, tau = 0;
};

struct KarlinAltschul {
  double lambda = 0;
  double k = 0;
  double h = 0;  // relative entropy (nats), for reference
  // BLASTN's tables for some reward/penalty pairs (2/-3, 2/-5, 2/-7, 3/-4, and their multiples) hold
  // only for even scores: evalue() rounds odd raw scores down to even, as BLAST+ does; the reported
  // score and its bit score are not rounded.
  bool round_down = false;
  // Length adjustment: an alignment of raw score S spans about alpha·S + beta residues.
  double alpha = 0, beta = 0;
  // Present for protein: E-values then use it, as blastp does.
  std::optional<FiniteSizeCorrection> finite_size = std::nullopt;
};

// Parameters for a built-in matrix name (case-insensitive) and gap costs, or nothing when the
// combination is not tabulated (then hyalign reports raw scores and leaves E-values empty).
std::optional<KarlinAltschul> karlin_altschul(std::string_view matrix, int gap_open, int gap_extend);
// DNA match/mismatch scoring (BLASTN's table for its supported reward/penalty/gap combinations).
std::optional<KarlinAltschul> karlin_altschul_dna(int match, int mismatch, int gap_open, int gap_extend);

// What an E-value depends on besides the score: one query, one database sequence, the database.
struct SearchSpace {
  double query_length = 0;
  double subject_length = 0;
  double database_residues = 0;
  double database_sequences = 0;
};

double bit_score(int raw_score, const KarlinAltschul& ka);
// BLAST+'s E-value: with a finite-size correction (protein), Spouge's pairwise E-value for the query
// and this subject, scaled by database_residues / subject_length; without one (DNA),
// K · effective_search_space · e^(−λS).
double evalue(int raw_score, const SearchSpace& space, const KarlinAltschul& ka);

// BLAST's length adjustment A: the largest integer below the fixed point of
// A = beta + (alpha/lambda)·ln(K·(m − A)·(n − N·A)) (m query length, n database residues, N database
// sequences), found by BLAST's iteration, so that its integer is BLAST's.
int length_adjustment(const KarlinAltschul& ka, double query_length, double database_residues,
                      double database_sequences);
// (m − A)·max(1, n − N·A): BLAST's effective search space.
double effective_search_space(const KarlinAltschul& ka, double query_length, double database_residues,
                              double database_sequences);

}  // namespace hyalign::search

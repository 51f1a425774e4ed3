#include "search/statistics.hpp"

#include <cctype>
#include <cmath>
#include <numeric>
#include <span>
#include <string>

// Karlin-Altschul parameters for gapped local alignment, as tabulated by NCBI BLAST.
// Source: NCBI C++ Toolkit, src/algo/blast/core/blast_stat.c (public domain, "United States
// Government Work"): the tables blosum45_values, blosum50_values, blosum62_values, blosum80_values,
// pam30_values, pam70_values, pam250_values (protein) and blastn_values_<reward>_<penalty>
// (nucleotide). Only the gapped entries are kept (BLAST's ungapped rows and BLASTN's (0, 0)
// "greedy / non-affine" rows have no counterpart in our affine gap costs). Gap costs follow
// BLAST's convention: a gap of length k costs open + k * extend.
// See docs/search-statistics.md.

namespace hyalign::search {

namespace {

struct GapEntry {
  int open;
  int extend;
  double lambda;
  double k;
  double h;
};

// ---- Protein (open, extend, lambda, K, H) ----

constexpr GapEntry kBlosum45[] = {
    {13, 3, 0.207, 0.049, 0.14},  {12, 3, 0.199, 0.039, 0.11},  {11, 3, 0.190, 0.031, 0.095},
    {10, 3, 0.179, 0.023, 0.075}, {16, 2, 0.210, 0.051, 0.14},  {15, 2, 0.203, 0.041, 0.12},
    {14, 2, 0.195, 0.032, 0.10},  {13, 2, 0.185, 0.024, 0.084}, {12, 2, 0.171, 0.016, 0.061},
    {19, 1, 0.205, 0.040, 0.11},  {18, 1, 0.198, 0.032, 0.10},  {17, 1, 0.189, 0.024, 0.079},
    {16, 1, 0.176, 0.016, 0.063},
};

constexpr GapEntry kBlosum50[] = {
    {13, 3, 0.212, 0.063, 0.19},  {12, 3, 0.206, 0.055, 0.17},  {11, 3, 0.197, 0.042, 0.14},
    {10, 3, 0.186, 0.031, 0.11},  {9, 3, 0.172, 0.022, 0.082},  {16, 2, 0.215, 0.066, 0.20},
    {15, 2, 0.210, 0.058, 0.17},  {14, 2, 0.202, 0.045, 0.14},  {13, 2, 0.193, 0.035, 0.12},
    {12, 2, 0.181, 0.025, 0.095}, {19, 1, 0.212, 0.057, 0.18},  {18, 1, 0.207, 0.050, 0.15},
    {17, 1, 0.198, 0.037, 0.12},  {16, 1, 0.186, 0.025, 0.10},  {15, 1, 0.171, 0.015, 0.063},
};

constexpr GapEntry kBlosum62[] = {
    {11, 2, 0.297, 0.082, 0.27}, {10, 2, 0.291, 0.075, 0.23}, {9, 2, 0.279, 0.058, 0.19},
    {8, 2, 0.264, 0.045, 0.15},  {7, 2, 0.239, 0.027, 0.10},  {6, 2, 0.201, 0.012, 0.061},
    {13, 1, 0.292, 0.071, 0.23}, {12, 1, 0.283, 0.059, 0.19}, {11, 1, 0.267, 0.041, 0.14},
    {10, 1, 0.243, 0.024, 0.10}, {9, 1, 0.206, 0.010, 0.052},
};

constexpr GapEntry kBlosum80[] = {
    {25, 2, 0.342, 0.17, 0.66}, {13, 2, 0.336, 0.15, 0.57},  {9, 2, 0.319, 0.11, 0.42},
    {8, 2, 0.308, 0.090, 0.35}, {7, 2, 0.293, 0.070, 0.27},  {6, 2, 0.268, 0.045, 0.19},
    {11, 1, 0.314, 0.095, 0.35}, {10, 1, 0.299, 0.071, 0.27}, {9, 1, 0.279, 0.048, 0.20},
};

constexpr GapEntry kPam30[] = {
    {7, 2, 0.305, 0.15, 0.87},  {6, 2, 0.287, 0.11, 0.68}, {5, 2, 0.264, 0.079, 0.45},
    {10, 1, 0.309, 0.15, 0.88}, {9, 1, 0.294, 0.11, 0.61}, {8, 1, 0.270, 0.072, 0.40},
};

constexpr GapEntry kPam70[] = {
    {8, 2, 0.301, 0.12, 0.54},  {7, 2, 0.286, 0.093, 0.43}, {6, 2, 0.264, 0.064, 0.29},
    {11, 1, 0.305, 0.12, 0.52}, {10, 1, 0.291, 0.091, 0.41}, {9, 1, 0.270, 0.060, 0.28},
};

constexpr GapEntry kPam250[] = {
    {15, 3, 0.205, 0.049, 0.13},  {14, 3, 0.200, 0.043, 0.12},  {13, 3, 0.194, 0.036, 0.10},
    {12, 3, 0.186, 0.029, 0.085}, {11, 3, 0.174, 0.020, 0.070}, {17, 2, 0.204, 0.047, 0.12},
    {16, 2, 0.198, 0.038, 0.11},  {15, 2, 0.191, 0.031, 0.087}, {14, 2, 0.182, 0.024, 0.073},
    {13, 2, 0.171, 0.017, 0.059}, {21, 1, 0.205, 0.045, 0.11},  {20, 1, 0.199, 0.037, 0.10},
    {19, 1, 0.192, 0.029, 0.083}, {18, 1, 0.183, 0.021, 0.070}, {17, 1, 0.171, 0.014, 0.052},
};

struct MatrixTable {
  std::string_view name;
  std::span<const GapEntry> gaps;
};

constexpr MatrixTable kProteinTables[] = {
    {"BLOSUM45", kBlosum45}, {"BLOSUM50", kBlosum50}, {"BLOSUM62", kBlosum62}, {"BLOSUM80", kBlosum80},
    {"PAM30", kPam30},       {"PAM70", kPam70},       {"PAM250", kPam250},
};

// ---- Nucleotide (open, extend, lambda, K, H) per reward/penalty ----

constexpr GapEntry kNucl_1_5[] = {{3, 3, 1.39, 0.747, 1.38}};
constexpr GapEntry kNucl_1_4[] = {
    {1, 2, 1.36, 0.67, 1.2}, {0, 2, 1.26, 0.43, 0.90}, {2, 1, 1.35, 0.61, 1.1}, {1, 1, 1.22, 0.35, 0.72}};
constexpr GapEntry kNucl_2_7[] = {
    {2, 4, 0.68, 0.67, 1.2}, {0, 4, 0.63, 0.43, 0.90}, {4, 2, 0.675, 0.62, 1.1}, {2, 2, 0.61, 0.35, 0.72}};
constexpr GapEntry kNucl_1_3[] = {{2, 2, 1.37, 0.70, 1.2}, {1, 2, 1.35, 0.64, 1.1}, {0, 2, 1.25, 0.42, 0.83},
                                  {2, 1, 1.34, 0.60, 1.1}, {1, 1, 1.21, 0.34, 0.71}};
constexpr GapEntry kNucl_2_5[] = {
    {2, 4, 0.67, 0.59, 1.1}, {0, 4, 0.62, 0.39, 0.78}, {4, 2, 0.67, 0.61, 1.0}, {2, 2, 0.56, 0.32, 0.59}};
constexpr GapEntry kNucl_1_2[] = {{2, 2, 1.33, 0.62, 1.1}, {1, 2, 1.30, 0.52, 0.93}, {0, 2, 1.19, 0.34, 0.66},
                                  {3, 1, 1.32, 0.57, 1.0}, {2, 1, 1.29, 0.49, 0.92}, {1, 1, 1.14, 0.26, 0.52}};
constexpr GapEntry kNucl_2_3[] = {{4, 4, 0.63, 0.42, 0.84},  {2, 4, 0.615, 0.37, 0.72}, {0, 4, 0.55, 0.21, 0.46},
                                  {3, 3, 0.615, 0.37, 0.68}, {6, 2, 0.63, 0.42, 0.84},  {5, 2, 0.625, 0.41, 0.78},
                                  {4, 2, 0.61, 0.35, 0.68},  {2, 2, 0.515, 0.14, 0.33}};
constexpr GapEntry kNucl_3_4[] = {{6, 3, 0.389, 0.25, 0.56}, {5, 3, 0.375, 0.21, 0.47},  {4, 3, 0.351, 0.14, 0.35},
                                  {6, 2, 0.362, 0.16, 0.45}, {5, 2, 0.330, 0.092, 0.28}, {4, 2, 0.281, 0.046, 0.16}};
constexpr GapEntry kNucl_4_5[] = {
    {6, 5, 0.28, 0.21, 0.47}, {5, 5, 0.27, 0.17, 0.39}, {4, 5, 0.25, 0.10, 0.31}, {3, 5, 0.23, 0.065, 0.25}};
constexpr GapEntry kNucl_1_1[] = {{3, 2, 1.09, 0.31, 0.55}, {2, 2, 1.07, 0.27, 0.49}, {1, 2, 1.02, 0.21, 0.36},
                                  {0, 2, 0.80, 0.064, 0.17}, {4, 1, 1.08, 0.28, 0.54}, {3, 1, 1.06, 0.25, 0.46},
                                  {2, 1, 0.99, 0.17, 0.30}};
constexpr GapEntry kNucl_3_2[] = {{5, 5, 0.208, 0.030, 0.072}};
constexpr GapEntry kNucl_5_4[] = {{10, 6, 0.163, 0.068, 0.16}, {8, 6, 0.146, 0.039, 0.11}};

struct NuclTable {
  int reward;
  int penalty;      // positive: mismatch score is -penalty
  bool round_down;  // BLAST: table valid for even scores only
  std::span<const GapEntry> gaps;
};

constexpr NuclTable kNuclTables[] = {
    {1, 5, false, kNucl_1_5}, {1, 4, false, kNucl_1_4}, {2, 7, true, kNucl_2_7},  {1, 3, false, kNucl_1_3},
    {2, 5, true, kNucl_2_5},  {1, 2, false, kNucl_1_2}, {2, 3, true, kNucl_2_3},  {3, 4, true, kNucl_3_4},
    {4, 5, false, kNucl_4_5}, {1, 1, false, kNucl_1_1}, {3, 2, false, kNucl_3_2}, {5, 4, false, kNucl_5_4},
};

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

}  // namespace

std::optional<KarlinAltschul> karlin_altschul(std::string_view matrix, int gap_open, int gap_extend) {
  for (const MatrixTable& table : kProteinTables) {
    if (!iequals(table.name, matrix)) continue;
    for (const GapEntry& e : table.gaps)
      if (e.open == gap_open && e.extend == gap_extend) return KarlinAltschul{e.lambda, e.k, e.h};
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<KarlinAltschul> karlin_altschul_dna(int match, int mismatch, int gap_open, int gap_extend) {
  if (match <= 0 || mismatch >= 0 || gap_open < 0 || gap_extend <= 0) return std::nullopt;
  // Like BLAST (s_GetNuclValuesArray): scores with a common divisor d use the table of the reduced
  // pair, with gap costs scaled by d and lambda divided by d (K and H are unchanged).
  const int d = std::gcd(match, -mismatch);
  if (gap_open % d != 0 || gap_extend % d != 0) return std::nullopt;
  const int reward = match / d, penalty = -mismatch / d;
  for (const NuclTable& table : kNuclTables) {
    if (table.reward != reward || table.penalty != penalty) continue;
    for (const GapEntry& e : table.gaps) {
      if (e.open * d == gap_open && e.extend * d == gap_extend)
        return KarlinAltschul{e.lambda / d, e.k, e.h, table.round_down};
    }
    return std::nullopt;
  }
  return std::nullopt;
}

double bit_score(int raw_score, const KarlinAltschul& ka) {
  return (ka.lambda * raw_score - std::log(ka.k)) / std::log(2.0);
}

double evalue(int raw_score, double query_length, double database_residues, const KarlinAltschul& ka) {
  return ka.k * query_length * database_residues * std::exp(-ka.lambda * raw_score);
}

}  // namespace hyalign::search

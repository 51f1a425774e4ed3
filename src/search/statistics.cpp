#include "search/statistics.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>
#include <numeric>
#include <span>
#include <string>

// Statistical parameters for gapped local alignment, as tabulated by NCBI BLAST.
// Source: NCBI C++ Toolkit, src/algo/blast/core/blast_stat.c (public domain, "United States
// Government Work"; the values are those of BLAST+ 2.12 and 2.16): the tables blosum45_values,
// blosum50_values, blosum62_values, blosum80_values, pam30_values, pam70_values, pam250_values
// (protein: lambda, K, H, alpha, beta, and Spouge's alpha_v and sigma; the first, ungapped row gives
// the ungapped alpha and alpha_v) and blastn_values_<reward>_<penalty> (nucleotide: lambda, K, H,
// alpha, beta). Only the gapped entries are kept (BLASTN's (0, 0) "greedy / non-affine" rows have no
// counterpart in our affine gap costs). Gap costs follow BLAST's convention: a gap of length k costs
// open + k * extend. See docs/search-statistics.md.

namespace hyalign::search {

namespace {

struct GapEntry {
  int open;
  int extend;
  double lambda;
  double k;
  double h;
  double alpha;        // length adjustment slope (also the mean slope a of Spouge's correction)
  double beta;         // length adjustment intercept
  double alpha_v = 0;  // Spouge: variance slope (protein only)
  double sigma = 0;    // Spouge: covariance slope (protein only)
};

// ---- Protein (open, extend, lambda, K, H, alpha, beta, alpha_v, sigma) ----

constexpr GapEntry kBlosum45[] = {
    {13, 3, 0.207, 0.049, 0.14, 1.5, -22, 35.8559, 35.9639},
    {12, 3, 0.199, 0.039, 0.11, 1.8, -34, 45.6936, 45.8517},
    {11, 3, 0.190, 0.031, 0.095, 2.0, -38, 62.8741, 63.1037},
    {10, 3, 0.179, 0.023, 0.075, 2.4, -51, 88.2868, 88.6391},
    {16, 2, 0.210, 0.051, 0.14, 1.5, -24, 36.2798, 36.4524},
    {15, 2, 0.203, 0.041, 0.12, 1.7, -31, 44.8257, 45.0604},
    {14, 2, 0.195, 0.032, 0.10, 1.9, -36, 60.7362, 61.1023},
    {13, 2, 0.185, 0.024, 0.084, 2.2, -45, 85.1481, 85.6894},
    {12, 2, 0.171, 0.016, 0.061, 2.8, -65, 127.758, 128.582},
    {19, 1, 0.205, 0.040, 0.11, 1.9, -43, 53.0714, 53.8282},
    {18, 1, 0.198, 0.032, 0.10, 2.0, -43, 72.3424, 73.4039},
    {17, 1, 0.189, 0.024, 0.079, 2.4, -57, 103.055, 104.721},
    {16, 1, 0.176, 0.016, 0.063, 2.8, -67, 170.1, 173.003},
};

constexpr GapEntry kBlosum50[] = {
    {13, 3, 0.212, 0.063, 0.19, 1.1, -16, 18.1138, 18.2028},
    {12, 3, 0.206, 0.055, 0.17, 1.2, -18, 22.6546, 22.7777},
    {11, 3, 0.197, 0.042, 0.14, 1.4, -25, 29.8611, 30.0457},
    {10, 3, 0.186, 0.031, 0.11, 1.7, -34, 42.3938, 42.674},
    {9, 3, 0.172, 0.022, 0.082, 2.1, -48, 66.0696, 66.5164},
    {16, 2, 0.215, 0.066, 0.20, 1.05, -15, 17.9518, 18.0921},
    {15, 2, 0.210, 0.058, 0.17, 1.2, -20, 21.9401, 22.1418},
    {14, 2, 0.202, 0.045, 0.14, 1.4, -27, 28.6812, 28.9619},
    {13, 2, 0.193, 0.035, 0.12, 1.6, -32, 42.0595, 42.4716},
    {12, 2, 0.181, 0.025, 0.095, 1.9, -41, 63.7476, 64.3973},
    {19, 1, 0.212, 0.057, 0.18, 1.2, -21, 26.3112, 26.9233},
    {18, 1, 0.207, 0.050, 0.15, 1.4, -28, 34.9037, 35.7348},
    {17, 1, 0.198, 0.037, 0.12, 1.6, -33, 48.8958, 50.1486},
    {16, 1, 0.186, 0.025, 0.10, 1.9, -42, 76.4691, 78.443},
    {15, 1, 0.171, 0.015, 0.063, 2.7, -76, 140.053, 144.16},
};

constexpr GapEntry kBlosum62[] = {
    {11, 2, 0.297, 0.082, 0.27, 1.1, -10, 12.6738, 12.7576},
    {10, 2, 0.291, 0.075, 0.23, 1.3, -15, 16.474, 16.6026},
    {9, 2, 0.279, 0.058, 0.19, 1.5, -19, 22.7519, 22.95},
    {8, 2, 0.264, 0.045, 0.15, 1.8, -26, 35.4838, 35.8213},
    {7, 2, 0.239, 0.027, 0.10, 2.5, -46, 61.2383, 61.886},
    {6, 2, 0.201, 0.012, 0.061, 3.3, -58, 140.417, 141.882},
    {13, 1, 0.292, 0.071, 0.23, 1.2, -11, 19.5063, 19.8931},
    {12, 1, 0.283, 0.059, 0.19, 1.5, -19, 27.8562, 28.4699},
    {11, 1, 0.267, 0.041, 0.14, 1.9, -30, 42.6028, 43.6362},
    {10, 1, 0.243, 0.024, 0.10, 2.5, -44, 83.1787, 85.0656},
    {9, 1, 0.206, 0.010, 0.052, 4.0, -87, 210.333, 214.842},
};

constexpr GapEntry kBlosum80[] = {
    {25, 2, 0.342, 0.17, 0.66, 0.52, -1.6, 1.731, 1.7313},
    {13, 2, 0.336, 0.15, 0.57, 0.59, -3, 2.67347, 2.6923},
    {9, 2, 0.319, 0.11, 0.42, 0.76, -6, 5.57609, 5.66786},
    {8, 2, 0.308, 0.090, 0.35, 0.89, -9, 7.53695, 7.68623},
    {7, 2, 0.293, 0.070, 0.27, 1.1, -14, 11.5866, 11.8404},
    {6, 2, 0.268, 0.045, 0.19, 1.4, -19, 19.9581, 20.4412},
    {11, 1, 0.314, 0.095, 0.35, 0.9, -9, 8.80861, 9.22332},
    {10, 1, 0.299, 0.071, 0.27, 1.1, -14, 13.8338, 14.5334},
    {9, 1, 0.279, 0.048, 0.20, 1.4, -19, 24.252, 25.4904},
};

constexpr GapEntry kPam30[] = {
    {7, 2, 0.305, 0.15, 0.87, 0.35, -3, 1.01401, 1.16273},
    {6, 2, 0.287, 0.11, 0.68, 0.42, -4, 1.68806, 1.95143},
    {5, 2, 0.264, 0.079, 0.45, 0.59, -7, 3.37701, 3.87195},
    {10, 1, 0.309, 0.15, 0.88, 0.35, -3, 1.37205, 1.78877},
    {9, 1, 0.294, 0.11, 0.61, 0.48, -6, 2.46392, 3.18615},
    {8, 1, 0.270, 0.072, 0.40, 0.68, -10, 5.36813, 6.76348},
    {15, 3, 0.339, 0.28, 1.70, 0.2, -0.5, 0.157089, 0.155299},
    {14, 2, 0.337, 0.27, 1.62, 0.21, -0.8, 0.20697, 0.198524},
    {14, 1, 0.333, 0.27, 1.43, 0.23, -1.4, 0.436301, 0.361947},
    {13, 3, 0.338, 0.27, 1.69, 0.2, -0.5, 0.178973, 0.175436},
};

constexpr GapEntry kPam70[] = {
    {8, 2, 0.301, 0.12, 0.54, 0.56, -5, 2.88165, 3.02571},
    {7, 2, 0.286, 0.093, 0.43, 0.67, -7, 4.53454, 4.78578},
    {6, 2, 0.264, 0.064, 0.29, 0.9, -12, 7.94263, 8.40272},
    {11, 1, 0.305, 0.12, 0.52, 0.59, -6, 3.6814, 4.10802},
    {10, 1, 0.291, 0.091, 0.41, 0.71, -9, 6.00297, 6.71657},
    {9, 1, 0.270, 0.060, 0.28, 0.97, -14, 11.3608, 12.6367},
    {11, 2, 0.323, 0.186, 0.80, 1.32, -27, 1.321301, 1.281671},
    {12, 3, 0.330, 0.219, 0.93, 0.82, -16, 0.818768, 0.81124},
};

constexpr GapEntry kPam250[] = {
    {15, 3, 0.205, 0.049, 0.13, 1.6, -23, 34.5784, 34.928},
    {14, 3, 0.200, 0.043, 0.12, 1.7, -26, 43.353, 43.4438},
    {13, 3, 0.194, 0.036, 0.10, 1.9, -31, 50.9485, 51.0817},
    {12, 3, 0.186, 0.029, 0.085, 2.2, -41, 69.6065, 69.7936},
    {11, 3, 0.174, 0.020, 0.070, 2.5, -48, 98.6535, 98.9271},
    {17, 2, 0.204, 0.047, 0.12, 1.7, -28, 41.5838, 41.7358},
    {16, 2, 0.198, 0.038, 0.11, 1.8, -29, 51.6352, 51.8439},
    {15, 2, 0.191, 0.031, 0.087, 2.2, -44, 67.2567, 67.5585},
    {14, 2, 0.182, 0.024, 0.073, 2.5, -53, 96.3151, 96.7568},
    {13, 2, 0.171, 0.017, 0.059, 2.9, -64, 135.653, 136.339},
    {21, 1, 0.205, 0.045, 0.11, 1.8, -34, 48.7282, 49.2188},
    {20, 1, 0.199, 0.037, 0.10, 1.9, -35, 60.832, 61.5141},
    {19, 1, 0.192, 0.029, 0.083, 2.3, -52, 84.0197, 84.9856},
    {18, 1, 0.183, 0.021, 0.070, 2.6, -60, 113.829, 115.184},
    {17, 1, 0.171, 0.014, 0.052, 3.3, -86, 175.071, 177.196},
};
// alpha and alpha_v of a matrix's ungapped row: Spouge's intercepts come from their gapped change.
struct UngappedLengths {
  double alpha;
  double alpha_v;
};

struct MatrixTable {
  std::string_view name;
  std::span<const GapEntry> gaps;
  UngappedLengths ungapped;
};

constexpr MatrixTable kProteinTables[] = {
    {"BLOSUM45", kBlosum45, {0.9113, 9.61106}}, {"BLOSUM50", kBlosum50, {0.6895, 5.38831}},
    {"BLOSUM62", kBlosum62, {0.7916, 4.96466}}, {"BLOSUM80", kBlosum80, {0.5222, 1.91813}},
    {"PAM30", kPam30, {0.1938, 0.161818}},      {"PAM70", kPam70, {0.3250, 0.633439}},
    {"PAM250", kPam250, {0.98, 11.7543}},
};

// ---- Nucleotide (open, extend, lambda, K, H, alpha, beta) per reward/penalty ----

constexpr GapEntry kNucl_1_5[] = {{3, 3, 1.39, 0.747, 1.38, 1.00, 0}};
constexpr GapEntry kNucl_1_4[] = {{1, 2, 1.36, 0.67, 1.2, 1.1, 0},
                                  {0, 2, 1.26, 0.43, 0.90, 1.4, -1},
                                  {2, 1, 1.35, 0.61, 1.1, 1.2, -1},
                                  {1, 1, 1.22, 0.35, 0.72, 1.7, -3}};
constexpr GapEntry kNucl_2_7[] = {{2, 4, 0.68, 0.67, 1.2, 0.55, 0},
                                  {0, 4, 0.63, 0.43, 0.90, 0.7, -1},
                                  {4, 2, 0.675, 0.62, 1.1, 0.6, -1},
                                  {2, 2, 0.61, 0.35, 0.72, 1.7, -3}};
constexpr GapEntry kNucl_1_3[] = {{2, 2, 1.37, 0.70, 1.2, 1.1, 0},
                                  {1, 2, 1.35, 0.64, 1.1, 1.2, -1},
                                  {0, 2, 1.25, 0.42, 0.83, 1.5, -2},
                                  {2, 1, 1.34, 0.60, 1.1, 1.2, -1},
                                  {1, 1, 1.21, 0.34, 0.71, 1.7, -2}};
constexpr GapEntry kNucl_2_5[] = {{2, 4, 0.67, 0.59, 1.1, 0.6, -1},
                                  {0, 4, 0.62, 0.39, 0.78, 0.8, -2},
                                  {4, 2, 0.67, 0.61, 1.0, 0.65, -2},
                                  {2, 2, 0.56, 0.32, 0.59, 0.95, -4}};
constexpr GapEntry kNucl_1_2[] = {{2, 2, 1.33, 0.62, 1.1, 1.2, 0},    {1, 2, 1.30, 0.52, 0.93, 1.4, -2},
                                  {0, 2, 1.19, 0.34, 0.66, 1.8, -3},  {3, 1, 1.32, 0.57, 1.0, 1.3, -1},
                                  {2, 1, 1.29, 0.49, 0.92, 1.4, -1},  {1, 1, 1.14, 0.26, 0.52, 2.2, -5}};
constexpr GapEntry kNucl_2_3[] = {{4, 4, 0.63, 0.42, 0.84, 0.75, -2}, {2, 4, 0.615, 0.37, 0.72, 0.85, -3},
                                  {0, 4, 0.55, 0.21, 0.46, 1.2, -5},  {3, 3, 0.615, 0.37, 0.68, 0.9, -3},
                                  {6, 2, 0.63, 0.42, 0.84, 0.75, -2}, {5, 2, 0.625, 0.41, 0.78, 0.8, -2},
                                  {4, 2, 0.61, 0.35, 0.68, 0.9, -3},  {2, 2, 0.515, 0.14, 0.33, 1.55, -9}};
constexpr GapEntry kNucl_3_4[] = {{6, 3, 0.389, 0.25, 0.56, 0.7, -5},  {5, 3, 0.375, 0.21, 0.47, 0.8, -6},
                                  {4, 3, 0.351, 0.14, 0.35, 1.0, -9},  {6, 2, 0.362, 0.16, 0.45, 0.8, -4},
                                  {5, 2, 0.330, 0.092, 0.28, 1.2, -13}, {4, 2, 0.281, 0.046, 0.16, 1.8, -23}};
constexpr GapEntry kNucl_4_5[] = {{6, 5, 0.28, 0.21, 0.47, 0.6, -7},
                                  {5, 5, 0.27, 0.17, 0.39, 0.7, -9},
                                  {4, 5, 0.25, 0.10, 0.31, 0.8, -10},
                                  {3, 5, 0.23, 0.065, 0.25, 0.9, -11}};
constexpr GapEntry kNucl_1_1[] = {{3, 2, 1.09, 0.31, 0.55, 2.0, -2},  {2, 2, 1.07, 0.27, 0.49, 2.2, -3},
                                  {1, 2, 1.02, 0.21, 0.36, 2.8, -6},  {0, 2, 0.80, 0.064, 0.17, 4.8, -16},
                                  {4, 1, 1.08, 0.28, 0.54, 2.0, -2},  {3, 1, 1.06, 0.25, 0.46, 2.3, -4},
                                  {2, 1, 0.99, 0.17, 0.30, 3.3, -10}};
constexpr GapEntry kNucl_3_2[] = {{5, 5, 0.208, 0.030, 0.072, 2.9, -47}};
constexpr GapEntry kNucl_5_4[] = {{10, 6, 0.163, 0.068, 0.16, 1.0, -19}, {8, 6, 0.146, 0.039, 0.11, 1.3, -29}};

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

// Spouge's intercepts follow from the gapped and ungapped slopes and G, the cost of a one-residue gap
// (BLAST's Blast_GumbelBlkLoadFromTables); the mean slope is the table's alpha.
FiniteSizeCorrection finite_size(const GapEntry& e, const UngappedLengths& ungapped) {
  const double two_g = 2.0 * (e.open + e.extend);
  return {.a = e.alpha,
          .b = two_g * (ungapped.alpha - e.alpha),
          .alpha = e.alpha_v,
          .beta = two_g * (ungapped.alpha_v - e.alpha_v),
          .sigma = e.sigma,
          .tau = two_g * (ungapped.alpha_v - e.sigma)};
}

// For a sequence of `length` residues and alignment lengths that are normal (mean, variance): the
// expected room left for the alignment's start, E[max(0, length − L)], and P(L < length).
struct Room {
  double expected;
  double probability;
};
Room room_for_start(double length, double mean, double variance) {
  const double sd = std::sqrt(variance), z = (length - mean) / sd;
  const double probability = 0.5 * std::erfc(-z / std::numbers::sqrt2);
  const double density = std::exp(-0.5 * z * z) * std::numbers::inv_sqrtpi / std::numbers::sqrt2;
  return {(length - mean) * probability + sd * density, probability};
}

// Spouge's E-value of score y for one query and one subject (BLAST_SpougeStoE), scaled from the pair
// to the whole database as BLAST does.
double spouge_evalue(int y, const SearchSpace& s, const KarlinAltschul& ka) {
  const FiniteSizeCorrection& f = *ka.finite_size;
  const double mean = f.a * y + f.b;
  // BLAST floors the variance and covariance at 2·slope/λ, where the linear fits fail for low scores.
  const double variance = std::max(2 * f.alpha / ka.lambda, f.alpha * y + f.beta);
  const double covariance = std::max(2 * f.sigma / ka.lambda, f.sigma * y + f.tau);
  const Room query = room_for_start(s.query_length, mean, variance);
  const Room subject = room_for_start(s.subject_length, mean, variance);
  const double area = query.expected * subject.expected + covariance * query.probability * subject.probability;
  return area * ka.k * std::exp(-ka.lambda * y) * s.database_residues / s.subject_length;
}

}  // namespace

std::optional<KarlinAltschul> karlin_altschul(std::string_view matrix, int gap_open, int gap_extend) {
  for (const MatrixTable& table : kProteinTables) {
    if (!iequals(table.name, matrix)) continue;
    for (const GapEntry& e : table.gaps)
      if (e.open == gap_open && e.extend == gap_extend)
        return KarlinAltschul{e.lambda, e.k, e.h, false, e.alpha, e.beta, finite_size(e, table.ungapped)};
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<KarlinAltschul> karlin_altschul_dna(int match, int mismatch, int gap_open, int gap_extend) {
  if (match <= 0 || mismatch >= 0 || gap_open < 0 || gap_extend <= 0) return std::nullopt;
  // Like BLAST (s_GetNuclValuesArray): scores with a common divisor d use the table of the reduced
  // pair, with gap costs scaled by d and lambda and alpha divided by d (K, H and beta are unchanged).
  const int d = std::gcd(match, -mismatch);
  if (gap_open % d != 0 || gap_extend % d != 0) return std::nullopt;
  const int reward = match / d, penalty = -mismatch / d;
  for (const NuclTable& table : kNuclTables) {
    if (table.reward != reward || table.penalty != penalty) continue;
    for (const GapEntry& e : table.gaps) {
      if (e.open * d == gap_open && e.extend * d == gap_extend)
        return KarlinAltschul{e.lambda / d, e.k, e.h, table.round_down, e.alpha / d, e.beta, std::nullopt};
    }
    return std::nullopt;
  }
  return std::nullopt;
}

double bit_score(int raw_score, const KarlinAltschul& ka) {
  return (ka.lambda * raw_score - std::log(ka.k)) / std::numbers::ln2;
}

double evalue(int raw_score, const SearchSpace& space, const KarlinAltschul& ka) {
  const int score = ka.round_down ? raw_score & ~1 : raw_score;
  if (ka.finite_size) return spouge_evalue(score, space, ka);
  return ka.k *
         effective_search_space(ka, space.query_length, space.database_residues, space.database_sequences) *
         std::exp(-ka.lambda * score);
}

int length_adjustment(const KarlinAltschul& ka, double query_length, double database_residues,
                      double database_sequences) {
  const double m = query_length, n = database_residues, count = database_sequences;
  const auto expected_length = [&](double ell) {
    return ka.beta + ka.alpha / ka.lambda * (std::log(ka.k) + std::log((m - ell) * (n - count * ell)));
  };
  // The adjustment must leave K·(m − ell)·(n − N·ell) > max(m, n): ell stays below the smaller root
  // of that quadratic.
  const double c = m * n - std::max(m, n) / ka.k;
  if (c < 0) return 0;
  const double b = m * count + n;
  double upper = 2 * c / (b + std::sqrt(b * b - 4 * count * c));
  double lower = 0, ell = 0;
  bool converged = false;
  // BLAST's iteration (BLAST_ComputeLengthAdjustment): fixed-point steps while they stay inside
  // [lower, upper], bisection otherwise, at most 20 steps.
  for (int step = 1; step <= 20; ++step) {
    const double next = expected_length(ell);
    if (next >= ell) {
      lower = ell;
      if (next - lower <= 1.0) {
        converged = true;
        break;
      }
      if (lower == upper) break;
    } else {
      upper = ell;
    }
    if (lower <= next && next <= upper)
      ell = next;
    else
      ell = step == 1 ? upper : (lower + upper) / 2;
  }
  const int floor_lower = static_cast<int>(lower);
  if (!converged) return floor_lower;
  // The fixed point may already lie at or above the next integer.
  const double ceiling = std::ceil(lower);
  return ceiling <= upper && expected_length(ceiling) >= ceiling ? static_cast<int>(ceiling) : floor_lower;
}

double effective_search_space(const KarlinAltschul& ka, double query_length, double database_residues,
                              double database_sequences) {
  const int a = length_adjustment(ka, query_length, database_residues, database_sequences);
  return (query_length - a) * std::max(1.0, database_residues - database_sequences * a);
}

}  // namespace hyalign::search

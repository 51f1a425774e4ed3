#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "search/statistics.hpp"

using hyalign::search::bit_score;
using hyalign::search::evalue;
using hyalign::search::karlin_altschul;
using hyalign::search::karlin_altschul_dna;
using hyalign::search::KarlinAltschul;

TEST(Statistics, Blosum62DefaultGapsMatchBlast) {
  const auto ka = karlin_altschul("BLOSUM62", 11, 1);
  ASSERT_TRUE(ka.has_value());
  EXPECT_DOUBLE_EQ(ka->lambda, 0.267);
  EXPECT_DOUBLE_EQ(ka->k, 0.041);
  EXPECT_DOUBLE_EQ(ka->h, 0.14);
  EXPECT_FALSE(ka->round_down);
  const auto lower = karlin_altschul("blosum62", 11, 1);
  ASSERT_TRUE(lower.has_value());
  EXPECT_DOUBLE_EQ(lower->lambda, 0.267);
}

// BLAST's recommended (BLAST_MATRIX_BEST) gap costs of every built-in matrix, plus a second entry each.
TEST(Statistics, EveryMatrixHasItsBlastDefaults) {
  struct Case {
    const char* matrix;
    int open, extend;
    double lambda, k, h;
  };
  const Case cases[] = {
      {"BLOSUM45", 14, 2, 0.195, 0.032, 0.10},  {"BLOSUM45", 16, 1, 0.176, 0.016, 0.063},
      {"BLOSUM50", 13, 2, 0.193, 0.035, 0.12},  {"BLOSUM50", 9, 3, 0.172, 0.022, 0.082},
      {"BLOSUM62", 11, 1, 0.267, 0.041, 0.14},  {"BLOSUM62", 6, 2, 0.201, 0.012, 0.061},
      {"BLOSUM80", 10, 1, 0.299, 0.071, 0.27},  {"BLOSUM80", 25, 2, 0.342, 0.17, 0.66},
      {"PAM30", 9, 1, 0.294, 0.11, 0.61},       {"PAM30", 5, 2, 0.264, 0.079, 0.45},
      {"PAM70", 10, 1, 0.291, 0.091, 0.41},     {"PAM70", 8, 2, 0.301, 0.12, 0.54},
      {"PAM250", 14, 2, 0.182, 0.024, 0.073},   {"PAM250", 21, 1, 0.205, 0.045, 0.11},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << c.matrix << " " << c.open << "/" << c.extend);
    const auto ka = karlin_altschul(c.matrix, c.open, c.extend);
    ASSERT_TRUE(ka.has_value());
    EXPECT_DOUBLE_EQ(ka->lambda, c.lambda);
    EXPECT_DOUBLE_EQ(ka->k, c.k);
    EXPECT_DOUBLE_EQ(ka->h, c.h);
  }
}

TEST(Statistics, TableSizesMatchBlast) {
  // Gapped entries per matrix in blast_stat.c (its *_VALUES_MAX minus the ungapped row).
  const std::pair<const char*, int> sizes[] = {{"BLOSUM45", 13}, {"BLOSUM50", 15}, {"BLOSUM62", 11},
                                               {"BLOSUM80", 9},  {"PAM30", 6},     {"PAM70", 6},
                                               {"PAM250", 15}};
  for (const auto& [matrix, expected] : sizes) {
    int found = 0;
    for (int open = 0; open <= 30; ++open)
      for (int extend = 0; extend <= 5; ++extend) found += karlin_altschul(matrix, open, extend).has_value();
    EXPECT_EQ(found, expected) << matrix;
  }
}

TEST(Statistics, UntabulatedCombinationsHaveNoParameters) {
  EXPECT_FALSE(karlin_altschul("BLOSUM62", 11, 3).has_value());
  EXPECT_FALSE(karlin_altschul("BLOSUM62", 5, 1).has_value());
  EXPECT_FALSE(karlin_altschul("BLOSUM62", 0, 0).has_value());
  EXPECT_FALSE(karlin_altschul("BLOSUM90", 10, 1).has_value());
  EXPECT_FALSE(karlin_altschul("mymatrix.txt", 11, 1).has_value());
  EXPECT_FALSE(karlin_altschul("", 11, 1).has_value());
}

TEST(Statistics, BlastnTables) {
  // blastn default scoring: +2/-3, open 5, extend 2.
  auto ka = karlin_altschul_dna(2, -3, 5, 2);
  ASSERT_TRUE(ka.has_value());
  EXPECT_DOUBLE_EQ(ka->lambda, 0.625);
  EXPECT_DOUBLE_EQ(ka->k, 0.41);
  EXPECT_DOUBLE_EQ(ka->h, 0.78);
  EXPECT_TRUE(ka->round_down);

  ka = karlin_altschul_dna(2, -3, 4, 4);
  ASSERT_TRUE(ka.has_value());
  EXPECT_DOUBLE_EQ(ka->lambda, 0.63);
  EXPECT_DOUBLE_EQ(ka->k, 0.42);

  for (auto [open, extend] : {std::pair{4, 4}, {2, 4}, {0, 4}, {3, 3}, {6, 2}, {5, 2}, {4, 2}, {2, 2}})
    EXPECT_TRUE(karlin_altschul_dna(2, -3, open, extend).has_value()) << open << "/" << extend;

  // megablast-style scoring +1/-2 with affine gaps 2/1.
  ka = karlin_altschul_dna(1, -2, 2, 1);
  ASSERT_TRUE(ka.has_value());
  EXPECT_DOUBLE_EQ(ka->lambda, 1.29);
  EXPECT_DOUBLE_EQ(ka->k, 0.49);
  EXPECT_DOUBLE_EQ(ka->h, 0.92);
  EXPECT_FALSE(ka->round_down);

  ka = karlin_altschul_dna(1, -3, 2, 2);
  ASSERT_TRUE(ka.has_value());
  EXPECT_DOUBLE_EQ(ka->lambda, 1.37);
  EXPECT_DOUBLE_EQ(ka->k, 0.70);

  ka = karlin_altschul_dna(1, -1, 0, 2);
  ASSERT_TRUE(ka.has_value());
  EXPECT_DOUBLE_EQ(ka->lambda, 0.80);
  EXPECT_DOUBLE_EQ(ka->k, 0.064);

  ka = karlin_altschul_dna(3, -4, 5, 2);
  ASSERT_TRUE(ka.has_value());
  EXPECT_DOUBLE_EQ(ka->lambda, 0.330);
  EXPECT_TRUE(ka->round_down);

  ka = karlin_altschul_dna(5, -4, 10, 6);
  ASSERT_TRUE(ka.has_value());
  EXPECT_DOUBLE_EQ(ka->lambda, 0.163);
}

TEST(Statistics, BlastnScalesMultiplesOfATabulatedPair) {
  // +2/-4 is +1/-2 scaled by 2: gap costs double, lambda halves, K and H stay.
  auto ka = karlin_altschul_dna(2, -4, 4, 2);
  ASSERT_TRUE(ka.has_value());
  EXPECT_DOUBLE_EQ(ka->lambda, 1.29 / 2);
  EXPECT_DOUBLE_EQ(ka->k, 0.49);
  EXPECT_DOUBLE_EQ(ka->h, 0.92);
  // +4/-6 is +2/-3 scaled by 2.
  ka = karlin_altschul_dna(4, -6, 10, 4);
  ASSERT_TRUE(ka.has_value());
  EXPECT_DOUBLE_EQ(ka->lambda, 0.3125);
  EXPECT_DOUBLE_EQ(ka->k, 0.41);
  EXPECT_TRUE(ka->round_down);
  // Gap costs that are not multiples of the divisor are not tabulated.
  EXPECT_FALSE(karlin_altschul_dna(2, -4, 3, 2).has_value());
}

TEST(Statistics, UntabulatedDnaCombinationsHaveNoParameters) {
  EXPECT_FALSE(karlin_altschul_dna(2, -3, 1, 1).has_value());
  EXPECT_FALSE(karlin_altschul_dna(2, -3, 5, 3).has_value());
  EXPECT_FALSE(karlin_altschul_dna(7, -11, 5, 2).has_value());
  EXPECT_FALSE(karlin_altschul_dna(2, -3, 0, 0).has_value());  // BLAST's greedy (non-affine) entry
  EXPECT_FALSE(karlin_altschul_dna(0, -3, 5, 2).has_value());
  EXPECT_FALSE(karlin_altschul_dna(2, 3, 5, 2).has_value());
  EXPECT_FALSE(karlin_altschul_dna(2, 0, 5, 2).has_value());
}

// Hand-computed: BLOSUM62 11/1, S = 50: lambda*S = 13.35, ln K = ln 0.041 = -3.194183212,
// bits = (13.35 + 3.194183212) / ln 2 = 23.86821108; E = 0.041 * 100 * 1e6 * e^-13.35 = 6.530591569.
TEST(Statistics, BitScoreAndEvalueByHand) {
  const KarlinAltschul ka{0.267, 0.041, 0.14};
  EXPECT_NEAR(bit_score(50, ka), 23.86821108, 1e-7);
  EXPECT_NEAR(evalue(50, 100, 1e6, ka), 6.530591569, 1e-8);
  // +2/-3 5/2, S = 40: bits = (25 - ln 0.41) / ln 2 = 37.35368021; E = 0.41 * 1000 * 5e9 * e^-25.
  const KarlinAltschul dna{0.625, 0.41, 0.78, true};
  EXPECT_NEAR(bit_score(40, dna), 37.35368021, 1e-7);
  EXPECT_NEAR(evalue(40, 1000, 5e9, dna), 28.47028492, 1e-7);
  // Score 0: bits = -log2 K, E = K m n.
  EXPECT_NEAR(bit_score(0, ka), -std::log2(0.041), 1e-12);
  EXPECT_NEAR(evalue(0, 10, 20, ka), 0.041 * 200, 1e-12);
}

TEST(Statistics, EvalueIsSearchSpaceTimesTwoToMinusBits) {
  const KarlinAltschul ka{0.267, 0.041, 0.14};
  for (int s : {10, 37, 100, 250}) {
    const double m = 321, n = 4.5e7;
    EXPECT_NEAR(evalue(s, m, n, ka) / (m * n * std::exp2(-bit_score(s, ka))), 1.0, 1e-12) << s;
  }
  // Each extra raw point divides E by e^lambda.
  EXPECT_NEAR(evalue(60, 100, 1e6, ka) / evalue(61, 100, 1e6, ka), std::exp(0.267), 1e-12);
}

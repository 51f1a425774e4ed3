#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "search/statistics.hpp"

using hyalign::search::bit_score;
using hyalign::search::effective_search_space;
using hyalign::search::evalue;
using hyalign::search::karlin_altschul;
using hyalign::search::karlin_altschul_dna;
using hyalign::search::KarlinAltschul;
using hyalign::search::length_adjustment;
using hyalign::search::SearchSpace;

TEST(Statistics, Blosum62DefaultGapsMatchBlast) {
  const auto ka = karlin_altschul("BLOSUM62", 11, 1);
  ASSERT_TRUE(ka.has_value());
  EXPECT_DOUBLE_EQ(ka->lambda, 0.267);
  EXPECT_DOUBLE_EQ(ka->k, 0.041);
  EXPECT_DOUBLE_EQ(ka->h, 0.14);
  EXPECT_FALSE(ka->round_down);
  EXPECT_DOUBLE_EQ(ka->alpha, 1.9);
  EXPECT_DOUBLE_EQ(ka->beta, -30);
  // Spouge's parameters: slopes from the 11/1 row, intercepts 2·(11 + 1)·(ungapped − gapped slope)
  // with the ungapped row's alpha 0.7916 and alpha_v 4.96466.
  ASSERT_TRUE(ka->finite_size.has_value());
  EXPECT_DOUBLE_EQ(ka->finite_size->a, 1.9);
  EXPECT_NEAR(ka->finite_size->b, 24 * (0.7916 - 1.9), 1e-12);
  EXPECT_DOUBLE_EQ(ka->finite_size->alpha, 42.6028);
  EXPECT_NEAR(ka->finite_size->beta, 24 * (4.96466 - 42.6028), 1e-12);
  EXPECT_DOUBLE_EQ(ka->finite_size->sigma, 43.6362);
  EXPECT_NEAR(ka->finite_size->tau, 24 * (4.96466 - 43.6362), 1e-12);
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
                                               {"BLOSUM80", 9},  {"PAM30", 10},    {"PAM70", 8},
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
  EXPECT_DOUBLE_EQ(ka->alpha, 0.8);
  EXPECT_DOUBLE_EQ(ka->beta, -2);
  EXPECT_FALSE(ka->finite_size.has_value());  // BLAST has no Gumbel parameters for DNA

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
  // +2/-4 is +1/-2 scaled by 2: gap costs double, lambda and alpha halve, K, H and beta stay.
  auto ka = karlin_altschul_dna(2, -4, 4, 2);
  ASSERT_TRUE(ka.has_value());
  EXPECT_DOUBLE_EQ(ka->lambda, 1.29 / 2);
  EXPECT_DOUBLE_EQ(ka->k, 0.49);
  EXPECT_DOUBLE_EQ(ka->h, 0.92);
  EXPECT_DOUBLE_EQ(ka->alpha, 1.4 / 2);
  EXPECT_DOUBLE_EQ(ka->beta, -1);
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
// bits = (13.35 + 3.194183212) / ln 2 = 23.86821108; +2/-3 5/2, S = 40: (25 - ln 0.41) / ln 2.
TEST(Statistics, BitScoreByHand) {
  const KarlinAltschul ka{0.267, 0.041, 0.14};
  EXPECT_NEAR(bit_score(50, ka), 23.86821108, 1e-7);
  const KarlinAltschul dna{0.625, 0.41, 0.78, true};
  EXPECT_NEAR(bit_score(40, dna), 37.35368021, 1e-7);
  EXPECT_NEAR(bit_score(0, ka), -std::log2(0.041), 1e-12);
}

// BLAST's length adjustments and effective search spaces ("Statistics_hsp-len" and
// "Statistics_eff-space" of blastp/blastn 2.12 -outfmt 5) for the queries of tests/data/blast.
TEST(Statistics, LengthAdjustmentMatchesBlast) {
  struct Case {
    const char* matrix;
    int open, extend;
    double query_length;
    int adjustment;
    double search_space;
  };
  // Database: tests/data/blast/proteins.fasta, 162,079 residues in 993 sequences.
  const Case cases[] = {
      {"BLOSUM62", 11, 1, 35, 9, 3981692},      {"BLOSUM62", 11, 1, 144, 60, 8609916},
      {"BLOSUM62", 11, 1, 348, 68, 26475400},   {"BLOSUM62", 11, 1, 2554, 83, 196839860},
      {"BLOSUM45", 14, 2, 35, 3, 5091200},      {"BLOSUM45", 14, 2, 422, 95, 22152288},
      {"PAM30", 9, 1, 35, 14, 3111717},         {"PAM30", 9, 1, 2554, 22, 355069956},
      {"BLOSUM80", 10, 1, 176, 37, 17421982},   {"PAM250", 14, 2, 35, 0, 5672765},
      {"PAM250", 14, 2, 189, 92, 6860131},      {"PAM250", 14, 2, 2554, 140, 55664426},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << c.matrix << " " << c.open << "/" << c.extend << " m=" << c.query_length);
    const auto ka = karlin_altschul(c.matrix, c.open, c.extend);
    ASSERT_TRUE(ka.has_value());
    EXPECT_EQ(length_adjustment(*ka, c.query_length, 162079, 993), c.adjustment);
    EXPECT_EQ(effective_search_space(*ka, c.query_length, 162079, 993), c.search_space);
  }
  // blastn +2/-3 5/2 against the 16S reference of tests/data/papara/q2_16S (624,056 bases, 508 sequences).
  const auto dna = karlin_altschul_dna(2, -3, 5, 2);
  ASSERT_TRUE(dna.has_value());
  EXPECT_EQ(length_adjustment(*dna, 125, 624056, 508), 19);
  EXPECT_EQ(effective_search_space(*dna, 125, 624056, 508), 65126824);
  // No adjustment where K·m·n does not exceed max(m, n) (0.41 · 2 · 2 < 2): too small to correct.
  EXPECT_EQ(length_adjustment(*dna, 2, 2, 1), 0);
  EXPECT_EQ(effective_search_space(*dna, 2, 2, 1), 4);
}

// Spouge's finite-size correction against blastp 2.12's E-values (-outfmt 5, six digits) for hits of
// tests/data/blast's queries FLAV_NOSSM (35 residues) and 7LES_DROME (2,554 residues).
TEST(Statistics, SpougeEvaluesMatchBlastp) {
  struct Case {
    const char* matrix;
    int open, extend;
    double query_length, subject_length;
    int score;
    double blast_evalue;
  };
  const Case cases[] = {
      {"BLOSUM62", 11, 1, 35, 35, 174, 1.64642e-21},     {"BLOSUM62", 11, 1, 35, 170, 138, 8.99265e-15},
      {"BLOSUM62", 11, 1, 35, 170, 93, 3.22122e-08},     {"BLOSUM62", 11, 1, 2554, 272, 526, 1.46661e-61},
      {"BLOSUM62", 11, 1, 2554, 147, 46, 45.272},        {"BLOSUM62", 11, 1, 2554, 160, 32, 2567.27},
      {"BLOSUM45", 14, 2, 2554, 273, 1726, 2.1695e-162}, {"BLOSUM45", 14, 2, 2554, 520, 64, 40.2679},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << c.matrix << " m=" << c.query_length << " n=" << c.subject_length
                                    << " S=" << c.score);
    const auto ka = karlin_altschul(c.matrix, c.open, c.extend);
    ASSERT_TRUE(ka.has_value());
    const double e = evalue(c.score, {c.query_length, c.subject_length, 162079, 993}, *ka);
    EXPECT_NEAR(e / c.blast_evalue, 1.0, 1e-5);
  }
}

// Without a finite-size correction (DNA) the E-value is K times BLAST's effective search space times
// e^(−λS), with odd scores rounded down to even for the even-score tables (the bit score is not).
TEST(Statistics, DnaEvalueUsesTheEffectiveSearchSpace) {
  const auto ka = karlin_altschul_dna(2, -3, 5, 2);
  ASSERT_TRUE(ka.has_value());
  const SearchSpace space{125, 1170, 624056, 508};
  EXPECT_NEAR(evalue(154, space, *ka) / (0.41 * 65126824 * std::exp(-0.625 * 154)), 1.0, 1e-12);
  EXPECT_EQ(evalue(155, space, *ka), evalue(154, space, *ka));
  EXPECT_GT(bit_score(155, *ka), bit_score(154, *ka));
  // The subject's length does not enter: BLAST uses the database's totals only.
  EXPECT_EQ(evalue(154, {125, 50, 624056, 508}, *ka), evalue(154, space, *ka));
}

namespace {

// One line of BLAST+'s -outfmt '6 qseqid sseqid evalue bitscore score qlen slen'.
struct BlastRow {
  std::string qseqid, sseqid, evalue, bitscore;
  int score = 0;
  double qlen = 0, slen = 0;
};

std::vector<BlastRow> read_blast_rows(const std::string& path) {
  std::ifstream in(path);
  std::vector<BlastRow> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    BlastRow r;
    std::getline(fields, r.qseqid, '\t');
    std::getline(fields, r.sseqid, '\t');
    std::getline(fields, r.evalue, '\t');
    std::getline(fields, r.bitscore, '\t');
    fields >> r.score >> r.qlen >> r.slen;
    rows.push_back(r);
  }
  return rows;
}

// Whether `value` prints as BLAST's `text`: within half a unit of its last digit, where BLAST rounds
// (E-values, bit scores up to 99.9), or in [text, text + 1) where it cuts to an integer (bit scores
// over 99.9). "0.0" stands for E-values under 1e-180.
bool prints_as(double value, const std::string& text, bool cut_integers) {
  if (text == "0.0") return value < 1e-180;
  const std::size_t e = text.find('e');
  const std::string mantissa = text.substr(0, e);
  const std::size_t dot = mantissa.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(mantissa.size() - dot - 1);
  const int exponent = e == std::string::npos ? 0 : std::stoi(text.substr(e + 1));
  const double printed = std::stod(text), unit = std::pow(10.0, exponent - decimals);
  const double slack = 1e-9 * std::abs(printed);  // rounding ties
  if (cut_integers && dot == std::string::npos && e == std::string::npos)
    return value >= printed - slack && value < printed + 1 + slack;
  return std::abs(value - printed) <= unit / 2 + slack;
}

// Every row of a BLAST+ output recomputed from its raw score and lengths.
void expect_blast_statistics(const std::string& path, const KarlinAltschul& ka, double residues, double sequences,
                             std::size_t min_rows) {
  const std::vector<BlastRow> rows = read_blast_rows(path);
  ASSERT_GE(rows.size(), min_rows) << path;
  std::size_t wrong = 0;
  for (const BlastRow& r : rows) {
    const double e = evalue(r.score, {r.qlen, r.slen, residues, sequences}, ka);
    const double bits = bit_score(r.score, ka);
    if (prints_as(e, r.evalue, false) && prints_as(bits, r.bitscore, true)) continue;
    if (++wrong <= 10)
      ADD_FAILURE() << r.qseqid << " " << r.sseqid << " score " << r.score << ": E " << e << " bits " << bits
                    << ", BLAST " << r.evalue << " " << r.bitscore;
  }
  EXPECT_EQ(wrong, 0u) << "of " << rows.size() << " rows";
}

}  // namespace

// blastp 2.12 (BLOSUM62 11/1, -comp_based_stats 0 -seg no) on real proteins: tests/data/blast/README.md.
// The database as makeblastdb counts it: 162,079 residues in 993 sequences.
TEST(Statistics, EveryBlastpEvalueAndBitScoreIsReproduced) {
  const auto ka = karlin_altschul("BLOSUM62", 11, 1);
  ASSERT_TRUE(ka.has_value());
  expect_blast_statistics(HYALIGN_TEST_DATA "/blast/blastp.tsv", *ka, 162079, 993, 7000);
}

// blastn 2.12 (-task blastn +2/-3 5/2, one strand) on 16S: 624,056 bases in 508 sequences.
TEST(Statistics, EveryBlastnEvalueAndBitScoreIsReproduced) {
  const auto ka = karlin_altschul_dna(2, -3, 5, 2);
  ASSERT_TRUE(ka.has_value());
  expect_blast_statistics(HYALIGN_TEST_DATA "/blast/blastn.tsv", *ka, 624056, 508, 3600);
}

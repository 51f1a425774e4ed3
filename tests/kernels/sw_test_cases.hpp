#pragma once
// Scorings and checks shared by the Smith-Waterman kernel tests.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/score_matrix.hpp"
#include "kernels/scalar/sw_scalar.hpp"
#include "test_support.hpp"

namespace hyalign::test {

struct SwScoringCase {
  std::string name;
  ScoreMatrix matrix;
  std::string letters;
  int open, extend;
  kernels::SwScoring scoring() const { return {&matrix, open, extend}; }
  std::vector<std::uint8_t> encode(const std::string& s) const {
    std::vector<std::uint8_t> out;
    for (char c : s) out.push_back(matrix.encode(c));
    return out;
  }
};

// Protein and DNA, usual and zero gap costs.
inline std::vector<SwScoringCase> sw_scoring_cases() {
  std::vector<SwScoringCase> all;
  all.push_back({"blosum62_11_1", ScoreMatrix::builtin("BLOSUM62"), kAmino, 11, 1});
  all.push_back({"blosum45_15_2", ScoreMatrix::builtin("BLOSUM45"), kAmino, 15, 2});
  all.push_back({"pam30_9_1", ScoreMatrix::builtin("PAM30"), kAmino, 9, 1});
  all.push_back({"blosum62_0_0", ScoreMatrix::builtin("BLOSUM62"), kAmino, 0, 0});
  all.push_back({"dna_2_-3_5_2", ScoreMatrix::dna(2, -3), kDna, 5, 2});
  all.push_back({"dna_1_-1_0_1", ScoreMatrix::dna(1, -1), kDna, 0, 1});
  return all;
}

// Field for field.
inline void expect_same_alignment(const kernels::SwAlignment& got, const kernels::SwAlignment& want) {
  EXPECT_EQ(got.score, want.score);
  EXPECT_EQ(got.query_start, want.query_start);
  EXPECT_EQ(got.query_end, want.query_end);
  EXPECT_EQ(got.target_start, want.target_start);
  EXPECT_EQ(got.target_end, want.target_end);
  EXPECT_EQ(got.length, want.length);
  EXPECT_EQ(got.identities, want.identities);
  EXPECT_EQ(got.mismatches, want.mismatches);
  EXPECT_EQ(got.gap_opens, want.gap_opens);
  EXPECT_EQ(got.gap_columns, want.gap_columns);
  EXPECT_EQ(got.cigar, want.cigar);
}

}  // namespace hyalign::test

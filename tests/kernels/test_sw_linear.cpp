// sw_align_linear (the linear-space traceback over the cells an alignment of the best score can pass
// through) against sw_align_scalar (the full matrix): the same alignment, field for field, on random
// protein and DNA pairs of lengths 0..2000, similar and unrelated, under several gap costs, on
// repeats full of ties, and whatever score it is given.
#include <gtest/gtest.h>

#include <climits>
#include <random>
#include <string>
#include <vector>

#include "core/score_matrix.hpp"
#include "kernels/scalar/sw_linear.hpp"
#include "kernels/scalar/sw_scalar.hpp"
#include "sw_test_cases.hpp"
#include "test_support.hpp"

using namespace hyalign;
using namespace hyalign::kernels;

namespace {

using test::kAmino;
using test::kDna;
using ScoringCase = test::SwScoringCase;
using test::expect_same_alignment;
const auto scoring_cases = test::sw_scoring_cases;

// Both tracebacks of one pair, the linear one given the best score.
void check_pair(const ScoringCase& setup, const std::string& a, const std::string& b) {
  SCOPED_TRACE(a.size() < 60 && b.size() < 60 ? a + " / " + b : std::to_string(a.size()) + " x " + std::to_string(b.size()));
  const auto q = setup.encode(a), t = setup.encode(b);
  const SwAlignment want = sw_align_scalar(q, t, setup.scoring());
  expect_same_alignment(sw_align_linear(q, t, setup.scoring(), want.score), want);
}

TEST(SwLinear, SameAlignmentOnRandomPairs) {
  std::mt19937 rng(15);
  std::uniform_int_distribution<std::size_t> length(0, 2000);
  std::uniform_real_distribution<double> rate(0.0, 0.2);
  for (const ScoringCase& setup : scoring_cases()) {
    SCOPED_TRACE(setup.name);
    const auto noise = [&](std::size_t n) { return test::random_sequence(rng, setup.letters, n); };
    for (int pair = 0; pair < 20; ++pair) {
      const std::string a = noise(pair < 10 ? pair : length(rng));
      const std::string b = pair % 3 == 2 ? noise(length(rng)) : test::relative_of(rng, a, setup.letters, rate(rng));
      // End to end, one inside the other (the alignment starts and ends inside it), and overlapping
      // ends (rows before the alignment, columns after it).
      const std::size_t pad = 15 * static_cast<std::size_t>(pair);
      check_pair(setup, a, b);
      check_pair(setup, a, noise(pad) + b + noise(pad / 3));
      check_pair(setup, noise(pad / 3) + b + noise(pad), a);
      check_pair(setup, noise(pad) + a, b + noise(pad));
      check_pair(setup, b + noise(pad), noise(pad) + a);
      if (HasFailure()) return;
    }
  }
}

TEST(SwLinear, SameAlignmentWhereTiesAbound) {
  std::mt19937 rng(16);
  for (const ScoringCase& setup : scoring_cases()) {
    SCOPED_TRACE(setup.name);
    const std::string two = setup.letters.substr(0, 2);
    for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
             {"A", "A"}, {"A", "C"}, {"AAAA", "AA"}, {std::string(300, 'A'), std::string(500, 'A')},
             {std::string(400, 'A'), std::string(200, 'A') + std::string(30, 'C') + std::string(200, 'A')}}) {
      check_pair(setup, a, b);
      check_pair(setup, b, a);
    }
    for (int pair = 0; pair < 20; ++pair) {
      // Tandem repeats of a short unit, and a two-letter alphabet: many paths and ends of one score.
      const std::string unit = test::random_sequence(rng, setup.letters, 1 + pair % 7);
      std::string repeat;
      while (repeat.size() < 200 + 40 * static_cast<std::size_t>(pair)) repeat += unit;
      check_pair(setup, repeat, test::relative_of(rng, repeat, setup.letters, 0.03));
      const std::string a = test::random_sequence(rng, two, 100 + 50 * pair);
      check_pair(setup, a, test::relative_of(rng, a, two, 0.1));
      check_pair(setup, a, test::random_sequence(rng, two, 300));
      if (HasFailure()) return;
    }
  }
}

TEST(SwLinear, AnyGivenScoreGivesTheSameAlignment) {
  std::mt19937 rng(17);
  for (const ScoringCase& setup : scoring_cases()) {
    SCOPED_TRACE(setup.name);
    for (int pair = 0; pair < 8; ++pair) {
      const std::string a = test::random_sequence(rng, setup.letters, 50 + 200 * pair);
      const std::string b = pair % 2 ? test::random_sequence(rng, setup.letters, 1500) : test::relative_of(rng, a, setup.letters, 0.05);
      const auto q = setup.encode(a), t = setup.encode(b);
      const SwAlignment want = sw_align_scalar(q, t, setup.scoring());
      for (const int score : {0, -7, want.score - 1, want.score / 2, want.score + 1, 2 * want.score + 50, INT_MAX}) {
        SCOPED_TRACE(score);
        expect_same_alignment(sw_align_linear(q, t, setup.scoring(), score), want);
      }
      if (HasFailure()) return;
    }
  }
}

TEST(SwLinear, EmptyAndScorelessInputs) {
  const ScoringCase setup = scoring_cases()[0];
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{{"", ""}, {"", "W"}, {"W", ""}}) {
    const auto q = setup.encode(a), t = setup.encode(b);
    expect_same_alignment(sw_align_linear(q, t, setup.scoring(), 0), SwAlignment{});
  }
  // Nothing scores above 0: DNA mismatches only.
  const ScoringCase dna = scoring_cases()[4];
  const auto q = dna.encode("AAAA"), t = dna.encode("CCCCCC");
  expect_same_alignment(sw_align_linear(q, t, dna.scoring(), 0), sw_align_scalar(q, t, dna.scoring()));
}

}  // namespace

// The scoring recurrence (spec §6) and traceback (§7) on small cases computed by hand, and the
// one-line scorer against a literal full-matrix transcription of the recurrence on random inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/alphabet.hpp"
#include "kernels/scalar/papara_scalar.hpp"

using namespace hyalign;
using namespace hyalign::kernels;

namespace {

std::vector<StateSet> dna(std::string_view s) {
  std::vector<StateSet> out;
  for (char c : s) out.push_back(Alphabet::dna().encode(c));
  return out;
}

// Spec §6 written out over a full matrix, rows j (query) and columns i (reference).
int full_matrix_score(const std::vector<StateSet>& q, const std::vector<StateSet>& a,
                      const std::vector<std::uint8_t>& cgap, const PaparaScoring& sc) {
  const std::size_t m = q.size(), n = a.size();
  const int inf = -1000000;
  std::vector<std::vector<int>> S(n + 1, std::vector<int>(m + 1, 0)), D = S, I = S;
  for (std::size_t j = 0; j <= m; ++j) D[0][j] = inf;
  for (std::size_t i = 0; i <= n; ++i) I[i][0] = inf;
  int best = inf;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      int M = S[i - 1][j - 1] + ((a[i - 1] & q[j - 1]) ? sc.match : 0) + (cgap[i - 1] ? sc.match_cgap : 0);
      D[i][j] = std::max(S[i - 1][j] + (cgap[i - 1] ? 0 : sc.gap_open), D[i - 1][j] + (cgap[i - 1] ? 0 : sc.gap_extend));
      I[i][j] = std::max(S[i][j - 1] + sc.gap_open, I[i][j - 1] + sc.gap_extend);
      S[i][j] = std::max({M, D[i][j], I[i][j]});
      if (i == n || j == m) best = std::max(best, S[i][j]);
    }
  return best;
}

}  // namespace

// Query AC against columns A C G. S by hand (rows j, columns i):
//   j=1:  2  0  0
//   j=2:  0  4  1      best over last row / last column = 4 at (2,2)
TEST(PaparaScalar, HandComputedMatchMatrix) {
  auto q = dna("AC"), a = dna("ACG");
  std::vector<std::uint8_t> cgap(3, 0);
  BranchView view{a.data(), cgap.data(), a.size()};
  EXPECT_EQ(papara_score_scalar(q, view, {}), 4);
  PaparaAlignment al = papara_align_scalar(q, view, {});
  EXPECT_EQ(al.score, 4);
  EXPECT_EQ(al.residue_place, (std::vector<std::int32_t>{0, 1}));
}

// Query AGC against columns A C: by hand
//   j=1:  2  0
//   j=2:  0  2
//   j=3:  0  2      end cell: (2,2) is the first strict maximum scanning rows top-down,
// so G aligns to column C and the final C is inserted after the last column (slot 2).
TEST(PaparaScalar, HandComputedTrailingInsertion) {
  auto q = dna("AGC"), a = dna("AC");
  std::vector<std::uint8_t> cgap(2, 0);
  BranchView view{a.data(), cgap.data(), a.size()};
  EXPECT_EQ(papara_score_scalar(q, view, {}), 2);
  PaparaAlignment al = papara_align_scalar(q, view, {});
  EXPECT_EQ(al.score, 2);
  EXPECT_EQ(al.residue_place, (std::vector<std::int32_t>{0, 1, PaparaAlignment::slot_code(2)}));
}

// A column with the gap signal: the query skips it for free (D costs 0 there), and matching into it
// costs match_cgap. Query AC against A [G, cgap] C:
//   j=1:  2  2  1
//   j=2:  0  0  4   → best 4, C aligned to the third column, the CGAP column is a gap in the query.
TEST(PaparaScalar, HandComputedCgapColumnIsFreeToSkip) {
  auto q = dna("AC"), a = dna("AGC");
  std::vector<std::uint8_t> cgap{0, 1, 0};
  BranchView view{a.data(), cgap.data(), a.size()};
  EXPECT_EQ(papara_score_scalar(q, view, {}), 4);
  PaparaAlignment al = papara_align_scalar(q, view, {});
  EXPECT_EQ(al.residue_place, (std::vector<std::int32_t>{0, 2}));
}

// Leading residues that match nothing go before the first column (slot 0).
TEST(PaparaScalar, LeadingInsertionGoesToFirstSlot) {
  auto q = dna("TTTAC"), a = dna("AC");
  std::vector<std::uint8_t> cgap(2, 0);
  BranchView view{a.data(), cgap.data(), a.size()};
  PaparaAlignment al = papara_align_scalar(q, view, {});
  EXPECT_EQ(al.score, 4);
  EXPECT_EQ(al.residue_place, (std::vector<std::int32_t>{PaparaAlignment::slot_code(0), PaparaAlignment::slot_code(0),
                                                         PaparaAlignment::slot_code(0), 0, 1}));
}

TEST(PaparaScalar, EmptyInputsScoreZero) {
  auto a = dna("ACG");
  std::vector<std::uint8_t> cgap(3, 0);
  EXPECT_EQ(papara_score_scalar({}, {a.data(), cgap.data(), 3}, {}), 0);
  auto q = dna("A");
  EXPECT_EQ(papara_score_scalar(q, {a.data(), cgap.data(), 0}, {}), 0);
}

TEST(PaparaScalar, OneLineScorerEqualsFullMatrixOnRandomInputs) {
  std::mt19937 rng(7);
  const std::string letters = "ACGTRYN-";
  for (int trial = 0; trial < 400; ++trial) {
    std::size_t m = 1 + rng() % 40, n = 1 + rng() % 60;
    std::vector<StateSet> q(m), a(n);
    std::vector<std::uint8_t> cgap(n);
    for (auto& s : q) s = Alphabet::dna().encode("ACGTRY"[rng() % 6]);
    for (auto& s : a) s = Alphabet::dna().encode(letters[rng() % letters.size()]);
    for (auto& c : cgap) c = (rng() % 4 == 0);
    PaparaScoring sc;
    if (trial % 2) sc = {-5, -2, 3, -1};
    BranchView view{a.data(), cgap.data(), n};
    const int expected = full_matrix_score(q, a, cgap, sc);
    ASSERT_EQ(papara_score_scalar(q, view, sc), expected) << "trial " << trial;
    const PaparaAlignment al = papara_align_scalar(q, view, sc);
    ASSERT_EQ(al.score, expected) << "trial " << trial;
    // Aligned residues use increasing columns; every residue is placed.
    std::int32_t last = -1;
    for (std::int32_t p : al.residue_place)
      if (p >= 0) {
        ASSERT_GT(p, last);
        last = p;
      }
  }
}

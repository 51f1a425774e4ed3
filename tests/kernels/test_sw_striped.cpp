// The striped Smith–Waterman kernels (kernels/simd/sw_striped.hpp), AVX2 and AVX-512 where the CPU
// has them, against the scalar definition: scores on random pairs of many shapes (lengths around
// every lane and segment boundary), scoring schemes and gap costs, scores beyond 16 bits; the first
// maximum cell and the checkpoints against a scalar sweep; tracebacks from their checkpoints
// against sw_align_scalar, field for field; and the dispatching entry points of sw_kernel.hpp.
#include <gtest/gtest.h>

#include <climits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/score_matrix.hpp"
#include "engine/cpu_features.hpp"
#include "kernels/scalar/sw_linear.hpp"
#include "kernels/scalar/sw_scalar.hpp"
#include "kernels/scalar/sw_traceback.hpp"
#include "kernels/simd/sw_striped.hpp"
#include "kernels/sw_kernel.hpp"
#include "sw_test_cases.hpp"
#include "test_support.hpp"

using namespace hyalign;
using namespace hyalign::kernels;

namespace {

using test::kAmino;
using test::kDna;
using ScoringCase = test::SwScoringCase;
using test::expect_same_alignment;

// The shared scorings, and gap costs at the edges of the lanes' range.
std::vector<ScoringCase> scoring_cases() {
  std::vector<ScoringCase> all = test::sw_scoring_cases();
  all.push_back({"blosum62_3_0", ScoreMatrix::builtin("BLOSUM62"), kAmino, 3, 0});
  all.push_back({"blosum62_1000_50", ScoreMatrix::builtin("BLOSUM62"), kAmino, 1000, 50});
  all.push_back({"blosum62_40000_1", ScoreMatrix::builtin("BLOSUM62"), kAmino, 40000, 1});  // beyond 16-bit lanes
  return all;
}

// The striped kernels of the instruction sets this CPU has, by name.
using Factory = std::unique_ptr<simd::StripedSw> (*)(const SwScoring&);

struct Isa {
  const char* name;
  engine::KernelChoice choice;
  Factory make;
};

void PrintTo(const Isa& isa, std::ostream* out) { *out << isa.name; }

const Isa kIsas[] = {{"avx2", engine::KernelChoice::avx2, simd::make_striped_sw_avx2},
                     {"avx512", engine::KernelChoice::avx512, simd::make_striped_sw_avx512}};

class StripedKernel : public ::testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    if (!engine::cpu_supports(GetParam().choice))
      GTEST_SKIP() << "SKIPPED: this CPU (or build) lacks " << GetParam().name;
  }
  std::unique_ptr<simd::StripedSw> make(const SwScoring& scoring) const { return GetParam().make(scoring); }
};

// A plain sweep of the definition: the first maximum column by column, and H and E of every row at
// columns 0, stride, 2 stride, ... (E(., 0) as sw_linear.cpp's sweep starts it).
SwLocated reference_locate(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target,
                           const SwScoring& scoring, std::size_t stride) {
  const std::size_t m = query.size();
  const int extend = scoring.gap_extend, open_extend = scoring.gap_open + scoring.gap_extend;
  std::vector<int> h(m + 1, 0), e(m + 1, sw_detail::kMinusInfinity);
  SwLocated out;
  out.stride = stride;
  const auto checkpoint = [&] {
    out.checkpoints.push_back({{1, m}, {h.begin() + 1, h.end()}, {e.begin() + 1, e.end()}});
  };
  checkpoint();
  for (std::size_t j = 1; j <= target.size(); ++j) {
    int diag = 0, f = sw_detail::kMinusInfinity, up = 0;
    for (std::size_t i = 1; i <= m; ++i) {
      const sw_detail::Cell cell = sw_detail::sw_cell(diag, h[i], up, e[i], f,
                                                      scoring.matrix->score(query[i - 1], target[j - 1]), extend,
                                                      open_extend);
      diag = h[i];
      h[i] = up = cell.h;
      if (cell.h > out.best) out.best = cell.h, out.best_i = i, out.best_j = j;
    }
    if (j % stride == 0) checkpoint();
  }
  out.floor = out.best;
  return out;
}

std::string letters_of(const ScoringCase& setup, const std::vector<std::uint8_t>& codes) {
  std::string out;
  for (const std::uint8_t c : codes) out += setup.matrix.decode(c);
  return out;
}

// Query lengths at every lane and segment boundary of 8, 16 and 32 lanes, and a few long ones.
const std::vector<std::size_t> kLengths = {0,  1,  2,  3,  7,  8,  9,  15,  16,  17,   31,  32,
                                           33, 63, 64, 65, 97, 96, 255, 257, 1000, 2900};

// Pairs full of equal scores: tandem repeats of a short unit, and two-letter sequences.
std::vector<std::pair<std::string, std::string>> tie_heavy_pairs(std::mt19937& rng, const ScoringCase& setup) {
  std::vector<std::pair<std::string, std::string>> pairs = {
      {"A", "A"}, {"AAAA", "AA"}, {std::string(300, 'A'), std::string(500, 'A')},
      {std::string(400, 'A'), std::string(200, 'A') + std::string(30, 'C') + std::string(200, 'A')}};
  const std::string two = setup.letters.substr(0, 2);
  for (int k = 0; k < 8; ++k) {
    const std::string unit = test::random_sequence(rng, setup.letters, 1 + k % 5);
    std::string repeat;
    while (repeat.size() < 100 + 70 * static_cast<std::size_t>(k)) repeat += unit;
    pairs.emplace_back(repeat, test::relative_of(rng, repeat, setup.letters, 0.03));
    const std::string a = test::random_sequence(rng, two, 60 + 40 * k);
    pairs.emplace_back(a, test::relative_of(rng, a, two, 0.1));
    pairs.emplace_back(a, test::random_sequence(rng, two, 150));
  }
  return pairs;
}

TEST_P(StripedKernel, ScoresEqualTheDefinition) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> rate(0.0, 0.3);
  for (const ScoringCase& setup : scoring_cases()) {
    SCOPED_TRACE(setup.name);
    const auto striped = make(setup.scoring());
    for (const std::size_t m : kLengths) {
      const auto q = setup.encode(test::random_sequence(rng, setup.letters, m));
      striped->set_query(q);
      for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{17}, std::size_t{200}, m}) {
        const auto t = setup.encode(test::random_sequence(rng, setup.letters, n));
        EXPECT_EQ(striped->score(t), sw_score_scalar(q, t, setup.scoring())) << m << " x " << n;
      }
      // Relatives: high scores and gaps, long vertical ones among them (the lazy-F loop's work).
      const auto r = setup.encode(test::relative_of(rng, letters_of(setup, q), setup.letters, rate(rng)));
      EXPECT_EQ(striped->score(r), sw_score_scalar(q, r, setup.scoring())) << m << " x relative " << r.size();
      const auto half = std::vector<std::uint8_t>(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(r.size() / 2));
      EXPECT_EQ(striped->score(half), sw_score_scalar(q, half, setup.scoring())) << m << " x half " << half.size();
    }
    for (const auto& [a, b] : tie_heavy_pairs(rng, setup)) {
      const auto q = setup.encode(a), t = setup.encode(b);
      striped->set_query(q);
      EXPECT_EQ(striped->score(t), sw_score_scalar(q, t, setup.scoring())) << a.size() << " x " << b.size();
      striped->set_query(t);
      EXPECT_EQ(striped->score(q), sw_score_scalar(t, q, setup.scoring())) << b.size() << " x " << a.size();
    }
    if (HasFailure()) return;
  }
}

// Identical sequences: scores just below and above the 16-bit ceiling (32767), and far above it.
TEST_P(StripedKernel, ScoresBeyond16Bits) {
  std::mt19937 rng(22);
  const ScoringCase dna{"dna_127_-127_5_2", ScoreMatrix::dna(127, -127), kDna, 5, 2};
  const ScoringCase protein{"blosum62_11_1", ScoreMatrix::builtin("BLOSUM62"), kAmino, 11, 1};
  for (const auto& [setup, length] : std::vector<std::pair<const ScoringCase*, std::size_t>>{
           {&dna, 257}, {&dna, 258}, {&dna, 259}, {&dna, 1000}, {&protein, 7000}}) {
    SCOPED_TRACE(setup->name + " " + std::to_string(length));
    const auto striped = make(setup->scoring());
    const auto q = setup->encode(test::random_sequence(rng, setup->letters, length));
    const int want = sw_score_scalar(q, q, setup->scoring());
    striped->set_query(q);
    EXPECT_EQ(striped->score(q), want);
    EXPECT_EQ(striped->score(q, want), want);  // straight to 32-bit lanes
    const auto r = setup->encode(test::relative_of(rng, letters_of(*setup, q), setup->letters, 0.01));
    EXPECT_EQ(striped->score(r), sw_score_scalar(q, r, setup->scoring()));
    const SwLocated located = striped->locate(q, 97);
    const SwLocated reference = reference_locate(q, q, setup->scoring(), 97);
    EXPECT_EQ(located.best, reference.best);
    EXPECT_EQ(located.best_i, reference.best_i);
    EXPECT_EQ(located.best_j, reference.best_j);
  }
}

// The end cell (first maximum column by column) and every checkpoint equal a plain sweep's.
TEST_P(StripedKernel, LocateEqualsAPlainSweep) {
  std::mt19937 rng(23);
  for (const ScoringCase& setup : scoring_cases()) {
    SCOPED_TRACE(setup.name);
    const auto striped = make(setup.scoring());
    std::vector<std::pair<std::string, std::string>> pairs = tie_heavy_pairs(rng, setup);
    for (const std::size_t m : kLengths) {
      const std::string a = test::random_sequence(rng, setup.letters, m);
      pairs.emplace_back(a, test::random_sequence(rng, setup.letters, 1 + m / 2));
      pairs.emplace_back(a, test::relative_of(rng, a, setup.letters, 0.1));
    }
    for (const auto& [a, b] : pairs) {
      SCOPED_TRACE(std::to_string(a.size()) + " x " + std::to_string(b.size()));
      const auto q = setup.encode(a), t = setup.encode(b);
      if (q.empty() || t.empty()) continue;
      striped->set_query(q);
      // Every column a checkpoint on short targets; the traceback's stride on all.
      for (const std::size_t stride : {t.size() <= 300 ? std::size_t{1} : std::size_t{7}, sw_checkpoint_stride(t.size())}) {
        const SwLocated got = striped->locate(t, stride);
        const SwLocated want = reference_locate(q, t, setup.scoring(), stride);
        EXPECT_EQ(got.best, want.best);
        EXPECT_EQ(got.floor, want.best);
        EXPECT_EQ(got.best_i, want.best_i);
        EXPECT_EQ(got.best_j, want.best_j);
        EXPECT_EQ(got.stride, stride);
        ASSERT_EQ(got.checkpoints.size(), want.checkpoints.size());
        for (std::size_t c = 0; c < got.checkpoints.size(); ++c) {
          EXPECT_EQ(got.checkpoints[c].kept.first, 1u);
          EXPECT_EQ(got.checkpoints[c].kept.last, q.size());
          EXPECT_EQ(got.checkpoints[c].h, want.checkpoints[c].h) << "checkpoint " << c;
          EXPECT_EQ(got.checkpoints[c].e, want.checkpoints[c].e) << "checkpoint " << c;
        }
      }
      if (HasFailure()) return;
    }
  }
}

// Below a long similar hit, cheap gap extensions give whole columns their H from F carried down
// across many lanes; costly ones make the carries' drops leave 16 bits.
TEST_P(StripedKernel, LocateBelowLongSimilarHits) {
  std::mt19937 rng(27);
  for (const auto& [open, extend] : std::vector<std::pair<int, int>>{{11, 1}, {0, 0}, {3, 0}, {11, 5}, {1000, 50}}) {
    const ScoringCase setup{"blosum62", ScoreMatrix::builtin("BLOSUM62"), kAmino, open, extend};
    SCOPED_TRACE(std::to_string(open) + "/" + std::to_string(extend));
    const auto striped = make(setup.scoring());
    for (const std::size_t m : {std::size_t{600}, std::size_t{1400}, std::size_t{2500}}) {
      const std::string a = test::random_sequence(rng, setup.letters, m);
      for (const std::string& b : {a, test::relative_of(rng, a, setup.letters, 0.02),
                                   test::relative_of(rng, a, setup.letters, 0.1), a.substr(m / 3) + a}) {
        const auto q = setup.encode(a), t = setup.encode(b);
        striped->set_query(q);
        const SwLocated got = striped->locate(t, 50);
        const SwLocated want = reference_locate(q, t, setup.scoring(), 50);
        EXPECT_EQ(got.best, want.best);
        EXPECT_EQ(got.best_i, want.best_i);
        EXPECT_EQ(got.best_j, want.best_j);
        ASSERT_EQ(got.checkpoints.size(), want.checkpoints.size());
        for (std::size_t c = 0; c < got.checkpoints.size() && !HasFailure(); ++c) {
          EXPECT_EQ(got.checkpoints[c].h, want.checkpoints[c].h) << m << " x " << b.size() << " checkpoint " << c;
          EXPECT_EQ(got.checkpoints[c].e, want.checkpoints[c].e) << m << " x " << b.size() << " checkpoint " << c;
        }
        if (HasFailure()) return;
      }
    }
  }
}

// sw_linear.cpp's traceback from the striped kernel's checkpoints (every row kept, pruned from there
// on) gives sw_align_scalar's alignment.
TEST_P(StripedKernel, TracebackFromItsCheckpointsEqualsTheFullMatrix) {
  std::mt19937 rng(24);
  std::uniform_int_distribution<std::size_t> length(0, 1500);
  std::uniform_real_distribution<double> rate(0.0, 0.2);
  for (const ScoringCase& setup : scoring_cases()) {
    SCOPED_TRACE(setup.name);
    const auto striped = make(setup.scoring());
    const auto noise = [&](std::size_t n) { return test::random_sequence(rng, setup.letters, n); };
    std::vector<std::pair<std::string, std::string>> pairs = tie_heavy_pairs(rng, setup);
    for (int k = 0; k < 12; ++k) {
      const std::string a = noise(k < 4 ? k : length(rng));
      const std::string b = k % 3 == 2 ? noise(length(rng)) : test::relative_of(rng, a, setup.letters, rate(rng));
      const std::size_t pad = 20 * static_cast<std::size_t>(k);
      pairs.emplace_back(a, b);
      pairs.emplace_back(a, noise(pad) + b + noise(pad / 3));
      pairs.emplace_back(noise(pad) + a, b + noise(pad));
    }
    for (const auto& [a, b] : pairs) {
      SCOPED_TRACE(std::to_string(a.size()) + " x " + std::to_string(b.size()));
      const auto q = setup.encode(a), t = setup.encode(b);
      striped->set_query(q);
      const SwAlignment want = sw_align_scalar(q, t, setup.scoring());
      for (const std::size_t stride : {std::size_t{5}, sw_checkpoint_stride(t.size())})
        expect_same_alignment(sw_align_located(q, t, setup.scoring(), striped->locate(t, stride)), want);
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SwStriped, StripedKernel, ::testing::ValuesIn(kIsas),
                         [](const auto& info) { return std::string(info.param.name); });

// The entry points of sw_kernel.hpp, on this CPU's widest kernel.
TEST(SwStripedEntryPoints, ScoreOneEqualsTheDefinition) {
  std::mt19937 rng(25);
  for (const ScoringCase& setup : scoring_cases()) {
    SCOPED_TRACE(setup.name);
    for (const std::size_t m : {std::size_t{0}, std::size_t{33}, std::size_t{700}}) {
      const auto q = setup.encode(test::random_sequence(rng, setup.letters, m));
      const auto t = setup.encode(test::relative_of(rng, letters_of(setup, q), setup.letters, 0.1));
      EXPECT_EQ(sw_score_one(q, t, setup.scoring()), sw_score_scalar(q, t, setup.scoring()));
      EXPECT_EQ(sw_score_one(q, q, setup.scoring()), sw_score_scalar(q, q, setup.scoring()));
    }
  }
}

// Both locate steps (striped for unrelated pairs and short hits, pruned for long similar ones), and
// any given score.
TEST(SwStripedEntryPoints, AlignHitEqualsTheFullMatrix) {
  std::mt19937 rng(26);
  for (const ScoringCase& setup : scoring_cases()) {
    SCOPED_TRACE(setup.name);
    for (int k = 0; k < 6; ++k) {
      const std::string a = test::random_sequence(rng, setup.letters, 100 + 300 * static_cast<std::size_t>(k));
      const std::string b = k % 2 ? test::random_sequence(rng, setup.letters, 1200) : test::relative_of(rng, a, setup.letters, 0.03);
      const auto q = setup.encode(a), t = setup.encode(b);
      const SwAlignment want = sw_align_scalar(q, t, setup.scoring());
      for (const int score : {want.score, 0, want.score + 1, INT_MAX}) {
        SCOPED_TRACE(score);
        expect_same_alignment(sw_align_hit(q, t, setup.scoring(), score), want);
      }
      if (HasFailure()) return;
    }
  }
  const ScoringCase setup = scoring_cases()[0];  // a copy: the list is a temporary
  expect_same_alignment(sw_align_hit(setup.encode(""), setup.encode("W"), setup.scoring(), 0), SwAlignment{});
}

}  // namespace

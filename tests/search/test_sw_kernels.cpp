// Smith–Waterman kernels against an independent oracle (parasail_sw, libparasail): the scalar
// reference, every SIMD kernel and the GPU kernel, on random protein and DNA sets with mixed lengths,
// scores that overflow 8 and 16 bits, and degenerate inputs; plus the scalar traceback's internal
// consistency. GPU cases skip with a message where no usable GPU is present (CI).
#include <gtest/gtest.h>
#include <parasail.h>
#include <parasail/matrix_lookup.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/score_matrix.hpp"
#include "engine/devices.hpp"
#include "kernels/cuda/sw_cuda.hpp"
#include "kernels/sw_kernel.hpp"
#include "test_support.hpp"

using namespace hyalign;
using namespace hyalign::engine;
using namespace hyalign::kernels;

namespace {

using test::kAmino;
using test::kDna;

struct Config {
  std::string name;
  bool dna;
  std::string matrix;  // builtin name (protein)
  int match, mismatch;  // dna
  int open, extend;     // BLAST convention
};

const std::vector<Config>& configs() {
  static const std::vector<Config> all = {
      {"blosum62_11_1", false, "BLOSUM62", 0, 0, 11, 1}, {"blosum45_15_2", false, "BLOSUM45", 0, 0, 15, 2},
      {"pam30_9_1", false, "PAM30", 0, 0, 9, 1},         {"dna_2_-3_5_2", true, "", 2, -3, 5, 2},
  };
  return all;
}

// Our matrix and the oracle's for one configuration.
struct Oracle {
  std::string config;
  ScoreMatrix matrix;
  parasail_matrix_t* owned = nullptr;
  const parasail_matrix_t* oracle = nullptr;
  SwScoring scoring;
  std::string letters;
  explicit Oracle(const Config& c)
      : config(c.name), matrix(c.dna ? ScoreMatrix::dna(c.match, c.mismatch) : ScoreMatrix::builtin(c.matrix)),
        letters(c.dna ? kDna : kAmino) {
    if (c.dna) {
      owned = parasail_matrix_create("ACGT", c.match, c.mismatch);
      oracle = owned;
    } else {
      std::string lower;
      for (char ch : c.matrix) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      oracle = parasail_matrix_lookup(lower.c_str());
    }
    scoring.matrix = &matrix;
    scoring.gap_open = c.open;
    scoring.gap_extend = c.extend;
  }
  ~Oracle() {
    if (owned) parasail_matrix_free(owned);
  }
  Oracle(const Oracle&) = delete;
  Oracle& operator=(const Oracle&) = delete;

  std::vector<std::uint8_t> encode(const std::string& s) const {
    std::vector<std::uint8_t> out;
    for (char ch : s) out.push_back(matrix.encode(ch));
    return out;
  }
  // parasail's open is the cost of the first gap position: BLAST open + extend. Results are cached
  // across tests (every kernel is checked on the same pairs).
  int oracle_score(const std::string& a, const std::string& b) const {
    if (a.empty() || b.empty()) return 0;
    static std::map<std::string, int> cache;
    std::string key = config + '\n' + a + '\n' + b;
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    parasail_result_t* r = parasail_sw(a.data(), static_cast<int>(a.size()), b.data(), static_cast<int>(b.size()),
                                       scoring.gap_open + scoring.gap_extend, scoring.gap_extend, oracle);
    const int score = parasail_result_get_score(r);
    parasail_result_free(r);
    cache.emplace(std::move(key), score);
    return score;
  }
};

std::size_t random_length(std::mt19937& rng, std::size_t max) {
  // Favour short and odd lengths, with a tail of long ones.
  std::uniform_int_distribution<int> kind(0, 9);
  const int k = kind(rng);
  if (k < 2) return std::uniform_int_distribution<std::size_t>(1, 8)(rng);
  if (k < 8) return std::uniform_int_distribution<std::size_t>(1, 400)(rng) | 1;
  return std::uniform_int_distribution<std::size_t>(1, max)(rng);
}

struct EncodedSet {
  std::vector<std::uint8_t> residues;
  std::vector<std::size_t> offsets{0};
  explicit EncodedSet(const std::vector<std::vector<std::uint8_t>>& seqs) {
    for (const auto& s : seqs) residues.insert(residues.end(), s.begin(), s.end()), offsets.push_back(residues.size());
  }
  SwSequences view() const { return {residues.data(), offsets.data(), offsets.size() - 1}; }
};

// Scores every target with `kernel`, through a scorer, in calls of uneven sizes.
std::vector<int> run_kernel(SwKernel& kernel, const std::vector<std::uint8_t>& query,
                            const std::vector<std::vector<std::uint8_t>>& targets) {
  const EncodedSet set(targets);
  const SwSequences view = set.view();
  kernel.set_targets(view);
  std::vector<int> scores(targets.size(), -1);
  auto scorer = kernel.make_scorer();
  const std::size_t chunk = 3 * kernel.lanes() + 5;
  for (std::size_t first = 0; first < targets.size(); first += chunk)
    scorer->score(query, view, first, std::min(chunk, targets.size() - first), scores.data() + first);
  return scores;
}

// The kernels under test: the CPU kernels by name, and "gpu" (the first usable GPU).
const std::vector<std::string> kKernelNames = {"scalar", "avx2", "avx512", "gpu"};

// nullptr when the GPU kernel does not take this scoring (it is then scored on the CPU).
std::unique_ptr<SwKernel> make_kernel(const std::string& name, const SwScoring& scoring) {
  if (name == "gpu") return cuda::make_sw_gpu_kernel(engine::usable_gpus().front().index, scoring);
  return make_sw_cpu_kernel(parse_kernel_choice(name), scoring);
}

class SwKernelTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "gpu") {
      if (engine::usable_gpus().empty()) GTEST_SKIP() << "SKIPPED: no usable GPU: " << engine::gpu_unavailable_reason();
    } else if (!cpu_supports(parse_kernel_choice(GetParam()))) {
      GTEST_SKIP() << "SKIPPED: this CPU lacks the instruction set of kernel " << GetParam();
    }
  }
  // Every kernel score equals parasail's, for one query against a batch of targets.
  void expect_batch(const Oracle& setup, const std::string& query, const std::vector<std::string>& targets) {
    auto kernel = make_kernel(GetParam(), setup.scoring);
    if (!kernel) {
      ASSERT_FALSE(cuda::sw_gpu_unsupported_reason(setup.scoring).empty());
      return;
    }
    std::vector<std::vector<std::uint8_t>> encoded;
    for (const auto& t : targets) encoded.push_back(setup.encode(t));
    const auto scores = run_kernel(*kernel, setup.encode(query), encoded);
    for (std::size_t t = 0; t < targets.size(); ++t)
      ASSERT_EQ(scores[t], setup.oracle_score(query, targets[t]))
          << kernel->name() << " target " << t << " lengths " << query.size() << " x " << targets[t].size();
  }
};

TEST_P(SwKernelTest, RandomBatchesMatchParasail) {
  std::mt19937 rng(1234);
  for (const Config& c : configs()) {
    SCOPED_TRACE(c.name);
    Oracle setup(c);
    for (int round = 0; round < 3; ++round) {
      const std::string query = test::random_sequence(rng, setup.letters, random_length(rng, 700));
      std::vector<std::string> targets;
      for (int t = 0; t < 150; ++t) {
        const std::size_t kind = rng() % 4;
        if (kind == 0) targets.push_back(test::relative_of(rng, query, setup.letters, 0.1));  // homologs: higher scores
        else targets.push_back(test::random_sequence(rng, setup.letters, random_length(rng, 700)));
      }
      targets.push_back("");  // empty target: 0
      expect_batch(setup, query, targets);
    }
  }
}

TEST_P(SwKernelTest, ShortAndDegenerateInputs) {
  std::mt19937 rng(99);
  for (const Config& c : configs()) {
    SCOPED_TRACE(c.name);
    Oracle setup(c);
    std::vector<std::string> targets = {"", "A", "C", "AA", "AC", "T", std::string(3, 'A'), std::string(200, 'A')};
    for (int t = 0; t < 40; ++t) targets.push_back(test::random_sequence(rng, setup.letters, 1 + rng() % 5));
    for (const std::string& query : {std::string("A"), std::string("C"), std::string("AG"), std::string(7, 'A'),
                                     std::string(300, 'A'), test::random_sequence(rng, setup.letters, 1)})
      expect_batch(setup, query, targets);
    // Empty query: every score is 0.
    auto kernel = make_kernel(GetParam(), setup.scoring);
    std::vector<std::vector<std::uint8_t>> encoded;
    for (const auto& t : targets) encoded.push_back(setup.encode(t));
    for (int s : run_kernel(*kernel, {}, encoded)) EXPECT_EQ(s, 0);
  }
}

// Scores above 8 bits in some lanes of a batch, and above 16 bits (signed and unsigned) in others.
TEST_P(SwKernelTest, SaturatingScoresAreExact) {
  std::mt19937 rng(7);
  Oracle setup(configs()[0]);  // BLOSUM62 11/1
  // 5000 W-rich residues: identity scores ~ 50000 > 32767 (beyond signed 16 bits).
  std::string w_rich = test::random_sequence(rng, kAmino, 5000);
  for (std::size_t i = 0; i < w_rich.size(); i += 1) if (rng() % 10 < 9) w_rich[i] = 'W';
  std::vector<std::string> targets;
  for (int t = 0; t < 70; ++t) targets.push_back(test::random_sequence(rng, kAmino, 50 + rng() % 400));
  targets.push_back(w_rich);                          // ~50000
  targets.push_back(w_rich.substr(0, 300));           // ~3000: beyond 8 bits
  targets.push_back(test::relative_of(rng, w_rich.substr(1000, 2000), kAmino, 0.05));
  targets.push_back(std::string(6100, 'W'));          // ~90% W query against all W
  expect_batch(setup, w_rich, targets);
  // An all-W query of 6100: 67100 > 65535 against the all-W target (the 32-bit path).
  expect_batch(setup, std::string(6100, 'W'), {std::string(6100, 'W'), std::string(40, 'W'), "W", "A"});
  // DNA: long identical sequences (8-bit overflow at 2 per match after 128 residues).
  Oracle dna(configs()[3]);
  const std::string seq = test::random_sequence(rng, kDna, 3000);
  expect_batch(dna, seq, {seq, seq.substr(100, 129), seq.substr(5, 2000), test::random_sequence(rng, kDna, 3000), "A"});
}

// Gap costs beyond the 8-bit (and 16-bit) lane range take the wider passes directly.
TEST_P(SwKernelTest, LargeGapCosts) {
  std::mt19937 rng(31);
  for (const auto& [open, extend] : std::vector<std::pair<int, int>>{{130, 2}, {5, 127}, {40000, 1}}) {
    Config c = configs()[0];
    c.open = open, c.extend = extend;
    c.name.append("_").append(std::to_string(open)).append("_").append(std::to_string(extend));
    Oracle oracle(c);
    const std::string query = test::random_sequence(rng, kAmino, 300);
    std::vector<std::string> targets{test::relative_of(rng, query, kAmino, 0.05), query, "W"};
    for (int t = 0; t < 40; ++t) targets.push_back(test::random_sequence(rng, kAmino, 1 + rng() % 300));
    expect_batch(oracle, query, targets);
  }
}

// Long sequences (up to 5000) in mixed batches.
TEST_P(SwKernelTest, LongSequences) {
  std::mt19937 rng(5000);
  Oracle setup(configs()[0]);
  const std::string query = test::random_sequence(rng, kAmino, 5000);
  std::vector<std::string> targets;
  for (int t = 0; t < 70; ++t) targets.push_back(test::random_sequence(rng, kAmino, 1 + rng() % 5000));
  targets.push_back(test::relative_of(rng, query, kAmino, 0.2));
  expect_batch(setup, query, targets);
}

// Many queries at once (a GPU launch takes them together; striped targets split them into several
// launches), tiles at odd offsets, targets on both sides of the GPU's 64/128/192/256-row shapes.
TEST_P(SwKernelTest, TilesOfManyQueries) {
  std::mt19937 rng(77);
  Oracle setup(configs()[0]);
  std::vector<std::string> queries;
  for (int q = 0; q < 9; ++q) queries.push_back(test::random_sequence(rng, kAmino, q == 0 ? 0 : 3000 + rng() % 2000));
  queries.push_back("W");
  std::vector<std::string> targets;
  for (std::size_t length : {0, 1, 63, 64, 65, 128, 129, 192, 193, 256, 257, 511, 513, 700})
    targets.push_back(test::random_sequence(rng, kAmino, length));
  targets.push_back(test::relative_of(rng, queries[3].substr(100, 900), kAmino, 0.1));
  std::shuffle(targets.begin(), targets.end(), rng);
  auto kernel = make_kernel(GetParam(), setup.scoring);
  std::vector<std::vector<std::uint8_t>> enc_q, enc_t;
  for (const auto& q : queries) enc_q.push_back(setup.encode(q));
  for (const auto& t : targets) enc_t.push_back(setup.encode(t));
  const EncodedSet qs(enc_q), ts(enc_t);
  kernel->set_targets(ts.view());
  auto scorer = kernel->make_scorer();
  for (const WorkTile tile : {WorkTile{0, targets.size(), 0, queries.size()}, WorkTile{3, 9, 1, 8}, WorkTile{7, 1, 4, 2}}) {
    std::vector<int> scores(tile.query_count * tile.target_count, -1);
    scorer->score_tile(qs.view(), ts.view(), tile, scores.data());
    for (std::size_t q = 0; q < tile.query_count; ++q)
      for (std::size_t t = 0; t < tile.target_count; ++t)
        ASSERT_EQ(scores[q * tile.target_count + t],
                  setup.oracle_score(queries[tile.first_query + q], targets[tile.first_target + t]))
            << kernel->name() << " query " << tile.first_query + q << " target " << tile.first_target + t;
  }
}

INSTANTIATE_TEST_SUITE_P(AllKernels, SwKernelTest, ::testing::ValuesIn(kKernelNames),
                         [](const auto& info) { return info.param; });

TEST(SwScalar, MatchesParasailOnRandomPairs) {
  std::mt19937 rng(42);
  for (const Config& c : configs()) {
    SCOPED_TRACE(c.name);
    Oracle setup(c);
    for (int pair = 0; pair < 300; ++pair) {
      const std::string a = test::random_sequence(rng, setup.letters, random_length(rng, 1000));
      const std::string b = pair % 3 == 0 ? test::relative_of(rng, a, setup.letters, 0.15)
                                          : test::random_sequence(rng, setup.letters, random_length(rng, 1000));
      ASSERT_EQ(sw_score_scalar(setup.encode(a), setup.encode(b), setup.scoring), setup.oracle_score(a, b))
          << a.size() << " x " << b.size();
    }
  }
}

// Re-scores an alignment by walking its cigar over the sequences; checks every reported field.
void check_alignment(const Oracle& setup, const std::vector<std::uint8_t>& q, const std::vector<std::uint8_t>& t,
                     const SwAlignment& a) {
  const int expected = sw_score_scalar(q, t, setup.scoring);
  ASSERT_EQ(a.score, expected);
  if (a.score == 0) {
    EXPECT_TRUE(a.cigar.empty());
    EXPECT_EQ(a.length, 0u);
    return;
  }
  ASSERT_GE(a.query_start, 1u);
  ASSERT_GE(a.target_start, 1u);
  ASSERT_LE(a.query_end, q.size());
  ASSERT_LE(a.target_end, t.size());
  std::size_t i = a.query_start - 1, j = a.target_start - 1;
  long score = 0;
  std::size_t length = 0, ids = 0, mis = 0, opens = 0, gap_cols = 0;
  char first_op = 0, last_op = 0;
  for (std::size_t p = 0; p < a.cigar.size();) {
    std::size_t run = 0;
    while (p < a.cigar.size() && std::isdigit(static_cast<unsigned char>(a.cigar[p]))) run = run * 10 + (a.cigar[p++] - '0');
    ASSERT_LT(p, a.cigar.size());
    const char op = a.cigar[p++];
    ASSERT_GT(run, 0u);
    ASSERT_NE(op, last_op) << "adjacent runs of one op";
    if (!first_op) first_op = op;
    last_op = op;
    length += run;
    if (op == 'M') {
      for (std::size_t k = 0; k < run; ++k, ++i, ++j) {
        ASSERT_LT(i, q.size());
        ASSERT_LT(j, t.size());
        score += setup.matrix.score(q[i], t[j]);
        (q[i] == t[j] ? ids : mis) += 1;
      }
    } else {
      ASSERT_TRUE(op == 'I' || op == 'D') << op;
      score -= setup.scoring.gap_open + static_cast<long>(run) * setup.scoring.gap_extend;
      ++opens;
      gap_cols += run;
      (op == 'I' ? i : j) += run;
    }
  }
  EXPECT_EQ(first_op, 'M');
  EXPECT_EQ(last_op, 'M');
  EXPECT_EQ(score, a.score) << a.cigar;
  EXPECT_EQ(i, a.query_end);
  EXPECT_EQ(j, a.target_end);
  EXPECT_EQ(length, a.length);
  EXPECT_EQ(ids, a.identities);
  EXPECT_EQ(mis, a.mismatches);
  EXPECT_EQ(opens, a.gap_opens);
  EXPECT_EQ(gap_cols, a.gap_columns);
  // End-cell tie rule: the first maximum in target-major order.
  const std::span<const std::uint8_t> qs(q), ts(t);
  EXPECT_LT(sw_score_scalar(qs, ts.first(a.target_end - 1), setup.scoring), a.score);
  EXPECT_LT(sw_score_scalar(qs.first(a.query_end - 1), ts.first(a.target_end), setup.scoring), a.score);
}

TEST(SwScalar, AlignmentsRescoreToTheirScore) {
  std::mt19937 rng(2024);
  for (const Config& c : configs()) {
    SCOPED_TRACE(c.name);
    Oracle setup(c);
    for (int pair = 0; pair < 150; ++pair) {
      const std::string a = test::random_sequence(rng, setup.letters, random_length(rng, 600));
      const std::string b = pair % 2 == 0 ? test::relative_of(rng, a, setup.letters, 0.08 + 0.02 * (pair % 5))
                                          : test::random_sequence(rng, setup.letters, random_length(rng, 600));
      const auto q = setup.encode(a), t = setup.encode(b);
      const SwAlignment al = sw_align_scalar(q, t, setup.scoring);
      check_alignment(setup, q, t, al);
      if (testing::Test::HasFatalFailure()) return;
    }
    // Degenerate: empty, length 1, repeats.
    for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
             {"", "A"}, {"A", ""}, {"A", "A"}, {"A", "C"}, {"AAAA", "AA"}, {std::string(50, 'A'), std::string(80, 'A')}}) {
      const auto q = setup.encode(a), t = setup.encode(b);
      check_alignment(setup, q, t, sw_align_scalar(q, t, setup.scoring));
    }
  }
}

TEST(SwScalar, AlignmentExample) {
  Oracle setup(configs()[0]);
  const auto q = setup.encode("MKTAYIAKQRQISFVKSHFSRQ"), t = setup.encode("MKTAYIAKQRQISFVKSHFSRQ");
  const SwAlignment a = sw_align_scalar(q, t, setup.scoring);
  EXPECT_EQ(a.cigar, "22M");
  EXPECT_EQ(a.identities, 22u);
  EXPECT_EQ(a.query_start, 1u);
  EXPECT_EQ(a.query_end, 22u);
  // One deleted target residue in the middle of a long identical stretch: one gap run.
  const auto t2 = setup.encode("MKTAYIAKQRQISFVKSHFSRQWMKTAYIAKQRQISFVKSHFSRQ");
  const auto q2 = setup.encode("MKTAYIAKQRQISFVKSHFSRQMKTAYIAKQRQISFVKSHFSRQ");
  const SwAlignment b = sw_align_scalar(q2, t2, setup.scoring);
  EXPECT_EQ(b.cigar, "22M1D22M");
  EXPECT_EQ(b.gap_opens, 1u);
  EXPECT_EQ(b.gap_columns, 1u);
  EXPECT_EQ(b.length, 45u);
  EXPECT_EQ(b.target_end, 45u);
}

}  // namespace

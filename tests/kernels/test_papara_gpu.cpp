// The GPU kernel against the scalar reference on random inputs, and the hybrid scheduler with a
// fake slow device. GPU tests skip with a message where no usable GPU is present (CI).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <thread>

#include "core/alphabet.hpp"
#include "engine/devices.hpp"
#include "kernels/cuda/papara_cuda.hpp"
#include "kernels/papara_kernel.hpp"
#include "papara_problems.hpp"
#include "engine/work_queue.hpp"
#include "papara/placement.hpp"

using namespace hyalign;
using namespace hyalign::engine;
using namespace hyalign::kernels;
using namespace hyalign::kernels::testing;

namespace {

void expect_equal_to_scalar(const PaparaKernel& kernel, const RandomProblem& rp, std::size_t max_tiles) {
  AllScores all(rp.queries.size(), rp.branches);
  engine::TileQueue queue(rp.branches, kernel.block_width(), rp.queries.size(), 7);
  auto scorer = kernel.make_scorer();
  while (auto tile = queue.take(max_tiles)) scorer->score_tile(*tile, all);
  const PaparaProblem problem = rp.problem();
  for (std::size_t q = 0; q < rp.queries.size(); ++q)
    for (std::size_t b = 0; b < rp.branches; ++b) {
      ASSERT_EQ(all.times_seen(q, b), 1) << "query " << q << " branch " << b;
      ASSERT_EQ(all.score(q, b), papara_score_scalar(rp.queries.sequence(q), problem.targets.branch(b), rp.scoring))
          << "query " << q << " (length " << rp.queries.length(q) << ") branch " << b << " of " << rp.branches << ", "
          << rp.columns << " columns";
    }
}

class PaparaGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    gpus_ = engine::usable_gpus();
    if (gpus_.empty()) GTEST_SKIP() << "SKIPPED: no usable GPU: " << engine::gpu_unavailable_reason();
  }
  std::vector<engine::GpuInfo> gpus_;
};

// Scorings the CPU accepts: PaPaRa's and other 16x2-exact ones, and ones only 32-bit lanes take
// (positive gap terms, a match score whose sums leave 16 bits, all zero).
const std::vector<PaparaScoring> kScorings{{-3, -1, 2, -3}, {-5, -2, 3, -1}, {-1, -1, 1, -4},   {2, 1, 3, 1},
                                           {-3, -1, 1000, -3}, {0, 0, 0, 0}, {-1000, -1000, 1000, -1000}, {-2, 0, 5, 3}};

void expect_gpu_equal_to_scalar(int gpu, RandomProblem& rp, std::size_t max_tiles) {
  const auto kernel = cuda::make_papara_gpu_kernel(gpu, rp.problem());
  ASSERT_NE(kernel, nullptr);
  expect_equal_to_scalar(*kernel, rp, max_tiles);
}

}  // namespace

TEST_F(PaparaGpu, EqualsScalarOnRandomShapes) {
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 300; ++trial) {
    const Alphabet& alphabet = trial % 3 == 2 ? Alphabet::protein() : Alphabet::dna();
    const std::size_t branches = 1 + rng() % 100;
    const std::size_t columns = 1 + rng() % (trial % 10 == 0 ? 3000 : 200);
    std::vector<std::size_t> lengths{1, 0, 1 + rng() % 31, 32, 33, 1 + rng() % 64, 1 + rng() % 200};
    if (trial % 5 == 0) lengths.push_back(1 + rng() % 768);
    if (trial % 25 == 0) lengths.push_back(769 + rng() % 3000);  // striped
    RandomProblem rp = make_problem(rng, alphabet, branches, columns, lengths);
    if (trial % 4 == 3) rp.scoring = kScorings[rng() % kScorings.size()];
    expect_gpu_equal_to_scalar(gpus_[0].index, rp, trial % 2 ? 1 : 1000);
    if (HasFatalFailure()) return;
  }
}

// Every rows-per-lane kernel and both sides of each edge: 32 R - 1, 32 R, 32 R + 1 rows for every
// R, and the stripe edges up to 10,000 residues, DNA and protein, on a reference with gap-only
// and gap-signal-only columns.
TEST_F(PaparaGpu, EveryLengthClassAndItsEdges) {
  std::vector<std::size_t> lengths{1, 2, 3};
  for (std::size_t rows = 1; rows <= 24; ++rows)
    for (std::size_t m : {32 * rows - 1, 32 * rows, 32 * rows + 1}) lengths.push_back(m);
  for (std::size_t stripes = 2; stripes <= 14; ++stripes)
    for (std::size_t m : {768 * (stripes - 1) + 1, 768 * stripes - 1, 768 * stripes}) lengths.push_back(m);
  lengths.push_back(10000);
  std::mt19937 rng(11);
  for (const Alphabet* alphabet : {&Alphabet::dna(), &Alphabet::protein()}) {
    RandomProblem rp = make_problem(rng, *alphabet, 5, 300, lengths);
    for (std::size_t c = 0; c < rp.columns; c += 7) {  // columns of gaps only, and of the gap signal in every branch
      for (std::size_t b = 0; b < rp.branches; ++b) {
        if (c % 2) rp.states[b * rp.columns + c] = alphabet->gap_set();
        else rp.cgap[b * rp.columns + c] = 1;
      }
    }
    rp.scoring = {-3, -1, 2, -3};
    expect_gpu_equal_to_scalar(gpus_[0].index, rp, 1000);
    if (HasFatalFailure()) return;
  }
}

TEST_F(PaparaGpu, EveryScoringOnLongAndShortQueries) {
  std::mt19937 rng(5);
  for (const PaparaScoring& scoring : kScorings)
    for (const Alphabet* alphabet : {&Alphabet::dna(), &Alphabet::protein()}) {
      RandomProblem rp = make_problem(rng, *alphabet, 7, 1 + rng() % 600, {0, 1, 31, 100, 767, 769, 2000, 5001});
      rp.scoring = scoring;
      expect_gpu_equal_to_scalar(gpus_[0].index, rp, 1 + rng() % 2 * 999);
      if (HasFatalFailure()) return;
    }
}

TEST_F(PaparaGpu, LongReferenceAndEveryRowCount) {
  std::mt19937 rng(7);
  std::vector<std::size_t> lengths;
  for (std::size_t m = 1; m <= 768; m += 13) lengths.push_back(m);
  lengths.push_back(768);
  const RandomProblem rp = make_problem(rng, Alphabet::dna(), 65, 5000, lengths);
  const auto kernel = cuda::make_papara_gpu_kernel(gpus_[0].index, rp.problem());
  expect_equal_to_scalar(*kernel, rp, 1000);
}

TEST(PaparaGpuSupport, ProteinAndEveryScoringRunOnTheGpu) {
  StateSequences queries;
  std::vector<StateSet> states(4, 1);
  std::vector<std::uint8_t> cgap(4, 0);
  PaparaProblem protein{{1, 4, states.data(), cgap.data()}, &queries, &Alphabet::protein(), {}};
  PaparaProblem positive{{1, 4, states.data(), cgap.data()}, &queries, &Alphabet::dna(), {1, -1, 2, -3}};
  if (engine::usable_gpus().empty()) GTEST_SKIP() << "SKIPPED: no usable GPU: " << engine::gpu_unavailable_reason();
  EXPECT_EQ(cuda::gpu_unsupported_reason(protein), "");
  EXPECT_EQ(cuda::gpu_unsupported_reason(positive), "");
}

namespace {

// Wraps a kernel: optionally slow, optionally holding its first tile until `gate` opens, and
// opening `opens` when its worker starts. This makes the fast device wait until the slow one is
// running, so both must take work whatever the thread timing.
class WrappedKernel final : public PaparaKernel {
 public:
  WrappedKernel(std::unique_ptr<PaparaKernel> inner, std::string name, int delay_ms, std::atomic<bool>* gate,
                std::atomic<bool>* opens)
      : inner_(std::move(inner)), name_(std::move(name)), delay_ms_(delay_ms), gate_(gate), opens_(opens) {}
  std::size_t block_width() const override { return inner_->block_width(); }
  std::string_view name() const override { return name_; }
  std::unique_ptr<PaparaBlockScorer> make_scorer() const override {
    struct Scorer final : PaparaBlockScorer {
      std::unique_ptr<PaparaBlockScorer> inner;
      int delay_ms;
      std::atomic<bool>* gate;
      void score_tile(const WorkTile& tile, ScoreSink& sink) override {
        while (gate && !gate->load()) std::this_thread::yield();
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        inner->score_tile(tile, sink);
      }
    };
    auto s = std::make_unique<Scorer>();
    s->inner = inner_->make_scorer();
    s->delay_ms = delay_ms_;
    s->gate = gate_;
    if (opens_) *opens_ = true;
    return s;
  }

 private:
  std::unique_ptr<PaparaKernel> inner_;
  std::string name_;
  int delay_ms_;
  std::atomic<bool>* gate_;
  std::atomic<bool>* opens_;
};

}  // namespace

TEST(HybridScheduler, EveryPairOnceAndResultIndependentOfDevices) {
  std::mt19937 rng(3);
  std::vector<std::size_t> lengths;
  for (int q = 0; q < 40; ++q) lengths.push_back(1 + rng() % 120);
  const RandomProblem rp = make_problem(rng, Alphabet::dna(), 300, 150, lengths);
  const PaparaProblem problem = rp.problem();
  const auto cpu = make_papara_cpu_kernel(KernelChoice::automatic, problem);
  std::atomic<bool> slow_started{false};
  const WrappedKernel fast(make_papara_cpu_kernel(KernelChoice::automatic, problem), "fast", 0, &slow_started, nullptr);
  const WrappedKernel slow(make_papara_cpu_kernel(KernelChoice::scalar, problem), "slow", 3, nullptr, &slow_started);

  const auto alone = papara::score_all_targets({{cpu.get(), 1, 1, "cpu"}}, problem, cpu->block_width(), false);
  const auto hybrid = papara::score_all_targets({{&fast, 3, 1, "fast"}, {&slow, 1, 5, "slow"}}, problem, cpu->block_width(), false);
  ASSERT_EQ(hybrid.devices.size(), 2u);
  EXPECT_GT(hybrid.devices[0].cells, 0);
  EXPECT_GT(hybrid.devices[1].cells, 0);  // the slow device did take work
  double expected_cells = 0;
  for (std::size_t q = 0; q < rp.queries.size(); ++q)
    expected_cells += static_cast<double>(rp.queries.length(q)) * rp.columns * rp.branches;
  EXPECT_DOUBLE_EQ(hybrid.devices[0].cells + hybrid.devices[1].cells, expected_cells);  // nothing twice or lost
  for (std::size_t q = 0; q < rp.queries.size(); ++q) {
    EXPECT_EQ(hybrid.best.of(q).front().score, alone.best.of(q).front().score);
    EXPECT_EQ(hybrid.best.of(q).front().target, alone.best.of(q).front().target);
  }
}

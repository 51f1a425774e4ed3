// The read-vs-locus extension kernels against the scalar definition, and the scalar traceback
// against its own score, on random tasks of many shapes.
#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "engine/cpu_features.hpp"
#include "engine/devices.hpp"
#include "kernels/cuda/extend_cuda.hpp"
#include "kernels/extend_kernel.hpp"
#include "kernels/simd/extend_simd.hpp"

namespace hyalign::kernels {
namespace {

struct Task {
  std::vector<std::uint8_t> query, target;
  std::uint32_t band = 1;
  ExtendTask view() const { return {query, target.data(), band}; }
};

// A query and a window that holds a mutated copy of it (substitutions, indels, N), with walls at
// random ends (where the mapper puts them: outside the locus's sequence) and, when asked, one in
// the middle (which a deletion or a high match score may cross: the kernels must still agree).
Task random_task(std::mt19937& rng, std::size_t length, std::uint32_t band, bool middle_walls) {
  Task t;
  t.band = band;
  for (std::size_t i = 0; i < length; ++i) t.query.push_back(rng() % 50 == 0 ? 4 : rng() % 4);
  const std::size_t target_length = length + band - 1;
  const std::size_t offset = band / 2 + (rng() % 3) - 1;
  std::vector<std::uint8_t> copy;
  for (std::uint8_t c : t.query) {
    const unsigned r = rng() % 100;
    if (r < 3) copy.push_back(rng() % 4);            // substitution
    else if (r < 4) continue;                         // deletion from the copy
    else if (r < 5) copy.push_back(rng() % 4), copy.push_back(c);  // insertion
    else copy.push_back(c == 4 ? rng() % 4 : c);
  }
  const bool related = rng() % 4 != 0;
  for (std::size_t k = 0; k < target_length; ++k) {
    const std::size_t from = k - std::min(k, offset);
    t.target.push_back(related && k >= offset && from < copy.size() ? copy[from] : rng() % 5);
  }
  if (rng() % 4 == 0) std::fill(t.target.begin(), t.target.begin() + rng() % (target_length / 2 + 1), kWallCode);
  if (rng() % 4 == 0) std::fill(t.target.end() - rng() % (target_length / 2 + 1), t.target.end(), kWallCode);
  if (middle_walls && rng() % 8 == 0) t.target[rng() % target_length] = kWallCode;
  return t;
}

std::vector<Task> random_tasks(std::mt19937& rng, std::size_t count, bool middle_walls = true) {
  std::vector<Task> tasks;
  for (std::size_t k = 0; k < count; ++k) {
    const unsigned shape = rng() % 10;
    const std::size_t length = shape == 0 ? 1 + rng() % 8 : shape < 8 ? 30 + rng() % 300 : 1000 + rng() % 2000;
    const std::uint32_t band = shape == 9 ? 200 + rng() % 500 : 1 + rng() % 80;
    tasks.push_back(random_task(rng, length, band, middle_walls));
  }
  return tasks;
}

std::vector<ExtendScoring> scorings() {
  ExtendScoring other;
  other.match = 2, other.mismatch = 3, other.ambiguous = 2, other.gap_open = 5, other.gap_extend = 2;
  other.clip5 = 0, other.clip3 = 10;
  ExtendScoring wide;
  wide.match = 20;  // long queries overflow 16 bits: the scalar re-run
  return {ExtendScoring{}, other, wide};
}

// Every task's score through `scorer` equals the definition's.
void expect_definition(ExtendScorer& scorer, const ExtendScoring& scoring, const std::vector<Task>& tasks) {
  std::vector<ExtendTask> views;
  for (const Task& t : tasks) views.push_back(t.view());
  std::vector<ExtendScore> got(views.size());
  scorer.score(views, got);
  for (std::size_t k = 0; k < views.size(); ++k) {
    const ExtendScore want = extend_score_scalar(views[k], scoring);
    ASSERT_EQ(got[k], want) << "task " << k << " of " << views.size() << ": length " << views[k].query.size()
                            << ", band " << views[k].band_width << "; got score " << got[k].score << " end "
                            << got[k].query_end << "," << got[k].target_end << ", want " << want.score << " end "
                            << want.query_end << "," << want.target_end;
  }
}

// Mate rescue windows: reads that fit 8-bit lanes in bands wider than 256 diagonals (the best
// cell's column beyond a byte), half of them tandem repeats, where equal best cells lie in many
// rows and columns and only the first in (i, d) order is right.
std::vector<Task> rescue_tasks(std::mt19937& rng, std::size_t count) {
  std::vector<Task> tasks;
  for (std::size_t k = 0; k < count; ++k) {
    Task t = random_task(rng, 100 + rng() % 151, 300 + rng() % 401, true);
    if (k % 2 == 0) {
      const unsigned period = 1 + rng() % 4;
      for (std::size_t i = 0; i < t.query.size(); ++i) t.query[i] = rng() % 40 == 0 ? rng() % 5 : i % period;
      for (std::size_t i = 0; i < t.target.size(); ++i)
        if (t.target[i] != kWallCode) t.target[i] = rng() % 40 == 0 ? rng() % 5 : (i + k) % period;
    }
    tasks.push_back(std::move(t));
  }
  return tasks;
}

// Reads along the band's first or last diagonal, their first letters changed: the cells beside the
// band's edges, which must feed nothing, decide these scores. In one batch the bands differ, so in
// a vector some lanes' edges lie inside other lanes' bands.
std::vector<Task> edge_tasks(std::mt19937& rng, std::size_t count) {
  std::vector<Task> tasks;
  for (std::size_t k = 0; k < count; ++k) {
    Task t;
    t.band = 1 + rng() % 300;
    for (std::size_t i = 0, length = 20 + rng() % 180; i < length; ++i) t.query.push_back(rng() % 4);
    for (std::size_t i = 0; i < t.query.size() + t.band - 1; ++i) t.target.push_back(rng() % 4);
    const std::size_t diagonal = k % 2 == 0 ? 0 : t.band - 1;
    for (std::size_t i = 0; i < t.query.size(); ++i)
      t.target[diagonal + i] = i < 1 + k % 3 ? (t.query[i] + 1) % 4 : rng() % 50 == 0 ? rng() % 4 : t.query[i];
    tasks.push_back(std::move(t));
  }
  return tasks;
}

// The shared scorings, and a start bonus above a gap's opening: then row 0's insertions score, up
// to the band's edge and not beyond it.
std::vector<ExtendScoring> cpu_scorings() {
  std::vector<ExtendScoring> all = scorings();
  ExtendScoring start;
  start.gap_open = 2, start.clip5 = 12, start.clip3 = 0;
  all.push_back(start);
  ExtendScoring free_open;  // -O 0: opening a deletion from one ties with extending it
  free_open.gap_open = 0, free_open.mismatch = 1;
  all.push_back(free_open);
  return all;
}

std::string cigar_of(const ExtendAlignment& a) {
  std::string s;
  for (const CigarRun& r : a.cigar) s += std::to_string(r.length) + "MIDNSHP"[static_cast<int>(r.op)];
  return s;
}

class ExtendKernels : public ::testing::TestWithParam<engine::KernelChoice> {};

// Random shapes mix tasks for 8-bit lanes (short reads; with `wide`, 12 letters at most), 16-bit
// lanes and the scalar kernel in one batch; batches are no multiple of any vector's lanes.
TEST_P(ExtendKernels, EqualTheDefinition) {
  if (!engine::cpu_supports(GetParam())) GTEST_SKIP() << "this CPU lacks the instruction set";
  std::mt19937 rng(42);
  for (const ExtendScoring& scoring : cpu_scorings()) {
    const auto kernel = make_extend_cpu_kernel(GetParam(), scoring);
    const auto scorer = kernel->make_scorer();
    for (std::size_t batch : {1u, 7u, 33u, 150u}) expect_definition(*scorer, scoring, random_tasks(rng, batch));
    for (std::size_t batch : {1u, 65u, 200u}) expect_definition(*scorer, scoring, rescue_tasks(rng, batch));
    expect_definition(*scorer, scoring, edge_tasks(rng, 300));
    std::vector<Task> tiny;  // the wide scoring's 8-bit tasks
    for (int k = 0; k < 100; ++k) tiny.push_back(random_task(rng, 1 + rng() % 14, 1 + rng() % 300, true));
    expect_definition(*scorer, scoring, tiny);
  }
}

// A random read and a window holding it exactly, in the band's middle diagonal, walls around it.
Task perfect_match_task(std::mt19937& rng, std::size_t length, std::uint32_t band) {
  Task t;
  for (std::size_t i = 0; i < length; ++i) t.query.push_back(rng() % 4);
  t.target.assign(band / 2, kWallCode);
  t.target.insert(t.target.end(), t.query.begin(), t.query.end());
  t.target.resize(t.query.size() + band - 1, kWallCode);
  t.band = band;
  return t;
}

// Where each width ends: the lanes must hold the task's max_score; a perfect match reaches it.
TEST(ExtendLaneBits, EndWhereMaxScoreLeavesTheLane) {
  const ExtendScoring s;  // match 1, both bonuses 5
  const std::vector<std::uint8_t> letters(70000, 0);
  auto bits = [&](std::size_t length) {
    return extend_lane_bits({std::span(letters.data(), length), letters.data(), 1}, s);
  };
  EXPECT_EQ(bits(1), 8);
  EXPECT_EQ(bits(245), 8);  // max_score 255
  EXPECT_EQ(bits(246), 16);
  EXPECT_EQ(bits(65525), 16);  // 65535
  EXPECT_EQ(bits(65526), 32);
}

TEST_P(ExtendKernels, ScorePerfectMatchesAtTheLaneEdges) {
  if (!engine::cpu_supports(GetParam())) GTEST_SKIP() << "this CPU lacks the instruction set";
  std::mt19937 rng(7);
  ExtendScoring wide;
  wide.match = 20, wide.clip3 = 10;  // 12 letters score 255
  for (const ExtendScoring& scoring : {ExtendScoring{}, wide}) {
    const auto scorer = make_extend_cpu_kernel(GetParam(), scoring)->make_scorer();
    std::vector<Task> tasks;
    for (const long long top : {254LL, 255LL, 256LL, 65535LL, 65536LL}) {
      const long long letters = (top - scoring.clip5 - scoring.clip3) / scoring.match;
      if (scoring.max_score(letters) != top) continue;
      for (const std::uint32_t band : {1u, 3u, 300u}) {
        Task t = perfect_match_task(rng, static_cast<std::size_t>(letters), band);
        ASSERT_EQ(extend_score_scalar(t.view(), scoring).score, top);
        tasks.push_back(std::move(t));
      }
    }
    expect_definition(*scorer, scoring, tasks);
  }
}

// The alignments of `tasks` traced by `align` (best cell, begins, CIGAR) equal the scalar
// traceback's, in the whole band and in the band near the best cell that the mapper traces.
void expect_scalar_traceback(ExtendAligner align, const ExtendScoring& scoring, const std::vector<Task>& tasks) {
  for (const Task& t : tasks) {
    const ExtendAlignment want = extend_align_scalar(t.view(), scoring);
    const ExtendAlignment got = align(t.view(), scoring);
    const std::string shape = "length " + std::to_string(t.query.size()) + ", band " + std::to_string(t.band);
    ASSERT_EQ(got.best, want.best) << shape;
    ASSERT_EQ(got.query_begin, want.query_begin) << shape;
    ASSERT_EQ(got.target_begin, want.target_begin) << shape;
    ASSERT_EQ(cigar_of(got), cigar_of(want)) << shape;
    if (want.best.score <= 0) continue;
    const ExtendAlignment near = extend_align_near(t.view(), scoring, want.best, align);
    ASSERT_EQ(near.target_begin, want.target_begin) << shape;
    ASSERT_EQ(cigar_of(near), cigar_of(want)) << shape;
  }
}

// The alignments traced back (best cell, begins, CIGAR) through the CPU's aligner for the kernel
// equal the scalar traceback's: random shapes with walls, long reads in narrow bands, wide mate
// rescue windows and tandem repeats (where many paths tie and only the tie rules pick one), band
// edges, and the near-the-best-cell band the mapper traces in.
TEST_P(ExtendKernels, AlignerEqualsTheScalarTraceback) {
  if (!engine::cpu_supports(GetParam())) GTEST_SKIP() << "this CPU lacks the instruction set";
  const ExtendAligner align = extend_cpu_aligner(GetParam());
  std::mt19937 rng(23);
  for (const ExtendScoring& scoring : cpu_scorings()) {
    std::vector<Task> tasks = random_tasks(rng, 150);
    for (Task& t : rescue_tasks(rng, 60)) tasks.push_back(std::move(t));
    for (Task& t : edge_tasks(rng, 60)) tasks.push_back(std::move(t));
    for (int k = 0; k < 4; ++k) tasks.push_back(random_task(rng, 5000 + rng() % 6000, 20 + rng() % 60, true));
    for (int k = 0; k < 30; ++k) tasks.push_back(random_task(rng, 1 + rng() % 14, 1 + rng() % 300, true));
    tasks.push_back(random_task(rng, 0, 5, false));
    expect_scalar_traceback(align, scoring, tasks);
  }
}

// The SIMD aligners trace in 16-bit lanes where every value of a task fits them, else in 32-bit
// lanes: tasks on both sides of each limit, perfect matches (the highest scores) among them.
TEST_P(ExtendKernels, AlignerEqualsTheScalarTracebackAtTheLaneWidthLimits) {
  if (!engine::cpu_supports(GetParam())) GTEST_SKIP() << "this CPU lacks the instruction set";
  const ExtendAligner align = extend_cpu_aligner(GetParam());
  std::mt19937 rng(29);
  const ExtendScoring bwa;  // the read's best score +16000 at 15,989 letters
  std::vector<Task> long_reads;
  for (const std::size_t length : {15988u, 15989u, 15990u}) {
    for (const std::uint32_t band : {3u, 40u}) long_reads.push_back(perfect_match_task(rng, length, band));
    long_reads.push_back(random_task(rng, length, 40, false));
  }
  EXPECT_TRUE(simd::extend_rows_fit_16_bits(long_reads[3].view(), bwa));
  EXPECT_FALSE(simd::extend_rows_fit_16_bits(long_reads[6].view(), bwa));
  expect_scalar_traceback(align, bwa, long_reads);
  for (const int extend : {441, 442}) {  // the wall's 1000 + open 6 + 34 extensions reach 16000 at 441
    ExtendScoring gaps;
    gaps.gap_extend = extend;
    const std::vector<Task> tasks = random_tasks(rng, 60);
    EXPECT_EQ(simd::extend_rows_fit_16_bits(tasks.front().view(), gaps), extend == 441);
    expect_scalar_traceback(align, gaps, tasks);
  }
}

INSTANTIATE_TEST_SUITE_P(Cpu, ExtendKernels,
                         ::testing::Values(engine::KernelChoice::scalar, engine::KernelChoice::avx2,
                                           engine::KernelChoice::avx512),
                         [](const auto& info) { return std::string(engine::kernel_name(info.param)); });

// The GPU kernel: random shapes, the band sizes where it changes how it keeps a row (each group
// shape's widest band, and a thread per task beyond 1024), and batches as large as the mapper hands
// it, of chain windows and of mate rescue windows.
TEST(ExtendGpu, EqualsTheDefinition) {
  const auto gpus = engine::usable_gpus();
  if (gpus.empty()) GTEST_SKIP() << "SKIPPED: no usable GPU: " << engine::gpu_unavailable_reason();
  std::mt19937 rng(43);
  for (const ExtendScoring& scoring : scorings()) {
    const auto kernel = cuda::make_extend_gpu_kernel(gpus.front().index, scoring);
    ASSERT_NE(kernel, nullptr);
    const auto scorer = kernel->make_scorer();
    for (std::size_t batch : {1u, 7u, 33u, 150u}) expect_definition(*scorer, scoring, random_tasks(rng, batch));
    std::vector<Task> edges;
    for (std::uint32_t band : {1u, 16u, 17u, 47u, 48u, 49u, 127u, 128u, 129u, 255u, 256u, 257u, 400u, 511u, 512u,
                               513u, 1023u, 1024u, 1025u, 1400u})
      for (std::size_t length : {1u, 2u, 100u, 151u}) edges.push_back(random_task(rng, length, band, true));
    expect_definition(*scorer, scoring, edges);
    std::vector<Task> many;
    for (int k = 0; k < 20000; ++k) many.push_back(random_task(rng, 100 + rng() % 60, 25 + rng() % 20, true));
    expect_definition(*scorer, scoring, many);
    std::vector<Task> rescues;
    for (int k = 0; k < 3000; ++k) rescues.push_back(random_task(rng, 100 + rng() % 60, 300 + rng() % 500, true));
    expect_definition(*scorer, scoring, rescues);
  }
}

// A GPU scorer that fails: its batch, and every later one, is scored on the CPU; the failure is
// heard once.
TEST(ExtendFallback, ScoresAFailedBatchOnTheBackup) {
  class Failing final : public ExtendScorer {
   public:
    explicit Failing(int& calls) : calls_(calls) {}
    void score(std::span<const ExtendTask>, std::span<ExtendScore>) override {
      ++calls_;
      throw std::runtime_error("CUDA extension kernel: an illegal memory access was encountered");
    }

   private:
    int& calls_;
  };
  const ExtendScoring scoring;
  const auto cpu = make_extend_cpu_kernel(engine::KernelChoice::scalar, scoring);
  int calls = 0, failures = 0;
  const auto scorer = with_cpu_fallback(std::make_unique<Failing>(calls), cpu->make_scorer(), [&](const std::string& error) {
    ++failures;
    EXPECT_NE(error.find("illegal memory access"), std::string::npos);
  });
  std::mt19937 rng(9);
  expect_definition(*scorer, scoring, random_tasks(rng, 50));
  expect_definition(*scorer, scoring, random_tasks(rng, 50));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(failures, 1);
}

// The primary scores only its share (narrow bands here, and only when enough of them), the backup the rest.
TEST(ExtendFallback, SharesABatchByBand) {
  class Recording final : public ExtendScorer {
   public:
    Recording(const ExtendScoring& scoring, std::vector<std::uint32_t>& bands) : scoring_(scoring), bands_(bands) {}
    void score(std::span<const ExtendTask> tasks, std::span<ExtendScore> results) override {
      for (std::size_t k = 0; k < tasks.size(); ++k) {
        bands_.push_back(tasks[k].band_width);
        results[k] = extend_score_scalar(tasks[k], scoring_);
      }
    }

   private:
    ExtendScoring scoring_;
    std::vector<std::uint32_t>& bands_;
  };
  const ExtendScoring scoring;
  const auto cpu = make_extend_cpu_kernel(engine::KernelChoice::avx2, scoring);
  std::vector<std::uint32_t> bands;
  const auto scorer = with_cpu_fallback(std::make_unique<Recording>(scoring, bands), cpu->make_scorer(), {},
                                        {[](const ExtendTask& t) { return t.band_width <= 40; }, 5});
  std::mt19937 rng(10);
  const std::vector<Task> tasks = random_tasks(rng, 200);
  expect_definition(*scorer, scoring, tasks);
  const auto narrow = std::count_if(tasks.begin(), tasks.end(), [](const Task& t) { return t.band <= 40; });
  EXPECT_EQ(bands.size(), static_cast<std::size_t>(narrow));
  EXPECT_TRUE(std::all_of(bands.begin(), bands.end(), [](std::uint32_t b) { return b <= 40; }));
  bands.clear();
  expect_definition(*scorer, scoring, random_tasks(rng, 3));  // fewer than 5 narrow ones: all on the backup
  EXPECT_TRUE(bands.empty());
}

TEST(ExtendScalar, TracebackRescoresToItsScore) {
  std::mt19937 rng(5);
  for (const ExtendScoring& scoring : scorings()) {
    for (const Task& t : random_tasks(rng, 300, false)) {
      const ExtendAlignment a = extend_align_scalar(t.view(), scoring);
      ASSERT_EQ(a.best, extend_score_scalar(t.view(), scoring));
      EXPECT_EQ(rescore_alignment(t.view(), scoring, a.target_begin, a.cigar), a.best.score);
      std::uint32_t query_letters = 0, target_letters = 0;
      for (const CigarRun& run : a.cigar) {
        if (run.op != CigarOp::deletion) query_letters += run.length;
        if (run.op == CigarOp::match || run.op == CigarOp::deletion) target_letters += run.length;
      }
      EXPECT_EQ(query_letters, t.query.size());
      if (a.best.score <= 0) continue;
      EXPECT_EQ(a.target_begin + static_cast<std::int32_t>(target_letters), a.best.target_end);
      for (std::int32_t k = a.target_begin; k < a.best.target_end; ++k)
        EXPECT_NE(t.target[static_cast<std::size_t>(k)], kWallCode) << "crossed a wall";
    }
  }
}

Task task_of(const std::string& query, const std::string& target, std::uint32_t band) {
  auto code = [](char c) -> std::uint8_t { return c == 'A' ? 0 : c == 'C' ? 1 : c == 'G' ? 2 : c == 'T' ? 3 : c == '|' ? kWallCode : 4; };
  Task t;
  for (char c : query) t.query.push_back(code(c));
  for (char c : target) t.target.push_back(code(c));
  t.band = band;
  return t;
}

// The traceback near the best cell is the whole band's: same best cell, same begin, same CIGAR, on
// random windows (mate rescue's wide ones among them) and on tandem repeats, where many paths tie.
TEST(ExtendScalar, TracebackNearTheBestCellEqualsTheWholeBand) {
  std::mt19937 rng(19);
  std::vector<Task> tasks = random_tasks(rng, 300, false);
  for (int k = 0; k < 300; ++k) tasks.push_back(random_task(rng, 100 + rng() % 60, 1 + rng() % 800, k % 2 == 0));
  for (int k = 0; k < 200; ++k) {
    Task t = random_task(rng, 150, 20 + rng() % 400, false);
    const unsigned period = 1 + rng() % 4;
    for (std::size_t i = 0; i < t.query.size(); ++i) t.query[i] = rng() % 30 == 0 ? rng() % 4 : (i % period) % 4;
    for (std::size_t i = 0; i < t.target.size(); ++i)
      if (t.target[i] != kWallCode) t.target[i] = rng() % 30 == 0 ? rng() % 4 : ((i + k) % period) % 4;
    tasks.push_back(std::move(t));
  }
  int narrowed = 0;
  for (const ExtendScoring& scoring : scorings()) {
    for (const Task& t : tasks) {
      const ExtendAlignment whole = extend_align_scalar(t.view(), scoring);
      const ExtendAlignment near = extend_align_near(t.view(), scoring, whole.best);
      ASSERT_EQ(near.best, whole.best) << "band " << t.band << ", length " << t.query.size();
      ASSERT_EQ(near.target_begin, whole.target_begin);
      ASSERT_EQ(near.query_begin, whole.query_begin);
      ASSERT_EQ(cigar_of(near), cigar_of(whole)) << "band " << t.band << ", length " << t.query.size();
      const long long most = static_cast<long long>(t.query.size()) * scoring.match + scoring.clip5 + scoring.clip3 -
                             scoring.gap_open - whole.best.score;
      const long long near_band = most / scoring.gap_extend + most / (scoring.gap_extend + scoring.match) + 1;
      narrowed += whole.best.score > 0 && near_band < t.band;
    }
  }
  EXPECT_GT(narrowed, 500) << "too few tasks had a narrower band: the test checks little";
}

TEST(ExtendScalar, HandCheckedCases) {
  const ExtendScoring s;
  // Exact: both bonuses.
  ExtendAlignment a = extend_align_scalar(task_of("ACGTACGTAC", "GACGTACGTACG", 3).view(), s);
  EXPECT_EQ(a.best.score, 10 + 5 + 5);
  EXPECT_EQ(cigar_of(a), "10M");
  EXPECT_EQ(a.target_begin, 1);
  // A mismatch at the last letter: keeping it (-4 + 5) beats clipping it.
  a = extend_align_scalar(task_of("ACGTACGTAA", "ACGTACGTAC", 1).view(), s);
  EXPECT_EQ(a.best.score, 9 - 4 + 10);
  EXPECT_EQ(cigar_of(a), "10M");
  // Two mismatches at the end: clipped.
  a = extend_align_scalar(task_of("ACGTACGTACGTAA", "ACGTACGTACGTCC", 1).view(), s);
  EXPECT_EQ(cigar_of(a), "12M2S");
  EXPECT_EQ(a.best.score, 12 + 5);
  // A deletion from the read and an insertion into it (the band centred: the read's diagonal is 4).
  a = extend_align_scalar(task_of("ACGTTGCAACGGTTACGATC", "TTTTACGTTGCAACGTGGTTACGATCAATTTT", 9).view(), s);
  EXPECT_EQ(cigar_of(a), "10M2D10M");
  EXPECT_EQ(a.best.score, 20 - 8 + 10);
  EXPECT_EQ(a.target_begin, 4);
  a = extend_align_scalar(task_of("ACGTTGCAACGAAGTTACGATCAG", "TTTTACGTTGCAACGGTTACGATCAGCCCC", 9).view(), s);
  EXPECT_EQ(cigar_of(a), "11M2I11M");
  EXPECT_EQ(a.best.score, 22 - 8 + 10);
  // Outside the band the indel is not seen: the read is clipped instead.
  a = extend_align_scalar(task_of("ACGTTGCAACGAAGTTACGATCAG", "ACGTTGCAACGGTTACGATCAGCCCC", 9).view(), s);
  EXPECT_EQ(cigar_of(a), "11M13S");
  // Nothing aligns but the first letter's bonus outweighs its mismatch: 1M3S scoring 5 - 4.
  a = extend_align_scalar(task_of("AAAA", "CCCC", 1).view(), s);
  EXPECT_EQ(a.best.score, 1);
  EXPECT_EQ(cigar_of(a), "1M3S");
  // Without the bonus nothing aligns: score 0, one soft clip.
  ExtendScoring no_bonus;
  no_bonus.clip5 = no_bonus.clip3 = 0;
  a = extend_align_scalar(task_of("AAAA", "CCCC", 1).view(), no_bonus);
  EXPECT_EQ(a.best.score, 0);
  EXPECT_EQ(cigar_of(a), "4S");
  // A wall in the way: the alignment stops before it.
  a = extend_align_scalar(task_of("ACGTACGTACGTACGTACGT", "ACGTACGTAC|TACGTACGT", 1).view(), s);
  EXPECT_EQ(cigar_of(a), "10M10S");
}

}  // namespace
}  // namespace hyalign::kernels

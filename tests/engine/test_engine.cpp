// The tool-neutral engine: best-hit tables, device planning and the scheduler's shares.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "engine/best_hits.hpp"
#include "engine/device_plan.hpp"
#include "engine/scheduler.hpp"

using namespace hyalign::engine;

namespace {

// The k best of all offers by the rule (score down, then target up), computed by sorting.
std::vector<ScoredTarget> reference_best(std::vector<ScoredTarget> all, std::size_t k) {
  std::sort(all.begin(), all.end(), ranks_before);
  all.resize(std::min(all.size(), k));
  return all;
}

}  // namespace

// Tables filled from any split of the offers, merged in any order, give the sorted k best.
TEST(BestHits, AnySplitAndMergeOrderGivesTheSameLists) {
  std::mt19937 rng(5);
  for (std::size_t k : {1, 2, 7, 50}) {
    const std::size_t queries = 4;
    std::vector<std::vector<ScoredTarget>> offers(queries);
    for (auto& list : offers)
      for (std::size_t t = 0; t < 200; ++t) list.push_back({static_cast<int>(rng() % 20) - 5, t});  // many ties
    for (unsigned tables = 1; tables <= 5; ++tables) {
      std::vector<BestHits> parts(tables, BestHits(queries, k));
      for (std::size_t q = 0; q < queries; ++q) {
        std::vector<ScoredTarget> shuffled = offers[q];
        std::shuffle(shuffled.begin(), shuffled.end(), rng);
        for (const ScoredTarget& hit : shuffled) parts[rng() % tables].offer(q, hit.score, hit.target);
      }
      std::shuffle(parts.begin(), parts.end(), rng);
      BestHits merged(queries, k);
      for (const auto& part : parts) merged.merge(part);
      for (std::size_t q = 0; q < queries; ++q) {
        const auto want = reference_best(offers[q], k);
        const auto got = merged.of(q);
        ASSERT_EQ(got.size(), want.size()) << "k " << k;
        for (std::size_t i = 0; i < want.size(); ++i) {
          EXPECT_EQ(got[i].score, want[i].score) << "k " << k << " rank " << i;
          EXPECT_EQ(got[i].target, want[i].target) << "k " << k << " rank " << i;
        }
      }
    }
  }
}

// A row offered at once (the GPU's fold) keeps exactly what offering its scores one by one keeps.
TEST(BestHits, RowOfferEqualsSingleOffers) {
  std::mt19937 rng(9);
  for (std::size_t k : {1, 3}) {
    BestHits rows(2, k), singles(2, k);
    for (int round = 0; round < 50; ++round) {
      const std::size_t q = rng() % 2, first = rng() % 100, count = rng() % 40;
      std::vector<int> scores(count);
      for (int& v : scores) v = static_cast<int>(rng() % 6);  // many ties
      rows.offer_row(q, scores.data(), first, count);
      for (std::size_t i = 0; i < count; ++i) singles.offer(q, scores[i], first + i);
    }
    for (std::size_t q = 0; q < 2; ++q) {
      ASSERT_EQ(rows.of(q).size(), singles.of(q).size());
      for (std::size_t i = 0; i < rows.of(q).size(); ++i) {
        EXPECT_EQ(rows.of(q)[i].score, singles.of(q)[i].score);
        EXPECT_EQ(rows.of(q)[i].target, singles.of(q)[i].target);
      }
    }
  }
}

TEST(BestHits, FloorIsTheLastScoreOnceFull) {
  BestHits best(1, 2);
  EXPECT_EQ(best.floor(0), INT_MIN);
  best.offer(0, 5, 10);
  EXPECT_EQ(best.floor(0), INT_MIN);
  best.offer(0, 3, 11);
  EXPECT_EQ(best.floor(0), 3);
  best.offer(0, 3, 9);  // a tie with an earlier target enters
  EXPECT_EQ(best.of(0)[1].target, 9u);
}

TEST(DevicePlan, WorkersPerDeviceAndTakesFromFreeMemory) {
  const std::vector<GpuInfo> gpus{{0, "a", std::size_t{8} << 30}, {1, "b", std::size_t{1} << 20}};
  WorkShape shape;
  shape.max_tiles_per_gpu_take = 1000;
  shape.gpu_bytes_per_tile = 4096;
  const auto groups = plan_worker_groups(DeviceChoice::automatic, 8, "cpu", gpus, {"gpu0", "gpu1"}, shape);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].workers, 6u);                // a core for each GPU's worker
  EXPECT_EQ(groups[1].max_tiles_per_take, 1000u);  // plenty of memory: the shape's bound
  EXPECT_EQ(groups[2].max_tiles_per_take, 128u);   // half of 1 MiB / 4 KiB per tile
  const auto gpu_only = plan_worker_groups(DeviceChoice::gpu, 8, "cpu", gpus, {"gpu0", "gpu1"}, shape);
  EXPECT_EQ(gpu_only.size(), 2u);
  const auto cpu_only = plan_worker_groups(DeviceChoice::cpu, 1, "cpu", {}, {}, shape);
  ASSERT_EQ(cpu_only.size(), 1u);
  EXPECT_EQ(cpu_only[0].workers, 1u);
}

TEST(DevicePlan, CpuChoiceSelectsNoGpu) {
  const GpuSelection none = select_gpus(DeviceChoice::cpu, "");
  EXPECT_TRUE(none.gpus.empty());
  EXPECT_TRUE(none.notice.empty());
}

namespace {

// Scores `tiles` tiles on fake devices, each group's worker doing `tiles_per_second`; `reports` get
// each group's share.
void run_fake(const std::vector<WorkerGroup>& groups, const std::vector<double>& tiles_per_second, std::size_t tiles,
              std::vector<DeviceReport>& reports) {
  std::vector<std::size_t> group_of_worker;
  for (std::size_t g = 0; g < groups.size(); ++g) group_of_worker.insert(group_of_worker.end(), groups[g].workers, g);
  TileQueue queue(tiles, 1, 1, 1);
  reports = run_workers(groups, queue, nullptr, [&](std::size_t w, const WorkTile& tile) {
    std::this_thread::sleep_for(
        std::chrono::duration<double>(static_cast<double>(tile.target_count) / tiles_per_second[group_of_worker[w]]));
    return static_cast<double>(tile.target_count);
  });
}

// The seconds the groups' shares of the work take at the fake rates (tiles per second and worker):
// the run's length as the scheduler's choices make it, without the machine's own delays (a loaded
// machine, sanitizers), which made a comparison of wall times fail now and then. On a loaded
// machine the fake CPU workers wake late, so their measured rate, and their share, drop: the mixes
// below then model 12-14 % over the fastest device alone. A fixed third per take (the fault this
// guards against) gives the slow device 667 tiles: 13 s against 1 s.
double modelled_seconds(const std::vector<WorkerGroup>& groups, const std::vector<double>& tiles_per_second,
                        const std::vector<DeviceReport>& reports) {
  double longest = 0;
  for (std::size_t g = 0; g < groups.size(); ++g)
    longest = std::max(longest, reports[g].cells / (tiles_per_second[g] * groups[g].workers));
  return longest;
}

}  // namespace

// A device far faster than the CPU workers together takes its share by measured rate and a slow
// one takes little: either mix finishes no later than its fastest device alone (a fixed third per
// take made a slow device hold the run up), every tile is scored once, and both devices take work.
TEST(Scheduler, SharesByMeasuredRateSoTheMixIsNeverSlowerThanItsFastestDevice) {
  const std::vector<WorkerGroup> cpu{{"cpu", 2, 1}}, gpu{{"gpu", 1, 1u << 20}};
  const std::vector<WorkerGroup> both{cpu[0], gpu[0]};
  const std::size_t tiles = 2000;
  std::vector<DeviceReport> reports;
  const double fast_alone = static_cast<double>(tiles) / 5000;
  run_fake(both, {125, 5000}, tiles, reports);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].cells + reports[1].cells, static_cast<double>(tiles));
  EXPECT_GT(reports[0].cells, 0);
  EXPECT_GT(reports[1].cells / tiles, 0.85);
  const double fast_mixed = modelled_seconds(both, {125, 5000}, reports);
  EXPECT_LT(fast_mixed, fast_alone * 1.25 + 0.02) << "mixed " << fast_mixed << " s, fast device alone " << fast_alone;

  const double cpu_alone = static_cast<double>(tiles) / (1000 * 2);
  run_fake(both, {1000, 50}, tiles, reports);
  EXPECT_EQ(reports[0].cells + reports[1].cells, static_cast<double>(tiles));
  EXPECT_GT(reports[1].cells, 0);
  const double slow_mixed = modelled_seconds(both, {1000, 50}, reports);
  EXPECT_LT(slow_mixed, cpu_alone * 1.25 + 0.02) << "mixed " << slow_mixed << " s, CPU alone " << cpu_alone;
}

// CPU workers keep working while the GPU is busy with its take: with tiles that take a CPU worker
// far longer than the GPU, counting the GPU as free would stop them as soon as it took its share,
// and leave it their part after its take.
TEST(Scheduler, CpuWorkersCountTheGpuBusyUntilItsTakeEnds) {
  const std::vector<WorkerGroup> both{{"cpu", 2, 1}, {"gpu", 1, 1u << 20}};
  const std::size_t tiles = 2000;
  const double cpu_rate = 20, gpu_rate = 2000;  // per worker: 50 ms per CPU tile
  std::vector<DeviceReport> reports;
  run_fake(both, {cpu_rate, gpu_rate}, tiles, reports);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].cells + reports[1].cells, static_cast<double>(tiles));
  const double cpu_share = tiles * 2 * cpu_rate / (2 * cpu_rate + gpu_rate);  // about 39 tiles
  EXPECT_GT(reports[0].cells, cpu_share / 2) << "the CPU workers scored " << reports[0].cells << " tiles";
}

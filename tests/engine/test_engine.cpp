// The tool-neutral engine: best-hit tables and device planning.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "engine/best_hits.hpp"
#include "engine/device_plan.hpp"

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
  shape.gpu_worker_needs_a_core = true;
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

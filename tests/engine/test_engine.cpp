// The tool-neutral engine: best-hit tables, device planning and the scheduler's shares.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <limits>
#include <mutex>
#include <optional>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "dist/job.hpp"
#include "engine/best_hits.hpp"
#include "engine/device_plan.hpp"
#include "engine/device_start.hpp"
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

TEST(DevicePlan, EachGpuStartsBesideTheOthers) {
  // Every call waits until all have begun: one after the other, the first would wait forever (here,
  // until its deadline, and the test fails).
  const std::vector<int> gpus{0, 1, 2, 3};
  std::atomic<int> begun{0};
  const auto results = on_each_at_once(gpus, [&](int gpu) {
    ++begun;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (begun < static_cast<int>(gpus.size()) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
    return begun == static_cast<int>(gpus.size()) ? 10 * gpu : -1;
  });
  EXPECT_EQ(results, (std::vector<int>{0, 10, 20, 30}));
  // The first failure in the items' order, once every call has ended.
  std::atomic<int> ended{0};
  try {
    on_each_at_once(gpus, [&](int gpu) {
      std::this_thread::sleep_for(std::chrono::milliseconds(gpu == 3 ? 50 : 0));
      ++ended;
      if (gpu >= 2) throw std::runtime_error("gpu " + std::to_string(gpu));
      return gpu;
    });
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "gpu 2");
  }
  EXPECT_EQ(ended, 4);
}

TEST(DevicePlan, CpuChoiceSelectsNoGpu) {
  const GpuSelection none = select_gpus(DeviceChoice::cpu, [] { return std::string(); });
  EXPECT_TRUE(none.gpus.empty());
  EXPECT_TRUE(none.notice.empty());
}

// auto leaves the GPUs out of a job its inputs show is small, holds them back from one whose size
// they do not show, and starts them for the rest; the other choices never ask.
TEST(DevicePlan, AutoLeavesTheGpusOutOfASmallJobAndHoldsThemForOneOfUnknownSize) {
  DeviceChoice choice = DeviceChoice::automatic;
  GpuStart start = plan_gpu_start(choice, [] { return std::string(); });
  EXPECT_EQ(start.why_cpu, "");
  EXPECT_FALSE(start.held);
  EXPECT_EQ(choice, DeviceChoice::automatic);
  start = plan_gpu_start(choice, [] { return std::optional<std::string>(); });
  EXPECT_EQ(start.why_cpu, "");
  EXPECT_TRUE(start.held);
  EXPECT_EQ(choice, DeviceChoice::automatic);
  start = plan_gpu_start(choice, [] { return std::string("10 letters"); });
  EXPECT_EQ(start.why_cpu.rfind("10 letters", 0), 0u) << start.why_cpu;
  EXPECT_FALSE(start.held);
  EXPECT_EQ(choice, DeviceChoice::cpu);
  for (DeviceChoice given : {DeviceChoice::gpu, DeviceChoice::all}) {
    choice = given;
    bool asked = false;
    start = plan_gpu_start(choice, [&] { asked = true; return std::optional<std::string>(); });
    EXPECT_EQ(start.why_cpu, "");
    EXPECT_FALSE(start.held);
    EXPECT_EQ(choice, given);
    EXPECT_FALSE(asked) << "only auto asks";
  }
  // The CUDA starts these plans began end before the test process does: main's _Exit does not
  // wait for them, but a plain exit must (on a GPU machine the process crashed in its exit).
  while (background_work_under_way()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
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

// The run's length by the groups' shares, and the fastest group's length alone, both at the rates
// the groups had in this run (cells per busy second of a worker). Fake workers sleep, and on a
// loaded machine (sanitizers, CI's 2 cores) they wake late: the scheduler then measures, rightly,
// lower rates than the nominal ones. Comparing its shares with the nominal rates failed now and
// then (a slowed CPU group rightly left a slow GPU a little more); comparing wall times did too.
// A fixed third per take (the fault this guards against) gives the slow device 667 tiles: 13 s
// against 1 s.
struct Lengths {
  double mixed = 0, fastest_alone = 0;
};
Lengths lengths_at_measured_rates(const std::vector<WorkerGroup>& groups, const std::vector<DeviceReport>& reports,
                                  std::size_t tiles) {
  Lengths lengths{0, std::numeric_limits<double>::infinity()};
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const double seconds = reports[g].busy_seconds / groups[g].workers;  // the group's share, its workers side by side
    lengths.mixed = std::max(lengths.mixed, seconds);
    lengths.fastest_alone = std::min(lengths.fastest_alone, seconds * static_cast<double>(tiles) / reports[g].cells);
  }
  return lengths;
}

}  // namespace

// A device far faster than the CPU workers together takes its share by measured rate and a slow
// one takes little: either mix finishes no later than its fastest device alone (a fixed third per
// take made a slow device hold the run up), every tile is scored once, and both devices take work.
TEST(Scheduler, SharesByMeasuredRateSoTheMixIsNeverSlowerThanItsFastestDevice) {
  const std::vector<WorkerGroup> cpu{{"cpu", 2, 1, "cpu"}}, gpu{{"gpu", 1, 1u << 20, "gpu"}};
  const std::vector<WorkerGroup> both{cpu[0], gpu[0]};
  const std::size_t tiles = 2000;
  std::vector<DeviceReport> reports;
  run_fake(both, {125, 5000}, tiles, reports);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].cells + reports[1].cells, static_cast<double>(tiles));
  EXPECT_GT(reports[0].cells, 0);
  EXPECT_GT(reports[1].cells / tiles, 0.85);
  const Lengths fast_gpu = lengths_at_measured_rates(both, reports, tiles);
  EXPECT_LT(fast_gpu.mixed, fast_gpu.fastest_alone * 1.25 + 0.02)
      << "mixed " << fast_gpu.mixed << " s, fast device alone " << fast_gpu.fastest_alone;

  run_fake(both, {1000, 50}, tiles, reports);
  EXPECT_EQ(reports[0].cells + reports[1].cells, static_cast<double>(tiles));
  EXPECT_GT(reports[1].cells, 0);
  const Lengths slow_gpu = lengths_at_measured_rates(both, reports, tiles);
  EXPECT_LT(slow_gpu.mixed, slow_gpu.fastest_alone * 1.25 + 0.02)
      << "mixed " << slow_gpu.mixed << " s, CPU alone " << slow_gpu.fastest_alone;
}

// CPU workers keep working while the GPU is busy with its take: with tiles that take a CPU worker
// far longer than the GPU, counting the GPU as free would stop them as soon as it took its share,
// and leave it their part after its take.
TEST(Scheduler, CpuWorkersCountTheGpuBusyUntilItsTakeEnds) {
  const std::vector<WorkerGroup> both{{"cpu", 2, 1, "cpu"}, {"gpu", 1, 1u << 20, "gpu"}};
  const std::size_t tiles = 2000;
  const double cpu_rate = 20, gpu_rate = 2000;  // per worker: 50 ms per CPU tile
  std::vector<DeviceReport> reports;
  run_fake(both, {cpu_rate, gpu_rate}, tiles, reports);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].cells + reports[1].cells, static_cast<double>(tiles));
  const double cpu_share = tiles * 2 * cpu_rate / (2 * cpu_rate + gpu_rate);  // about 39 tiles
  EXPECT_GT(reports[0].cells, cpu_share / 2) << "the CPU workers scored " << reports[0].cells << " tiles";
}

// A GPU that proves itself (mem's): its first probe is one tile, and a take costs it 100 ms
// whatever its size (one item's serial work holds it), far slower than two CPU workers. It takes
// one probe and leaves the rest to them: a share by rate would have held it for a take after
// that. A GPU whose takes cost 1 ms stays, though its probe's rate is below the CPU workers'
// (a launch's cost, not its speed), and takes most of the tiles.
TEST(Scheduler, AGpuThatProvesItselfLeavesWhenSlower) {
  WorkerGroup gpu{"gpu", 1, 1u << 20, "gpu"};
  gpu.proves_itself = true;
  const std::vector<WorkerGroup> both{{"cpu", 2, 1, "cpu"}, gpu};
  const auto run = [&](double gpu_take_seconds, std::size_t& gpu_takes) {
    gpu_takes = 0;
    TileQueue queue(800, 1, 1, 1);
    return run_workers(both, queue, nullptr, [&](std::size_t w, const WorkTile& tile) {
      const double tiles = static_cast<double>(tile.target_count);
      if (w == 2) ++gpu_takes;
      std::this_thread::sleep_for(std::chrono::duration<double>(w == 2 ? gpu_take_seconds : tiles / 2000));
      return tiles;
    });
  };
  std::size_t takes = 0;
  auto reports = run(0.1, takes);
  EXPECT_EQ(takes, static_cast<std::size_t>(kTellingTakesToLeave));  // each long enough to tell
  EXPECT_EQ(reports[1].telling_takes, kTellingTakesToLeave);
  EXPECT_EQ(reports[0].telling_takes, 0);
  EXPECT_LT(reports[1].cells, 5);
  EXPECT_DOUBLE_EQ(reports[0].cells + reports[1].cells, 800);
  reports = run(0.001, takes);
  EXPECT_GT(reports[1].cells, 400);
  EXPECT_DOUBLE_EQ(reports[0].cells + reports[1].cells, 800);
}

// A fast GPU (a launch's millisecond, then 10^6 tiles a second) whose third take stalls for 0.1 s,
// as its host thread may wait for a core, stays and takes most of the queue: one slow take does
// not tell it slower than the CPU workers (2 × 2,000 tiles a second).
TEST(Scheduler, AGpuWhoseTakeStallsOnceStays) {
  WorkerGroup gpu{"gpu", 1, 1u << 20, "gpu"};
  gpu.proves_itself = true;
  const std::vector<WorkerGroup> both{{"cpu", 2, 1, "cpu"}, gpu};
  TileQueue queue(4000, 1, 1, 1);
  std::size_t gpu_takes = 0;
  const auto reports = run_workers(both, queue, nullptr, [&](std::size_t w, const WorkTile& tile) {
    const double tiles = static_cast<double>(tile.target_count);
    const double seconds = w == 2 ? (++gpu_takes == 3 ? 0.1 : 0.001 + tiles / 1e6) : tiles / 2000;
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    return tiles;
  });
  EXPECT_GE(reports[1].telling_takes, 1);
  EXPECT_GT(reports[1].cells, 2000);
  EXPECT_DOUBLE_EQ(reports[0].cells + reports[1].cells, 4000);
}

// CPU workers whose cores' rate is known from before the run (an early stage's) leave a GPU that
// has shown itself far faster the rest at once; without it, each takes a tile (0.1 s) first. The
// CPU workers start just after the GPU's first take (as in a handover, on freed cores).
TEST(Scheduler, AKnownCpuRateLeavesTheRestToAFasterGpu) {
  const auto run = [](bool known) {
    WorkerGroup cpu{"cpu", 2, 1, "cpu"};
    if (known) cpu.known_work = 10, cpu.known_seconds = 1;  // a tile in 0.1 s
    const std::vector<WorkerGroup> both{cpu, {"gpu", 1, 1u << 20, "gpu"}};
    TileQueue queue(100, 1, 1, 1);
    std::atomic<bool> gpu_took{false};
    WorkerHooks hooks;
    hooks.before_first_take = [&](std::size_t w) {
      if (w == 2) return;
      while (!gpu_took) std::this_thread::yield();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the take recorded, the next begun
    };
    return run_workers(
        both, queue, nullptr,
        [&](std::size_t w, const WorkTile& tile) {
          std::this_thread::sleep_for(std::chrono::milliseconds(w == 2 ? 2 : 100));
          if (w == 2) gpu_took = true;
          return static_cast<double>(tile.target_count);
        },
        {}, hooks);
  };
  auto reports = run(true);
  EXPECT_DOUBLE_EQ(reports[0].cells, 0);
  EXPECT_DOUBLE_EQ(reports[1].cells, 100);
  reports = run(false);
  EXPECT_GE(reports[0].cells, 1);
  EXPECT_DOUBLE_EQ(reports[0].cells + reports[1].cells, 100);
}

// Four GPUs of one model, whose takes each cost a launch's overhead besides their work (so a small
// probe measures a low rate), three of them ready later than the first (their contexts start), on
// tiles whose cost grows fivefold from first to last (a database sorted by length): each GPU does
// about a quarter of the work, and the run takes little more than a quarter of one GPU's time. With
// shares by the rates of unequal takes, the GPU that probed furthest took 78-86 % of the work, and
// with shares counted in tiles, the last takes held most of it (on a lent 4-GPU H100 machine).
TEST(Scheduler, GpusOfOneModelShareEvenlyThoughOneStartsFirst) {
  constexpr std::size_t kGpus = 4, kTiles = 4000;
  constexpr double kRate = 60000, kOverhead = 0.004, kLateStart = 0.03;  // work/s, s per take, s
  std::vector<double> costs(kTiles);
  for (std::size_t t = 0; t < kTiles; ++t) costs[t] = 1 + 4.0 * static_cast<double>(t) / kTiles;
  const std::vector<WorkerGroup> gpus(kGpus, WorkerGroup{"gpu", 1, 1u << 20, "H100"});
  std::vector<double> modelled(kGpus, 0);  // each GPU's seconds: its start, then overhead + work / rate per take
  TileQueue queue(kTiles, 1, 1, 1);
  queue.set_block_costs(costs);
  const double total = queue.total_cost();
  const auto reports = run_workers(gpus, queue, nullptr, [&](std::size_t gpu, const WorkTile& tile) {
    const double work = queue.cost_of(tile);
    double seconds = kOverhead + work / kRate;
    if (modelled[gpu] == 0 && gpu > 0) seconds += kLateStart;
    modelled[gpu] += seconds;
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    return work;
  });
  double done = 0;
  for (std::size_t g = 0; g < kGpus; ++g) {
    done += reports[g].cells;
    EXPECT_GT(reports[g].cells / total, 0.15) << "gpu " << g << " did " << reports[g].cells << " of " << total;
  }
  EXPECT_DOUBLE_EQ(done, total);
  const double one_gpu = kOverhead + total / kRate, run = *std::max_element(modelled.begin(), modelled.end());
  EXPECT_LT(run, one_gpu / kGpus * 1.25 + kLateStart + 8 * kOverhead) << "4 GPUs " << run << " s, one " << one_gpu << " s";
}

// CPU workers that start while GPUs are set up leave when stop() turns true: the tiles they did not
// take stay in the queue for the devices that follow, every tile is done exactly once, and the
// two runs' reports add up device by device.
TEST(Scheduler, WorkersThatStopLeaveTheRestInTheQueue) {
  constexpr std::size_t kTiles = 500;
  TileQueue queue(kTiles, 1, 1, 1);
  std::vector<int> done(kTiles, 0);
  std::atomic<int> taken{0};
  std::mutex done_mutex;
  const auto score_locked = [&](std::size_t, const WorkTile& tile) {
    std::lock_guard lock(done_mutex);
    for (std::size_t t = tile.first_target; t < tile.first_target + tile.target_count; ++t) ++done[t];
    ++taken;
    return static_cast<double>(tile.target_count);
  };
  std::vector<DeviceReport> reports =
      run_workers({{"cpu", 3, 1, "cpu"}}, queue, nullptr, score_locked, [&] { return taken >= 100; });
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_GE(reports[0].cells, 100);
  EXPECT_LE(reports[0].cells, 102);  // each worker may have passed the check once before the 100th
  EXPECT_DOUBLE_EQ(queue.remaining_cost(), kTiles - reports[0].cells);

  add_reports(reports, run_workers({{"gpu0", 1, 64, "H100"}, {"cpu", 1, 1, "cpu"}}, queue, nullptr, score_locked));
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].name, "cpu");
  EXPECT_EQ(reports[1].name, "gpu0");
  EXPECT_DOUBLE_EQ(reports[0].cells + reports[1].cells, static_cast<double>(kTiles));
  EXPECT_EQ(std::count(done.begin(), done.end(), 1), static_cast<std::ptrdiff_t>(kTiles));
}

// A take by cost holds the most tiles within the budget (at least one), in the queue's order.
TEST(TileQueue, TakesByCostWithinTheBudget) {
  TileQueue queue(10, 1, 3, 1, TileOrder::target_blocks_outer);  // 10 blocks x 3 queries
  queue.set_block_costs({1, 1, 2, 2, 3, 3, 4, 4, 5, 5});
  EXPECT_DOUBLE_EQ(queue.total_cost(), 90);
  auto tile = queue.take_cost(6.5, 1000);  // blocks 0 and 1 (3 + 3), not a part of block 2
  ASSERT_TRUE(tile);
  EXPECT_EQ(tile->first_target, 0u);
  EXPECT_EQ(tile->target_count, 2u);
  EXPECT_EQ(tile->query_count, 3u);
  EXPECT_DOUBLE_EQ(queue.cost_of(*tile), 6);
  tile = queue.take_cost(12, 1000);  // blocks 2 and 3
  ASSERT_TRUE(tile);
  EXPECT_EQ(tile->first_target, 2u);
  EXPECT_EQ(tile->target_count, 2u);
  EXPECT_DOUBLE_EQ(queue.next_tile_cost(), 3);
  tile = queue.take_cost(0.5, 1000);  // below one tile's cost: one tile
  ASSERT_TRUE(tile);
  EXPECT_EQ(queue.tiles_in(*tile), 1u);
  tile = queue.take_cost(100, 1);  // at most max_tiles
  ASSERT_TRUE(tile);
  EXPECT_EQ(queue.tiles_in(*tile), 1u);
  EXPECT_DOUBLE_EQ(queue.remaining_cost(), 90 - 6 - 12 - 3 - 3);
  tile = queue.take_cost(4, 1000);  // the rest of block 4's row, then no more than the budget
  ASSERT_TRUE(tile);
  EXPECT_EQ(tile->first_target, 4u);
  EXPECT_EQ(tile->first_query, 2u);
  EXPECT_EQ(tile->query_count, 1u);

  TileQueue empty(10, 1, 0, 1, TileOrder::target_blocks_outer);  // a rank with no queries
  EXPECT_DOUBLE_EQ(empty.remaining_cost(), 0);
  EXPECT_FALSE(empty.take_cost(1, 1000));
}

namespace {

struct NamedKernel {
  std::string label;
  std::string_view name() const { return label; }
};

// Devices as engine::plan_devices would make them: one GPU worker taking up to 64 tiles.
Devices<NamedKernel> one_gpu() {
  Devices<NamedKernel> d;
  d.cpu = std::make_unique<NamedKernel>(NamedKernel{"cpu"});
  d.gpus.push_back(std::make_unique<NamedKernel>(NamedKernel{"gpu0"}));
  d.groups = {{"gpu0", 1, 64, "H100"}};
  d.kernel_of_worker = {d.gpus.front().get()};
  return d;
}

}  // namespace

// With --device auto, the CPU works with every thread while the devices are set up, and the
// devices take the rest in hand once they are ready: every tile is done once, workers are numbered
// across both stages (the early ones first), and the reports add up by device.
TEST(StartingDevices, TheCpuWorksUntilTheDevicesAreReady) {
  constexpr std::size_t kTiles = 500;
  std::promise<void> gate;
  StartingDevices<NamedKernel> devices(DeviceChoice::automatic, 6, std::make_unique<NamedKernel>(NamedKernel{"cpu"}),
                                       [opened = gate.get_future().share()](auto, const auto&) {
                                         opened.wait();
                                         return one_gpu();
                                       });
  EXPECT_FALSE(devices.ready());
  EXPECT_FALSE(devices.gpus_work());  // no waiting while the CPU may work
  TileQueue queue(kTiles, 1, 1, 1);
  std::vector<int> done(kTiles, 0);
  std::vector<std::size_t> sizes;
  std::atomic<int> early{0};
  int before_devices = 0;
  bool numbered_apart = true;
  std::mutex mutex;
  const auto score = [&](NamedKernel& kernel, std::size_t worker, const WorkTile& tile) {
    {
      std::lock_guard lock(mutex);
      for (std::size_t t = tile.first_target; t < tile.first_target + tile.target_count; ++t) ++done[t];
      numbered_apart = numbered_apart && (kernel.label == "cpu" ? worker < 5 : worker == 6);
      if (kernel.label == "cpu" && ++early == 100) gate.set_value();
    }
    // An early tile after the gate ends once the devices are ready, so the CPU leaves work for them.
    while (kernel.label == "cpu" && early >= 100 && !devices.ready()) std::this_thread::yield();
    return static_cast<double>(tile.target_count);
  };
  const auto reports = devices.run(
      queue, nullptr, score, [&](std::size_t workers) { sizes.push_back(workers); }, [&] { ++before_devices; });
  EXPECT_EQ(std::count(done.begin(), done.end(), 1), static_cast<std::ptrdiff_t>(kTiles));
  EXPECT_TRUE(numbered_apart);
  // 6 threads: 5 early workers, a core left to the set-up; numbers kept for 6 (a held set-up's).
  EXPECT_EQ(sizes, (std::vector<std::size_t>{6, 7}));
  EXPECT_EQ(before_devices, 1);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].name, "cpu");
  EXPECT_EQ(reports[1].name, "gpu0");
  EXPECT_GE(reports[0].cells, 100);
  EXPECT_LE(reports[0].cells, 104);  // each early worker may have taken one more
  EXPECT_DOUBLE_EQ(reports[0].cells + reports[1].cells, static_cast<double>(kTiles));
  EXPECT_TRUE(devices.ready());
  EXPECT_TRUE(devices.gpus_work());

  // The next queue goes to the devices alone, with the same numbers.
  TileQueue next(kTiles, 1, 1, 1);
  std::fill(done.begin(), done.end(), 0);
  const auto later = devices.run(next, nullptr, score, [&](std::size_t workers) { sizes.push_back(workers); });
  EXPECT_EQ(std::count(done.begin(), done.end(), 1), static_cast<std::ptrdiff_t>(kTiles));
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].name, "gpu0");
  EXPECT_EQ(sizes.back(), 7u);
  EXPECT_TRUE(numbered_apart);
}

// A tool's trial of its devices: once set up, a queue goes to the devices planned (here 3 CPU
// workers beside a GPU), or to one kind alone. The GPUs alone keep their workers' numbers; the CPU
// alone works on every thread, numbered as the early workers. Every tile is done once.
TEST(StartingDevices, OneKindAloneTakesEveryTile) {
  StartingDevices<NamedKernel> devices(DeviceChoice::automatic, 4, std::make_unique<NamedKernel>(NamedKernel{"cpu"}),
                                       [](std::shared_ptr<NamedKernel> cpu, const auto&) {
                                         Devices<NamedKernel> d;
                                         d.cpu = cpu;
                                         d.gpus.push_back(std::make_unique<NamedKernel>(NamedKernel{"gpu0"}));
                                         d.groups = {{"cpu", 3, 1, "cpu"}, {"gpu0", 1, 64, "H100"}};
                                         d.kernel_of_worker = {cpu.get(), cpu.get(), cpu.get(), d.gpus.front().get()};
                                         return d;
                                       });
  while (!devices.ready()) std::this_thread::yield();
  std::mutex mutex;
  std::map<std::string, std::set<std::size_t>> workers;  // by kernel
  std::vector<int> done;
  const auto score = [&](NamedKernel& kernel, std::size_t worker, const WorkTile& tile) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // every worker takes a tile
    std::lock_guard lock(mutex);
    workers[kernel.label].insert(worker);
    for (std::size_t t = tile.first_target; t < tile.first_target + tile.target_count; ++t) ++done[t];
    return static_cast<double>(tile.target_count);
  };
  const auto run = [&](DeviceUse use) {
    workers.clear();
    done.assign(300, 0);
    TileQueue queue(300, 1, 1, 1);
    const auto reports = devices.run(queue, nullptr, score, [](std::size_t) {}, {}, use);
    EXPECT_EQ(std::count(done.begin(), done.end(), 1), 300);
    std::vector<std::string> names;
    for (const auto& r : reports) names.push_back(r.name);
    return names;
  };
  EXPECT_EQ(run(DeviceUse::planned), (std::vector<std::string>{"cpu", "gpu0"}));
  EXPECT_EQ(workers["cpu"], (std::set<std::size_t>{4, 5, 6}));
  EXPECT_EQ(workers["gpu0"], (std::set<std::size_t>{7}));
  EXPECT_EQ(run(DeviceUse::gpus_alone), (std::vector<std::string>{"gpu0"}));
  EXPECT_EQ(workers.size(), 1u);
  EXPECT_EQ(workers["gpu0"], (std::set<std::size_t>{7}));
  EXPECT_EQ(run(DeviceUse::cpu_alone), (std::vector<std::string>{"cpu"}));
  EXPECT_EQ(workers.size(), 1u);
  EXPECT_EQ(workers["cpu"], (std::set<std::size_t>{0, 1, 2, 3}));
}

// A run with no per-worker state to grow hands its cores over: once the devices are ready, the GPU
// takes tiles while the early workers still finish theirs, the devices' CPU worker i starts only
// once early worker i has left (never more CPU tiles at once than early workers), and every tile
// is done once. A CPU tile takes 1 ms; an early tile after the set-up's start waits for the GPU's
// first take. Were the devices to wait for the early workers, that take would come only after
// the tiles in hand (each waiting 2 s), and the test fails.
TEST(StartingDevices, TheDevicesStartWhileTheEarlyWorkersFinishTheirTiles) {
  constexpr std::size_t kTiles = 400;
  std::promise<void> gate;
  StartingDevices<NamedKernel> devices(DeviceChoice::automatic, 6, std::make_unique<NamedKernel>(NamedKernel{"cpu"}),
                                       [opened = gate.get_future().share()](std::shared_ptr<NamedKernel> cpu,
                                                                            const auto&) {
                                         opened.wait();
                                         Devices<NamedKernel> d;
                                         d.cpu = cpu;
                                         d.gpus.push_back(std::make_unique<NamedKernel>(NamedKernel{"gpu0"}));
                                         d.groups = {{"cpu", 5, 1, "cpu"}, {"gpu0", 1, 64, "H100"}};
                                         d.kernel_of_worker = {cpu.get(), cpu.get(), cpu.get(), cpu.get(), cpu.get(),
                                                               d.gpus.front().get()};
                                         return d;
                                       });
  std::mutex mutex;
  std::vector<int> done(kTiles, 0);
  int early_tiles = 0, cpu_tiles_now = 0, most_cpu_tiles = 0;
  std::atomic<bool> gpu_took{false}, overlapped{false};
  const auto score = [&](NamedKernel& kernel, std::size_t worker, const WorkTile& tile) {
    const bool gpu = kernel.label == "gpu0", early = worker < 6;
    bool waits = false;
    {
      std::lock_guard lock(mutex);
      if (!gpu) most_cpu_tiles = std::max(most_cpu_tiles, ++cpu_tiles_now);
      if (early && ++early_tiles == 20) gate.set_value();
      waits = early && early_tiles >= 20;
    }
    if (gpu) gpu_took = true;
    else std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (waits && !gpu_took && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (waits && gpu_took) overlapped = true;
    std::lock_guard lock(mutex);
    if (!gpu) --cpu_tiles_now;
    for (std::size_t t = tile.first_target; t < tile.first_target + tile.target_count; ++t) ++done[t];
    return static_cast<double>(tile.target_count);
  };
  TileQueue queue(kTiles, 1, 1, 1);
  const auto reports = devices.run(queue, nullptr, score, {});
  EXPECT_EQ(std::count(done.begin(), done.end(), 1), static_cast<std::ptrdiff_t>(kTiles));
  EXPECT_TRUE(overlapped);
  EXPECT_LE(most_cpu_tiles, 5);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].name, "cpu");
  EXPECT_EQ(reports[1].name, "gpu0");
  EXPECT_GT(reports[1].cells, 0);
  EXPECT_DOUBLE_EQ(reports[0].cells + reports[1].cells, static_cast<double>(kTiles));
}

// The CPU alone while the devices are set up (mem's batches before its trial): it takes every
// tile without waiting for the set-up, and leaves a core to it as the early workers do.
TEST(StartingDevices, TheCpuAloneLeavesACoreToASetUpUnderWay) {
  std::promise<void> gate;
  StartingDevices<NamedKernel> devices(DeviceChoice::automatic, 6, std::make_unique<NamedKernel>(NamedKernel{"cpu"}),
                                       [opened = gate.get_future().share()](auto, const auto&) {
                                         opened.wait();
                                         return one_gpu();
                                       });
  std::mutex mutex;
  std::set<std::size_t> workers;
  std::vector<int> done;
  const auto score = [&](NamedKernel& kernel, std::size_t worker, const WorkTile& tile) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // every worker takes a tile
    std::lock_guard lock(mutex);
    EXPECT_EQ(kernel.label, "cpu");
    workers.insert(worker);
    for (std::size_t t = tile.first_target; t < tile.first_target + tile.target_count; ++t) ++done[t];
    return static_cast<double>(tile.target_count);
  };
  const auto run = [&] {
    workers.clear();
    done.assign(200, 0);
    TileQueue queue(200, 1, 1, 1);
    const auto reports = devices.run(queue, nullptr, score, [](std::size_t) {}, {}, DeviceUse::cpu_alone);
    EXPECT_EQ(std::count(done.begin(), done.end(), 1), 200);
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].name, "cpu");
  };
  run();
  EXPECT_FALSE(devices.ready());
  EXPECT_EQ(workers, (std::set<std::size_t>{0, 1, 2, 3, 4}));
  gate.set_value();
  while (!devices.ready()) std::this_thread::yield();
  run();
  EXPECT_EQ(workers, (std::set<std::size_t>{0, 1, 2, 3, 4, 5}));
}

// A held set-up (auto on a job of unknown size) plans nothing until the work counted passes its
// bound: the CPU works with every thread meanwhile, numbered as early workers. Once started, the
// devices take over.
TEST(StartingDevices, AHeldSetUpWaitsForItsStartWithEveryThreadOnTheCpu) {
  std::atomic<bool> planned{false};
  StartingDevices<NamedKernel> devices(
      DeviceChoice::automatic, 6, std::make_unique<NamedKernel>(NamedKernel{"cpu"}),
      [&](auto, const auto&) {
        planned = true;
        return one_gpu();
      },
      1000.0);
  std::vector<std::size_t> sizes;
  std::mutex mutex;
  std::set<std::size_t> cpu_workers;
  const auto score = [&](NamedKernel& kernel, std::size_t worker, const WorkTile& tile) {
    // Slow enough that every worker takes a tile.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard lock(mutex);
    if (kernel.label == "cpu") cpu_workers.insert(worker);
    return static_cast<double>(tile.target_count);
  };
  const auto grow = [&](std::size_t workers) { sizes.push_back(workers); };
  for (int round = 0; round < 3; ++round) {
    TileQueue queue(200, 1, 1, 1);
    const auto reports = devices.run(queue, nullptr, score, grow);
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].name, "cpu");
    EXPECT_DOUBLE_EQ(reports[0].cells, 200);
  }
  EXPECT_FALSE(planned);
  EXPECT_TRUE(devices.held());
  EXPECT_FALSE(devices.ready());
  EXPECT_EQ(cpu_workers, (std::set<std::size_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(sizes, (std::vector<std::size_t>(3, 6)));

  devices.count_work(1000);  // at the bound: held still
  EXPECT_TRUE(devices.held());
  devices.count_work(1);
  EXPECT_FALSE(devices.held());
  while (!devices.ready()) std::this_thread::yield();  // the plan runs once started
  EXPECT_TRUE(planned);
  TileQueue queue(200, 1, 1, 1);
  const auto reports = devices.run(queue, nullptr, score, grow);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].name, "gpu0");
  EXPECT_EQ(sizes.back(), 7u);
}

// A run that ends held never plans (CUDA never starts) and does not wait; the background work ends.
TEST(StartingDevices, ARunThatEndsHeldNeverPlans) {
  auto planned = std::make_shared<std::atomic<bool>>(false);
  {
    StartingDevices<NamedKernel> devices(
        DeviceChoice::automatic, 2, std::make_unique<NamedKernel>(NamedKernel{"cpu"}),
        [planned](auto, const auto&) {
          *planned = true;
          return one_gpu();
        },
        1000.0);
    TileQueue queue(20, 1, 1, 1);
    devices.run(
        queue, nullptr, [](NamedKernel&, std::size_t, const WorkTile& tile) { return static_cast<double>(tile.target_count); },
        [](std::size_t) {});
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (background_work_under_way() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_FALSE(background_work_under_way());
  EXPECT_FALSE(*planned);
}

// --device gpu never scores on the CPU: it waits for its devices; and an error of the set-up comes
// out of the run that needs the devices.
TEST(StartingDevices, GpuOnlyWaitsAndSetUpErrorsReachTheRun) {
  std::atomic<bool> planned{false};
  StartingDevices<NamedKernel> gpu_only(DeviceChoice::gpu, 4, std::make_unique<NamedKernel>(NamedKernel{"cpu"}),
                                        [&](auto, const auto&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    planned = true;
    return one_gpu();
  });
  TileQueue queue(100, 1, 1, 1);
  bool cpu_scored = false;
  const auto reports = gpu_only.run(
      queue, nullptr,
      [&](NamedKernel& kernel, std::size_t, const WorkTile& tile) {
        cpu_scored = cpu_scored || kernel.label == "cpu" || !planned;
        return static_cast<double>(tile.target_count);
      },
      [](std::size_t) {});
  EXPECT_FALSE(cpu_scored);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_DOUBLE_EQ(reports[0].cells, 100);

  StartingDevices<NamedKernel> failing(DeviceChoice::gpu, 4, std::make_unique<NamedKernel>(NamedKernel{"cpu"}),
                                       [](auto, const auto&) -> Devices<NamedKernel> { throw std::runtime_error("no GPU today"); });
  TileQueue more(100, 1, 1, 1);
  EXPECT_THROW(failing.run(
                   more, nullptr, [](NamedKernel&, std::size_t, const WorkTile&) { return 1.0; },
                   [](std::size_t) {}),
               std::runtime_error);
}

// A run that ends while its plan runs tells the plan, which makes no further GPU kernel, and waits
// for it (the plan uses the tool's data).
TEST(StartingDevices, ARunThatEndsFirstCancelsThePlan) {
  std::atomic<bool> planning{false}, saw_cancel{false};
  {
    StartingDevices<NamedKernel> devices(DeviceChoice::automatic, 2, std::make_unique<NamedKernel>(NamedKernel{"cpu"}),
                                         [&](auto, const std::function<bool()>& cancelled) {
                                           planning = true;
                                           while (!cancelled()) std::this_thread::yield();
                                           std::this_thread::sleep_for(std::chrono::milliseconds(20));
                                           saw_cancel = true;
                                           return one_gpu();
                                         });
    TileQueue queue(50, 1, 1, 1);
    const auto reports = devices.run(
        queue, nullptr,
        [&](NamedKernel&, std::size_t, const WorkTile& tile) {
          while (!planning) std::this_thread::yield();
          return static_cast<double>(tile.target_count);
        },
        [](std::size_t) {});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].name, "cpu");
    EXPECT_FALSE(devices.ready());
  }
  EXPECT_TRUE(saw_cancel);  // the run waited for its plan to end
}

// A run that ends before its plan begins does not wait for the set-up, and the plan never runs
// then (the tool's data may be gone); the background work ends by itself.
TEST(StartingDevices, APlanNeverBeginsAfterItsRunHasEnded) {
  std::atomic<int> late_plans{0};
  for (int round = 0; round < 50; ++round) {
    auto ended = std::make_shared<std::atomic<bool>>(false);
    {
      StartingDevices<NamedKernel> devices(DeviceChoice::cpu, 2, std::make_unique<NamedKernel>(NamedKernel{"cpu"}),
                                           [ended, &late_plans](auto, const auto&) {
                                             if (*ended) ++late_plans;
                                             return one_gpu();
                                           });
    }
    *ended = true;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (background_work_under_way() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_FALSE(background_work_under_way());
  EXPECT_EQ(late_plans, 0);
}

// Tiles taken from the end (early CPU workers) and from the front, in rectangles or one at a time,
// cover the grid exactly once in either order, and the remaining cost counts what is left between.
TEST(TileQueue, TakesFromBothEndsCoverTheGridOnce) {
  std::mt19937 rng(11);
  for (const TileOrder order : {TileOrder::query_chunks_outer, TileOrder::target_blocks_outer}) {
    for (int round = 0; round < 50; ++round) {
      const std::size_t targets = 1 + rng() % 40, width = 1 + rng() % 5, queries = 1 + rng() % 30,
                        chunk = 1 + rng() % 4;
      TileQueue queue(targets, width, queries, chunk, order);
      std::vector<double> costs((targets + width - 1) / width);
      for (double& c : costs) c = 1 + rng() % 9;
      queue.set_block_costs(costs);
      std::vector<int> covered(targets * queries, 0);
      double taken_cost = 0;
      for (;;) {
        const auto tile = rng() % 3 == 0 ? queue.take_last()
                          : rng() % 2    ? queue.take(1 + rng() % 12)
                                         : queue.take_cost(static_cast<double>(rng() % 40), 1 + rng() % 12);
        if (!tile) break;
        taken_cost += queue.cost_of(*tile);
        for (std::size_t q = tile->first_query; q < tile->first_query + tile->query_count; ++q)
          for (std::size_t t = tile->first_target; t < tile->first_target + tile->target_count; ++t)
            ++covered[q * targets + t];
        EXPECT_NEAR(queue.remaining_cost(), queue.total_cost() - taken_cost, 1e-9);
      }
      EXPECT_EQ(std::count(covered.begin(), covered.end(), 1), static_cast<std::ptrdiff_t>(covered.size()));
      EXPECT_FALSE(queue.take_last().has_value());
      EXPECT_DOUBLE_EQ(queue.remaining_cost(), 0);
    }
  }
}

// A stream of a job's input is cut into about four units a rank, within the bounds given (one
// process here: four units).
TEST(Job, StreamUnitsAreAboutFourARankWithinBounds) {
  EXPECT_EQ(hyalign::dist::stream_unit_size(std::uint64_t{20} << 20, 1 << 20, 16 << 20), std::size_t{5} << 20);
  EXPECT_EQ(hyalign::dist::stream_unit_size(std::uint64_t{1} << 40, 1 << 20, 16 << 20), std::size_t{16} << 20);
  EXPECT_EQ(hyalign::dist::stream_unit_size(1000, 1 << 20, 16 << 20), std::size_t{1} << 20);
  EXPECT_EQ(hyalign::dist::stream_unit_size(0, 1 << 20, 16 << 20), std::size_t{1} << 20);
}

// Query units cover every item once, in order, each within its size bound and made of whole runs
// of `together`; dealt to the ranks in turn, they give each rank about the same work. Units of
// equal counts gave one of two ranks 4.3 % more residues (search on two GPUs).
TEST(Job, QueryUnitsOfEqualWeightGiveRanksEqualWork) {
  std::mt19937 random(7);
  int balanced = 0;
  for (int round = 0; round < 200; ++round) {
    const std::size_t items = std::uniform_int_distribution<std::size_t>(0, 3000)(random);
    const std::size_t together = std::uniform_int_distribution<std::size_t>(1, 2)(random);
    const std::size_t ranks = std::uniform_int_distribution<std::size_t>(1, 4)(random);
    const std::size_t most = std::uniform_int_distribution<std::size_t>(1, 1000)(random);
    std::vector<std::size_t> weights(items), offsets{0};
    for (std::size_t& w : weights) {
      w = std::uniform_int_distribution<std::size_t>(0, 5000)(random);
      offsets.push_back(offsets.back() + w);
    }
    const auto bounds = hyalign::dist::equal_weight_bounds(offsets, 4 * ranks, most, together);
    ASSERT_EQ(bounds.front(), 0u);
    ASSERT_EQ(bounds.back(), items);
    const std::size_t most_items = (most + together - 1) / together * together;
    for (std::size_t u = 0; u + 1 < bounds.size(); ++u) {
      ASSERT_LT(bounds[u], bounds[u + 1]) << "an empty unit";
      ASSERT_LE(bounds[u + 1] - bounds[u], most_items);
      if (bounds[u + 1] < items) {
        ASSERT_EQ(bounds[u + 1] % together, 0u) << "a run of `together` cut";
      }
    }
    // Where only the weights cut (four units a rank), each cut is within a run of its even place,
    // so each rank's share is within two runs a unit of an even share.
    if (bounds.size() - 1 != 4 * ranks) continue;
    ++balanced;
    std::vector<double> share(ranks);
    double total = 0, heaviest = 0;
    for (std::size_t u = 0; u + 1 < bounds.size(); ++u)
      for (std::size_t i = bounds[u]; i < bounds[u + 1]; i += together) {
        double run = 0;
        for (std::size_t j = i; j < std::min(items, i + together); ++j) run += static_cast<double>(weights[j]) + 1;
        share[u % ranks] += run;
        total += run;
        heaviest = std::max(heaviest, run);
      }
    for (double s : share) EXPECT_NEAR(s, total / static_cast<double>(ranks), 4 * 2 * heaviest) << items << " items";
  }
  EXPECT_GT(balanced, 100);
  // Queries growing longer, two ranks: units of 100 queries each would give rank 1 29 % more
  // residues than rank 0; units of equal weight, no more than two queries' worth.
  std::vector<std::size_t> offsets{0};
  for (std::size_t i = 0; i < 800; ++i) offsets.push_back(offsets.back() + i);
  const auto bounds = hyalign::dist::equal_weight_bounds(offsets, 8, 16384, 1);
  ASSERT_EQ(bounds.size(), 9u);
  double share[2] = {0, 0};
  for (std::size_t u = 0; u < 8; ++u)
    share[u % 2] += static_cast<double>(offsets[bounds[u + 1]] - offsets[bounds[u]] + bounds[u + 1] - bounds[u]);
  EXPECT_LE(std::abs(share[0] - share[1]), 2.0 * 800);
}

// `-t 0` takes the hardware threads the process may run on (a launcher's binding, taskset), not
// every one of the node's.
TEST(Job, ThreadsAreThoseTheProcessMayRunOn) {
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  if (CPU_COUNT(&before) < 2) GTEST_SKIP() << "this process may run on one hardware thread only";
  EXPECT_EQ(hyalign::dist::hardware_threads(), static_cast<unsigned>(std::min<int>(
                                          CPU_COUNT(&before), static_cast<int>(std::thread::hardware_concurrency()))));
  int first = 0;
  while (!CPU_ISSET(first, &before)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  const unsigned bound = hyalign::dist::hardware_threads();
  ASSERT_EQ(sched_setaffinity(0, sizeof before, &before), 0);
  EXPECT_EQ(bound, 1u);
}

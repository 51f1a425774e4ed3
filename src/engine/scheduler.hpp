#pragma once
// The hybrid scheduler: every device worker (CPU SIMD threads, one thread per GPU) pulls tiles from
// one queue until it is empty. CPU workers take one tile at a time, GPU workers their device's share
// of what is left by measured rates (at most max_tiles_per_take; GPUs of one model alike), and a
// CPU worker stops when the others would finish the rest before its next tile: all devices finish
// together, and a mix is never slower than its fastest member alone.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/log.hpp"
#include "engine/work_queue.hpp"

namespace hyalign::engine {

// Workers that share one device.
struct WorkerGroup {
  std::string name;
  unsigned workers = 1;                // threads feeding this device
  std::size_t max_tiles_per_take = 1;  // 1 for CPU workers; many for a GPU
  // Devices of one model share one measured rate: several GPUs' takes differ in size and start
  // time, and a rate measured on a small or first take (launch overhead, a context starting) would
  // give one GPU most of the work and the others little. Empty: a model of its own.
  std::string model;
  // CPU workers that take the queue's last tiles (the cheapest, in a database sorted longest first):
  // those that start while GPUs are set up, and must hand over soon.
  bool takes_from_end = false;
  // A GPU that proves itself before it shares (mem's, whose GPU can be slower than the cores on
  // some shapes). Its probes start at one tile and double until one lasts long enough to tell its
  // speed; then it takes its share by measured speed, and leaves the CPU workers the rest once
  // kTellingTakesToLeave such takes have shown even its fastest take slower than them together.
  bool proves_itself = false;
  // Work and busy seconds these workers' cores were measured at before the run (CPU workers that
  // go on from an earlier stage): their rate from the first take on, so that none of them takes a
  // long tile that a GPU would finish sooner before one of their own tiles has ended.
  double known_work = 0, known_seconds = 0;
  bool is_gpu() const { return max_tiles_per_take > 1; }
};

// What a worker does around its takes, by its number: wait for its core before the first (a
// worker that goes on from one that has yet to finish), and let it go after the last.
struct WorkerHooks {
  std::function<void(std::size_t worker)> before_first_take, after_last_take;
};

// A take at least this long tells a GPU's speed: a shorter one's time is mostly its launch. A GPU
// that proves itself is judged slower only on this many such takes.
constexpr double kTellingTakeSeconds = 0.05;
constexpr int kTellingTakesToLeave = 2;

struct DeviceReport {
  std::string name;
  double cells = 0;         // cells scored
  double busy_seconds = 0;  // summed over the device's workers
  double cpu_seconds = 0;   // CPU time used by the device's worker threads
  // Seconds from the start of scoring to the device's first take and to its last worker's end: a
  // device that starts late (a GPU's set-up) or ends late (a long last take) shows here. -1: no take.
  double first_take_at = -1, finished_at = 0;
  // Takes long enough to tell the device's speed (kTellingTakeSeconds), and the cells a second of
  // its fastest take: a take's time can be stretched (a launch, a stalled host thread), never cut.
  int telling_takes = 0;
  double best_take_rate = 0;
  void add(const DeviceReport& other);
};

// Hands out the queue's tiles to the workers of every group until it is empty. Workers are
// numbered group by group from 0; score(worker, tile) does the work and returns the cells it
// scored. With `progress`, advances it by the tiles of each take. With `stop`, a worker leaves as
// soon as stop() is true before a take, and the tiles not taken stay in the queue (CPU workers that
// start a run while its GPUs are still being set up leave the rest to them). `hooks` run on each
// worker's thread; after_last_take also when its work throws.
std::vector<DeviceReport> run_workers(const std::vector<WorkerGroup>& groups, TileQueue& queue, Progress* progress,
                                      const std::function<double(std::size_t worker, const WorkTile&)>& score,
                                      const std::function<bool()>& stop = {}, const WorkerHooks& hooks = {});
// Adds `more` to `reports`, device by device by name; a device new to `reports` is appended.
void add_reports(std::vector<DeviceReport>& reports, const std::vector<DeviceReport>& more);

// Logs one line naming the devices and their worker threads.
void log_worker_groups(const std::vector<WorkerGroup>& groups);
// Logs the share of the cells, busy time and CPU time of each device.
void log_device_reports(const std::vector<DeviceReport>& reports);

}  // namespace hyalign::engine

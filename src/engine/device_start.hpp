#pragma once
// Devices that start while the work does. Setting a run's GPUs up (CUDA's start, a context and a
// kernel on each GPU, an index copied to each) takes 0.3 s on one GPU and 1.4 s on four
// (docs/performance.md), which is longer than a small job takes on the CPU. So the devices are
// planned in the background, and with --device auto or all the CPU kernel works until they are
// ready: a small job never waits for GPUs, and a large one's devices take the rest of the work in
// hand once they are up. --device gpu waits for its GPUs (the CPU never scores
// then), and --device cpu has nothing to wait for. With auto, a job whose size its inputs do not
// show holds its GPUs back, the CPU working with every thread, until it shows it is large enough.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "engine/background_set_up.hpp"
#include "engine/device_plan.hpp"
#include "engine/devices.hpp"
#include "engine/scheduler.hpp"

namespace hyalign::engine {

// Which devices work through a queue once they are set up: those planned, or one kind alone (a
// tool that tries its devices on some of the work and leaves the rest to the faster).
enum class DeviceUse { planned, cpu_alone, gpus_alone };

// Cores passed on from the early workers to the devices' CPU workers (StartingDevices::run's
// handover): the devices' worker i takes core i once early worker i has let it go.
class CoreHandover {
 public:
  explicit CoreHandover(std::size_t cores) : free_(cores, false) {}
  void free(std::size_t core) {
    {
      std::lock_guard lock(mutex_);
      free_[core] = true;
    }
    freed_.notify_all();
  }
  void free_all() {
    {
      std::lock_guard lock(mutex_);
      std::fill(free_.begin(), free_.end(), true);
    }
    freed_.notify_all();
  }
  // Waits for core `core`; one no early worker had (a core left to the set-up) is free at once.
  void take(std::size_t core) {
    if (core >= free_.size()) return;
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [&] { return free_[core]; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<bool> free_;
};

template <class Kernel>
class StartingDevices {
 public:
  // The set-up: engine::plan_devices with `cpu` (the run's CPU kernel), the tool's GPU kernels and
  // `cancelled`.
  using Plan = std::function<Devices<Kernel>(std::shared_ptr<Kernel> cpu, const std::function<bool()>& cancelled)>;

  // `cpu` is the CPU kernel of the early workers (workers_while_devices_start) and of the devices.
  // `hold_until`, for a held set-up (engine::plan_gpu_start): the work, in the tool's unit, past
  // which the set-up begins (count_work).
  StartingDevices(DeviceChoice choice, unsigned threads, std::shared_ptr<Kernel> cpu, Plan plan,
                  std::optional<double> hold_until = std::nullopt)
      : cpu_(std::move(cpu)), threads_(std::max(1u, threads)),
        early_(choice == DeviceChoice::automatic || choice == DeviceChoice::all), hold_until_(hold_until),
        // The set-up holds the CPU kernel only once the plan has begun, which the run waits for.
        set_up_(
            choice,
            [plan = std::move(plan), cpu = std::weak_ptr<Kernel>(cpu_)](const auto& cancelled) {
              return plan(cpu.lock(), cancelled);
            },
            hold_until.has_value()) {}

  // Counts work the job has read (cells, letters: the unit of `hold_until`); a held set-up begins
  // once the work counted passes `hold_until`: the job has shown it is large enough for the GPUs.
  void count_work(double work) {
    work_ += work;
    if (hold_until_ && work_ > *hold_until_) set_up_.start();
  }
  double work_counted() const { return work_; }
  // The work still to count before a held set-up begins; none once it has begun or where it is not
  // held. A tool whose batch sizes are its own cuts its first batch there, so that a large job's
  // GPUs start as soon as that batch is read rather than after a whole batch of the usual size.
  std::optional<double> work_before_start() const {
    if (!hold_until_ || !held()) return std::nullopt;
    return std::max(0.0, *hold_until_ - work_);
  }
  // Whether the set-up is held still.
  bool held() const { return !set_up_.started(); }
  // The CPU kernel of the early workers (tiles are as wide as its vectors).
  Kernel& cpu() { return *cpu_; }
  // Waits for the devices to be set up; rethrows what the set-up threw.
  Devices<Kernel>& devices() { return set_up_.get(); }
  // Whether the devices are set up (devices() would not wait).
  bool ready() const { return set_up_.ready(); }
  // Whether GPUs do the work from now on: false while the CPU works as they start.
  bool gpus_work() { return (ready() || !early_) && !devices().gpus.empty(); }
  // Whether the CPU works while the devices start (not while they are held, nor on the CPU alone).
  bool starting() const { return early_ && set_up_.started() && !ready(); }

  using Score = std::function<double(Kernel&, std::size_t worker, const WorkTile&)>;

  // Works through `queue`: on the CPU kernel's early workers while the devices start or are held
  // (auto and all), then on the devices `use` names. Workers are numbered across both stages, the
  // early workers first, and keep their numbers from one call to the next (the CPU alone takes the
  // early workers' numbers); `grow(workers)` is called on the calling thread, while no worker runs,
  // with the number of workers so far, to size per-worker state. `before_devices` runs before the
  // devices take their first tile of this queue. Returns the reports of both stages, added up by
  // device name.
  //
  // A tool with no per-worker state to grow passes no `grow`, and the stages then overlap
  // (handover): the devices start as soon as they are ready, while each early worker finishes the
  // tile in hand. Without it they wait for the last of those tiles, which is as long as a tile
  // takes a core: up to seconds for mem's units.
  std::vector<DeviceReport> run(TileQueue& queue, Progress* progress, const Score& score,
                                const std::function<void(std::size_t workers)>& grow,
                                const std::function<void()>& before_devices = {}, DeviceUse use = DeviceUse::planned) {
    std::vector<DeviceReport> reports;
    if (early_ && !ready() && use != DeviceUse::cpu_alone) {
      if (!grow) return handover(queue, progress, score, before_devices, use);
      grow(early_workers());
      reports = run_workers(
          early_groups(), queue, progress, [&](std::size_t w, const WorkTile& tile) { return score(*cpu_, w, tile); },
          [&] { return ready(); });
    }
    if (queue.remaining_cost() <= 0) return reports;
    if (use == DeviceUse::cpu_alone) {
      if (grow) grow(std::max<std::size_t>(early_workers(), threads_));
      // While the set-up runs, a core is left to it as for the early workers.
      const unsigned workers = starting() ? workers_while_devices_start(threads_) : threads_;
      add_reports(reports, run_workers(cpu_groups(workers, false), queue, progress,
                                       [&](std::size_t w, const WorkTile& tile) { return score(*cpu_, w, tile); }));
      return reports;
    }
    Devices<Kernel>& d = devices();
    if (grow) grow(early_workers() + d.workers());
    if (before_devices) before_devices();
    add_reports(reports, run_devices(d, queue, progress, score, use));
    return reports;
  }

 private:
  // Work and busy seconds of the early workers' tiles.
  struct Measured {
    double work = 0, seconds = 0;
  };

  // The devices' workers, numbered as in d.groups; with gpus_alone, the CPU's are left out. In a
  // handover, `cpu` is what the early workers measured, and the CPU's worker i waits for `cores`'
  // core i (the CPU's group leads, plan_worker_groups).
  std::vector<DeviceReport> run_devices(Devices<Kernel>& d, TileQueue& queue, Progress* progress, const Score& score,
                                        DeviceUse use, const Measured& cpu = {}, CoreHandover* cores = nullptr) {
    std::vector<WorkerGroup> groups;
    std::size_t first = 0, cpu_workers = 0;
    for (const WorkerGroup& g : d.groups) {
      if (use != DeviceUse::gpus_alone || g.is_gpu()) groups.push_back(g);
      else if (groups.empty()) first += g.workers;
    }
    for (WorkerGroup& g : groups) {
      if (g.is_gpu()) continue;
      g.known_work = cpu.work, g.known_seconds = cpu.seconds;
      cpu_workers += g.workers;
    }
    WorkerHooks hooks;
    if (cores)
      hooks.before_first_take = [&](std::size_t w) {
        if (w < cpu_workers) cores->take(w);
      };
    return run_workers(
        groups, queue, progress,
        [&](std::size_t w, const WorkTile& tile) {
          return score(*d.kernel_of_worker[first + w], early_workers() + first + w, tile);
        },
        {}, hooks);
  }
  // The most early workers there can be: their numbers come first.
  std::size_t early_workers() const { return early_ ? threads_ : 0; }

  // The early workers, and the devices as soon as they are ready: early worker i leaves after its
  // tile in hand, and the devices' CPU worker i starts on its core then; the GPUs start at once.
  // The early workers' rate carries over to the devices' CPU workers.
  std::vector<DeviceReport> handover(TileQueue& queue, Progress* progress, const Score& score,
                                     const std::function<void()>& before_devices, DeviceUse use) {
    const std::vector<WorkerGroup> early = early_groups();
    CoreHandover cores(early.front().workers);
    Measured measured;
    std::mutex measured_mutex;
    auto early_reports = std::async(std::launch::async, [&] {
      struct AllFree {
        CoreHandover& cores;
        ~AllFree() { cores.free_all(); }  // also when a tile throws: no device worker waits on
      } all_free{cores};
      return run_workers(
          early, queue, progress,
          [&](std::size_t w, const WorkTile& tile) {
            const auto start = std::chrono::steady_clock::now();
            const double cells = score(*cpu_, w, tile);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::lock_guard lock(measured_mutex);
            measured.work += queue.cost_of(tile);
            measured.seconds += seconds;
            return cells;
          },
          [&] { return ready(); }, {{}, [&](std::size_t w) { cores.free(w); }});
    });
    while (!ready() && early_reports.wait_for(std::chrono::milliseconds(2)) != std::future_status::ready) {
    }
    std::vector<DeviceReport> device_reports;
    if (queue.remaining_cost() > 0) {
      Devices<Kernel>& d = devices();
      if (before_devices) before_devices();
      Measured so_far;
      {
        std::lock_guard lock(measured_mutex);
        so_far = measured;
      }
      device_reports = run_devices(d, queue, progress, score, use, so_far, &cores);
    }
    std::vector<DeviceReport> reports = early_reports.get();
    add_reports(reports, device_reports);
    return reports;
  }

  // The CPU kernel's workers before the devices are ready: every thread while the set-up is held,
  // else a core left to it on more than 4 (workers_while_devices_start).
  std::vector<WorkerGroup> early_groups() const {
    const bool starting = set_up_.started();
    return cpu_groups(starting ? workers_while_devices_start(threads_) : threads_, starting);
  }
  // `workers` on the CPU kernel; `from_end`: they take the queue's last tiles (a tile taken just
  // before the devices are ready delays them).
  std::vector<WorkerGroup> cpu_groups(unsigned workers, bool from_end) const {
    std::vector<WorkerGroup> groups = plan_worker_groups(DeviceChoice::cpu, workers, cpu_->name(), {}, {}, {});
    groups.front().takes_from_end = from_end;
    return groups;
  }

  std::shared_ptr<Kernel> cpu_;
  const unsigned threads_;
  const bool early_;
  const std::optional<double> hold_until_;
  double work_ = 0;
  BackgroundSetUp<Devices<Kernel>> set_up_;
};

}  // namespace hyalign::engine

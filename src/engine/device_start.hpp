#pragma once
// Devices that start while the work does. Setting a run's GPUs up (CUDA's start, a context and a
// kernel on each GPU, an index copied to each) takes 0.3 s on one GPU and 1.4 s on four
// (docs/performance.md), which is longer than a small job takes on the CPU. So the devices are
// planned in the background, and with --device auto or all the CPU kernel works until they are
// ready: a small job never waits for GPUs, and a large one's devices take the rest of the work in
// hand once they are up. --device gpu waits for its GPUs (the CPU never scores
// then), and --device cpu has nothing to wait for.
#include <algorithm>
#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "engine/device_plan.hpp"
#include "engine/devices.hpp"
#include "engine/scheduler.hpp"

namespace hyalign::engine {

template <class Kernel>
class StartingDevices {
 public:
  // The set-up: engine::plan_devices with `cpu` (the run's CPU kernel), the tool's GPU kernels and
  // `cancelled`.
  using Plan = std::function<Devices<Kernel>(std::shared_ptr<Kernel> cpu, const std::function<bool()>& cancelled)>;

  // `cpu` is the CPU kernel of the early workers and of the devices. On more than 4 cores the early workers leave one to the set-up, whose CUDA start is CPU
  // work too: with a worker on every core of a 16-core H100 machine, search's GPU began at 1.3 s
  // instead of 0.3. On fewer cores a core is too large a share to leave.
  StartingDevices(DeviceChoice choice, unsigned threads, std::shared_ptr<Kernel> cpu, Plan plan)
      : cpu_(std::move(cpu)), early_(choice == DeviceChoice::automatic || choice == DeviceChoice::all) {
    if (early_) {
      const unsigned workers = threads > 4 ? threads - 1 : std::max(1u, threads);
      early_groups_ = plan_worker_groups(DeviceChoice::cpu, workers, cpu_->name(), {}, {}, {});
      early_groups_.front().takes_from_end = true;  // a tile taken just before they are ready delays them
    }
    // The set-up runs in the background: first CUDA's start (the enumeration), which touches
    // nothing of the tool's, then the tool's plan, unless the run has ended by then.
    // It holds the CPU kernel only once the plan has begun, which the run waits for.
    finished_ = start_in_background([state = state_, plan = std::move(plan), choice, cpu = std::weak_ptr<Kernel>(cpu_)] {
      struct Ready {
        std::atomic<bool>& flag;
        ~Ready() { flag = true; }  // also when the set-up fails: devices() rethrows its error
      } ready{state->ready};
      if (choice != DeviceChoice::cpu) usable_gpus();
      if (!state->commit()) return;  // the run is over: its tool's data may be gone
      try {
        state->devices.set_value(plan(cpu.lock(), [&state] { return state->cancelled(); }));
      } catch (...) {
        state->devices.set_exception(std::current_exception());
      }
    });
  }
  // A run that ends before its devices are ready does not wait for CUDA's start (main ends the
  // process without it), and makes no further GPU kernel once its plan has begun (an index copied
  // to a GPU that will not be used); it waits for a plan that has begun, which uses its data.
  ~StartingDevices() {
    if (state_->cancel()) finished_.wait();
  }
  StartingDevices(const StartingDevices&) = delete;
  StartingDevices& operator=(const StartingDevices&) = delete;

  // The CPU kernel of the early workers (tiles are as wide as its vectors).
  Kernel& cpu() { return *cpu_; }
  // Waits for the devices to be set up; rethrows what the set-up threw.
  Devices<Kernel>& devices() {
    if (pending_.valid()) devices_ = pending_.get();
    return devices_;
  }
  // Whether the devices are set up (devices() would not wait).
  bool ready() const { return state_->ready; }
  // Whether GPUs do the work from now on: false while the CPU works as they start.
  bool gpus_work() { return (ready() || !early_) && !devices().gpus.empty(); }

  // Works through `queue`: on the CPU kernel's early workers while the devices start (auto and
  // all), then on the devices. Workers are numbered across both stages, the early workers first,
  // and keep their numbers from one call to the next; `grow(workers)` is called on the calling
  // thread, while no worker runs, with the number of workers so far, to size per-worker state.
  // `before_devices` runs before the devices take their first tile of this queue. Returns the
  // reports of both stages, added up by device name.
  std::vector<DeviceReport> run(TileQueue& queue, Progress* progress,
                                const std::function<double(Kernel&, std::size_t worker, const WorkTile&)>& score,
                                const std::function<void(std::size_t workers)>& grow,
                                const std::function<void()>& before_devices = {}) {
    std::vector<DeviceReport> reports;
    const std::size_t early_workers = early_ ? early_groups_.front().workers : 0;
    if (early_ && !ready()) {
      grow(early_workers);
      reports = run_workers(
          early_groups_, queue, progress, [&](std::size_t w, const WorkTile& tile) { return score(*cpu_, w, tile); },
          [&] { return ready(); });
    }
    if (queue.remaining_cost() > 0) {
      Devices<Kernel>& d = devices();
      grow(early_workers + d.workers());
      if (before_devices) before_devices();
      add_reports(reports, run_workers(d.groups, queue, progress, [&](std::size_t w, const WorkTile& tile) {
                    return score(*d.kernel_of_worker[w], early_workers + w, tile);
                  }));
    }
    return reports;
  }

 private:
  // What the run and its set-up share; the set-up may outlive the run.
  struct State {
    std::atomic<bool> ready{false};
    std::promise<Devices<Kernel>> devices;
    std::mutex mutex;
    bool ended = false, planning = false;
    // The set-up asks before the tool's plan: false once the run has ended.
    bool commit() {
      std::lock_guard lock(mutex);
      planning = !ended;
      return planning;
    }
    // The run ends; returns whether the plan has begun (and must be waited for).
    bool cancel() {
      std::lock_guard lock(mutex);
      ended = true;
      return planning;
    }
    bool cancelled() {
      std::lock_guard lock(mutex);
      return ended;
    }
  };

  std::shared_ptr<Kernel> cpu_;
  const bool early_;
  std::vector<WorkerGroup> early_groups_;
  std::shared_ptr<State> state_ = std::make_shared<State>();
  std::future<Devices<Kernel>> pending_ = state_->devices.get_future();
  std::shared_future<void> finished_;
  Devices<Kernel> devices_;
};

}  // namespace hyalign::engine

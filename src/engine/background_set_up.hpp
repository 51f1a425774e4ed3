#pragma once
// A run's devices set up in the background while the run works on the CPU: first CUDA's start
// (the enumeration), which touches nothing of the tool's, then the tool's plan (GPU kernels, an
// index copied to each GPU), unless the run has ended by then. A held set-up (--device auto on a
// job whose size is not known yet: engine::plan_gpu_start) begins only once start() is called.
// Used by StartingDevices (the tools on the hybrid scheduler) and by map, which hands its workers
// GPU kernels between batches.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <utility>

#include "engine/devices.hpp"

namespace hyalign::engine {

// CPU workers while the devices start: on more than 4 cores one core is left to the set-up, whose
// CUDA start is CPU work too (with a worker on every core of a 16-core H100 machine, search's GPU
// began at 1.3 s instead of 0.3); on fewer cores a core is too large a share to leave.
inline unsigned workers_while_devices_start(unsigned threads) { return threads > 4 ? threads - 1 : std::max(1u, threads); }

template <class T>
class BackgroundSetUp {
 public:
  // `plan` makes what the run's devices need; once `cancelled()` is true (the run has ended), it
  // should make no further GPU kernel.
  using Plan = std::function<T(const std::function<bool()>& cancelled)>;

  BackgroundSetUp(DeviceChoice choice, Plan plan, bool held = false) {
    state_->held = held;
    finished_ = start_in_background([state = state_, plan = std::move(plan), choice] {
      struct Ready {
        std::atomic<bool>& flag;
        ~Ready() { flag = true; }  // also when the set-up fails: get() rethrows its error
      } ready{state->ready};
      if (!state->wait_for_start()) return;  // the run ended held: CUDA never started
      if (choice != DeviceChoice::cpu) usable_gpus();
      if (!state->commit()) return;  // the run is over: its tool's data may be gone
      try {
        state->result.set_value(plan([&state] { return state->cancelled(); }));
      } catch (...) {
        state->result.set_exception(std::current_exception());
      }
    });
  }
  // A run that ends before the set-up is done does not wait for CUDA's start (main ends the process
  // without it); it waits for a plan that has begun, which uses the run's data.
  ~BackgroundSetUp() {
    if (state_->cancel()) finished_.wait();
  }
  BackgroundSetUp(const BackgroundSetUp&) = delete;
  BackgroundSetUp& operator=(const BackgroundSetUp&) = delete;

  // Lets a held set-up begin.
  void start() { state_->start(); }
  // Whether the set-up has begun or will without start().
  bool started() const { return state_->started(); }
  // Whether the set-up is done (get() would not wait).
  bool ready() const { return state_->ready; }
  // Starts the set-up if held, waits for it; rethrows what it threw.
  T& get() {
    start();
    if (pending_.valid()) result_ = pending_.get();
    return result_;
  }

 private:
  // What the run and its set-up share; the set-up may outlive the run.
  struct State {
    std::atomic<bool> ready{false};
    std::promise<T> result;
    std::mutex mutex;
    std::condition_variable start_or_end;
    bool held = false, ended = false, planning = false;
    // The set-up waits while held; false when the run ended first.
    bool wait_for_start() {
      std::unique_lock lock(mutex);
      start_or_end.wait(lock, [this] { return !held || ended; });
      return !ended;
    }
    void start() {
      {
        std::lock_guard lock(mutex);
        held = false;
      }
      start_or_end.notify_all();
    }
    bool started() {
      std::lock_guard lock(mutex);
      return !held;
    }
    // The set-up asks before the tool's plan: false once the run has ended.
    bool commit() {
      std::lock_guard lock(mutex);
      planning = !ended;
      return planning;
    }
    // The run ends; returns whether the plan has begun (and must be waited for).
    bool cancel() {
      bool began = false;
      {
        std::lock_guard lock(mutex);
        ended = true;
        began = planning;
      }
      start_or_end.notify_all();
      return began;
    }
    bool cancelled() {
      std::lock_guard lock(mutex);
      return ended;
    }
  };

  std::shared_ptr<State> state_ = std::make_shared<State>();
  std::future<T> pending_ = state_->result.get_future();
  std::shared_future<void> finished_;
  T result_{};
};

}  // namespace hyalign::engine

#include "engine/scheduler.hpp"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <utility>
#include <mutex>

#include <fmt/format.h>

#include "core/parallel.hpp"

namespace hyalign::engine {
namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Work (the queue's cost) per second of each device, measured: a CPU worker over all its group's
// tiles, a GPU over its last take (its rate grows with the size of a take). A GPU takes its
// device's share of the total rate, so that every device finishes together; a CPU worker stops once
// the others, a GPU counted from when its take should end, would finish the rest before it surely
// finished one more tile. So a mix is never slower than its fastest member. Devices of one model
// share a rate (their takes pooled), so GPUs of one model take equal shares of what is left,
// whichever started first. Until every model has a rate, a GPU takes small probes that double (a
// slow GPU holds little, a fast one is soon busy).
class RateMeter {
 public:
  RateMeter(const std::vector<WorkerGroup>& groups, double mean_tile_cost)
      : groups_(groups), work_(groups.size()), seconds_(groups.size()), free_at_(groups.size()), probe_(groups.size()),
        telling_takes_(groups.size(), 0), best_rate_(groups.size(), 0.0),
        mean_tile_cost_(mean_tile_cost) {
    std::size_t workers = 0;
    for (const WorkerGroup& g : groups) {
      workers += g.workers;
      active_.push_back(g.workers);
      has_gpu_ = has_gpu_ || g.is_gpu();
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
      probe_[g] = static_cast<double>(groups[g].proves_itself ? 1 : workers) * mean_tile_cost;
      if (!groups[g].is_gpu()) work_[g] = groups[g].known_work, seconds_[g] = groups[g].known_seconds;
    }
  }

  void record(std::size_t group, double work, double seconds) {
    std::lock_guard lock(mutex_);
    const bool last_take_only = groups_[group].is_gpu();
    work_[group] = work + (last_take_only ? 0 : work_[group]);
    seconds_[group] = seconds + (last_take_only ? 0 : seconds_[group]);
    if (seconds >= kTellingTakeSeconds) ++telling_takes_[group];
    if (seconds > 0) best_rate_[group] = std::max(best_rate_[group], work / seconds);
  }

  // The work for a GPU worker of `group` to take out of `remaining`.
  double gpu_take(std::size_t group, double remaining) {
    std::lock_guard lock(mutex_);
    if (groups_.size() == 1) return remaining;  // a device alone has nothing to share
    if (measured() && (!groups_[group].proves_itself || telling_takes_[group] > 0))
      return remaining * rate(group) / total_rate();
    return std::exchange(probe_[group], 2 * probe_[group]);
  }
  // Whether a GPU worker of `group` that proves itself should stop: slower than the CPU workers
  // together on its best take, after kTellingTakesToLeave takes long enough to tell (a short one's
  // time is mostly its launch). One slow take may be a stall, not the GPU: its host thread waiting
  // for a core that the CPU workers and the job's other steps share.
  bool gpu_worker_retires(std::size_t group) {
    std::lock_guard lock(mutex_);
    if (!groups_[group].proves_itself || !measured() || telling_takes_[group] < kTellingTakesToLeave) return false;
    double cpu = 0;
    for (std::size_t g = 0; g < groups_.size(); ++g)
      if (!groups_[g].is_gpu()) cpu += rate(g) * static_cast<double>(active_[g]);
    if (best_rate_[group] >= cpu) return false;
    --active_[group];
    return true;
  }
  // A GPU worker of `group` took `work`: it is busy until it should have done it.
  void holds(std::size_t group, double work) {
    std::lock_guard lock(mutex_);
    free_at_[group] = now() + (measured() ? work / rate(group) : 0.0);
  }

  // Whether a CPU worker of `group` should stop, leaving `remaining` work to faster devices: the
  // others would finish it before this worker finished the next tile, `next_tile` of work.
  bool cpu_worker_retires(std::size_t group, double remaining, double next_tile) {
    std::lock_guard lock(mutex_);
    if (!has_gpu_ || !measured()) return false;
    if (seconds_for_others(group, remaining) >= kTileTimeSpread * std::max(next_tile, mean_tile_cost_) / rate(group))
      return false;
    --active_[group];
    return true;
  }

 private:
  // A CPU tile can take half as long again as the mean (cold caches, longer queries), and a tile
  // that ends after the others have finished holds the whole run up, while a tile left to a GPU
  // costs it a fraction of that.
  static constexpr double kTileTimeSpread = 1.5;

  double now() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

  // Seconds the workers other than one of `group` need for `work`: CPU workers start now, a GPU
  // once the take it holds should end (counting it free at once would stop CPU workers while the
  // GPU is still busy, and leave it the last tiles after its take).
  double seconds_for_others(std::size_t group, double work) const {
    std::vector<std::pair<double, double>> starts;  // (seconds from now, work per second)
    const double at = now();
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const double workers = static_cast<double>(active_[g]) - (g == group ? 1 : 0);
      if (workers > 0) starts.emplace_back(std::max(0.0, free_at_[g] - at), rate(g) * workers);
    }
    std::sort(starts.begin(), starts.end());
    double t = 0, done = 0, rate_so_far = 0;
    for (const auto& [start, rate] : starts) {
      if (rate_so_far > 0 && done + rate_so_far * (start - t) >= work) break;
      done += rate_so_far * (start - t);
      t = start;
      rate_so_far += rate;
    }
    return rate_so_far > 0 ? t + (work - done) / rate_so_far : std::numeric_limits<double>::infinity();
  }
  // Work per second and worker of g's model (g's own where it names none).
  double rate(std::size_t g) const {
    double work = 0, seconds = 0;
    for (std::size_t other = 0; other < groups_.size(); ++other)
      if (other == g || (!groups_[g].model.empty() && groups_[other].model == groups_[g].model))
        work += work_[other], seconds += seconds_[other];
    return work / seconds;
  }
  bool measured() const {
    for (std::size_t g = 0; g < groups_.size(); ++g)
      if (!(rate(g) > 0)) return false;
    return true;
  }
  double total_rate() const {
    double total = 0;
    for (std::size_t g = 0; g < groups_.size(); ++g) total += rate(g) * active_[g];
    return total;
  }
  const std::vector<WorkerGroup>& groups_;
  std::mutex mutex_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::vector<double> work_, seconds_;
  std::vector<double> free_at_;  // seconds from start_ at which a GPU group's current take should end
  std::vector<double> probe_;    // a GPU's next probe, while not every model has a rate
  std::vector<int> telling_takes_;  // the group's takes that lasted long enough to tell its speed
  std::vector<double> best_rate_;   // work per second of the group's fastest take
  std::vector<std::size_t> active_;
  const double mean_tile_cost_;
  bool has_gpu_ = false;  // whether CPU workers may retire (the last active worker never does)
};

}  // namespace

void DeviceReport::add(const DeviceReport& other) {
  if (other.first_take_at >= 0 && (first_take_at < 0 || other.first_take_at < first_take_at))
    first_take_at = other.first_take_at;
  finished_at = std::max(finished_at, other.finished_at);
  telling_takes += other.telling_takes;
  best_take_rate = std::max(best_take_rate, other.best_take_rate);
  cells += other.cells;
  busy_seconds += other.busy_seconds;
  cpu_seconds += other.cpu_seconds;
}
std::vector<DeviceReport> run_workers(
    const std::vector<WorkerGroup>& groups, TileQueue& queue, Progress* progress,
    const std::function<double(std::size_t worker, const WorkTile&)>& score, const std::function<bool()>& stop,
    const WorkerHooks& hooks) {
  std::vector<std::size_t> group_of_worker;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (unsigned w = 0; w < groups[g].workers; ++w) group_of_worker.push_back(g);
  RateMeter rates(groups, queue.total_cost() / static_cast<double>(std::max<std::size_t>(1, queue.tile_count())));

  std::vector<DeviceReport> reports;
  for (const WorkerGroup& g : groups) reports.push_back({g.name, 0, 0, 0});
  std::mutex report_mutex;
  const auto scoring_start = std::chrono::steady_clock::now();
  const auto since_scoring_start = [&](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(t - scoring_start).count();
  };
  parallel_for(group_of_worker.size(), static_cast<unsigned>(group_of_worker.size()), [&](std::size_t w, unsigned) {
    const std::size_t g = group_of_worker[w];
    struct LastTake {
      const WorkerHooks& hooks;
      std::size_t worker;
      ~LastTake() {
        if (hooks.after_last_take) hooks.after_last_take(worker);
      }
    } last_take{hooks, w};
    if (hooks.before_first_take) hooks.before_first_take(w);
    double cells = 0;
    const double cpu_start = thread_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    double first_take_at = -1, best_take_rate = 0;
    int telling_takes = 0;
    const bool gpu = groups[g].is_gpu();
    while (!(stop && stop())) {
      const double remaining = queue.remaining_cost();
      if (gpu ? rates.gpu_worker_retires(g) : rates.cpu_worker_retires(g, remaining, queue.next_tile_cost())) break;
      const auto tile = gpu                        ? queue.take_cost(rates.gpu_take(g, remaining), groups[g].max_tiles_per_take)
                        : groups[g].takes_from_end ? queue.take_last()
                                                   : queue.take(1);
      if (!tile) break;
      const double work = queue.cost_of(*tile);
      if (gpu) rates.holds(g, work);
      const auto take_start = std::chrono::steady_clock::now();
      if (first_take_at < 0) first_take_at = since_scoring_start(take_start);
      const double take_cells = score(w, *tile);
      cells += take_cells;
      const double take_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - take_start).count();
      if (take_seconds >= kTellingTakeSeconds) ++telling_takes;
      if (take_seconds > 0) best_take_rate = std::max(best_take_rate, take_cells / take_seconds);
      rates.record(g, work, take_seconds);
      if (progress) progress->advance(queue.tiles_in(*tile));
    }
    const auto end = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(end - start).count();
    const double cpu = thread_cpu_seconds() - cpu_start;
    std::lock_guard lock(report_mutex);
    reports[g].add({"", cells, seconds, cpu, first_take_at, since_scoring_start(end), telling_takes, best_take_rate});
  });
  return reports;
}

void add_reports(std::vector<DeviceReport>& reports, const std::vector<DeviceReport>& more) {
  for (const DeviceReport& report : more) {
    auto same = std::find_if(reports.begin(), reports.end(), [&](const DeviceReport& r) { return r.name == report.name; });
    if (same == reports.end())
      reports.push_back(report);
    else
      same->add(report);
  }
}

void log_worker_groups(const std::vector<WorkerGroup>& groups) {
  std::string names;
  for (const auto& g : groups)
    names += fmt::format("{}{} ({} thread{})", names.empty() ? "" : ", ", g.name, g.workers, g.workers == 1 ? "" : "s");
  log_info("scoring on {}", names);
}

void log_device_reports(const std::vector<DeviceReport>& reports) {
  double cells = 0;
  for (const auto& r : reports) cells += r.cells;
  for (const auto& r : reports) {
    const std::string span = r.first_take_at < 0 ? std::string("no take")
                                                 : fmt::format("takes from {:.2f} to {:.2f} s", r.first_take_at, r.finished_at);
    log_info("  {}: {:.1f}% of the cells, {:.2f} s busy, {:.2f} s CPU time, {}", r.name,
             100.0 * r.cells / std::max(1.0, cells), r.busy_seconds, r.cpu_seconds, span);
  }
}

}  // namespace hyalign::engine

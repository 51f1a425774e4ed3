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

// Tiles per second of each device, measured: a CPU worker over all its group's tiles, a GPU over
// its last take (its rate grows with the size of a take). A GPU takes its device's share of the
// total rate, so that every device finishes together; a CPU worker stops once the others, a GPU
// counted from when its take should end, would finish the rest before it surely finished one more
// tile. So a mix is never slower than its fastest member. Until every device has a rate, a GPU
// takes small probes that double (a slow GPU holds little, a fast one is soon busy).
class RateMeter {
 public:
  explicit RateMeter(const std::vector<WorkerGroup>& groups)
      : groups_(groups), tiles_(groups.size()), seconds_(groups.size()), free_at_(groups.size()), probe_(groups.size()) {
    std::size_t workers = 0;
    for (const WorkerGroup& g : groups) {
      workers += g.workers;
      active_.push_back(g.workers);
      has_gpu_ = has_gpu_ || g.is_gpu();
    }
    std::fill(probe_.begin(), probe_.end(), workers);
  }

  void record(std::size_t group, std::size_t tiles, double seconds) {
    std::lock_guard lock(mutex_);
    const bool last_take_only = groups_[group].is_gpu();
    tiles_[group] = static_cast<double>(tiles) + (last_take_only ? 0 : tiles_[group]);
    seconds_[group] = seconds + (last_take_only ? 0 : seconds_[group]);
  }

  // Tiles for a GPU worker of `group` to take out of `remaining`.
  std::size_t gpu_take(std::size_t group, std::size_t remaining) {
    std::lock_guard lock(mutex_);
    std::size_t tiles = probe_[group];
    if (groups_.size() == 1) tiles = remaining;  // a device alone has nothing to share
    else if (measured()) tiles = static_cast<std::size_t>(static_cast<double>(remaining) * rate(group) / total_rate());
    else probe_[group] *= 2;
    tiles = std::clamp<std::size_t>(tiles, 1, groups_[group].max_tiles_per_take);
    free_at_[group] = now() + (measured() ? static_cast<double>(tiles) / rate(group) : 0.0);
    return tiles;
  }

  // Whether a CPU worker of `group` should stop, leaving `remaining` tiles to faster devices: the
  // others would finish them before this worker finished one more tile.
  bool cpu_worker_retires(std::size_t group, std::size_t remaining) {
    std::lock_guard lock(mutex_);
    if (!has_gpu_ || !measured()) return false;
    if (seconds_for_others(group, static_cast<double>(remaining)) >= kTileTimeSpread / rate(group)) return false;
    --active_[group];
    return true;
  }

 private:
  // A CPU tile can take half as long again as the mean (cold caches, longer queries), and a tile
  // that ends after the others have finished holds the whole run up, while a tile left to a GPU
  // costs it a fraction of that.
  static constexpr double kTileTimeSpread = 1.5;

  double now() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

  // Seconds the workers other than one of `group` need for `tiles`: CPU workers start now, a GPU
  // once the take it holds should end (counting it free at once would stop CPU workers while the
  // GPU is still busy, and leave it the last tiles after its take).
  double seconds_for_others(std::size_t group, double tiles) const {
    std::vector<std::pair<double, double>> starts;  // (seconds from now, tiles per second)
    const double at = now();
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const double workers = static_cast<double>(active_[g]) - (g == group ? 1 : 0);
      if (workers > 0) starts.emplace_back(std::max(0.0, free_at_[g] - at), rate(g) * workers);
    }
    std::sort(starts.begin(), starts.end());
    double t = 0, done = 0, rate_so_far = 0;
    for (const auto& [start, rate] : starts) {
      if (rate_so_far > 0 && done + rate_so_far * (start - t) >= tiles) break;
      done += rate_so_far * (start - t);
      t = start;
      rate_so_far += rate;
    }
    return rate_so_far > 0 ? t + (tiles - done) / rate_so_far : std::numeric_limits<double>::infinity();
  }
  double rate(std::size_t g) const { return tiles_[g] / seconds_[g]; }
  bool measured() const {
    return std::all_of(seconds_.begin(), seconds_.end(), [](double s) { return s > 0; });
  }
  double total_rate() const {
    double total = 0;
    for (std::size_t g = 0; g < groups_.size(); ++g) total += rate(g) * active_[g];
    return total;
  }
  const std::vector<WorkerGroup>& groups_;
  std::mutex mutex_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::vector<double> tiles_, seconds_;
  std::vector<double> free_at_;  // seconds from start_ at which a GPU group's current take should end
  std::vector<std::size_t> probe_, active_;
  bool has_gpu_ = false;  // GPU workers never retire, so this holds for the whole run
};

}  // namespace

void DeviceReport::add(const DeviceReport& other) {
  cells += other.cells;
  busy_seconds += other.busy_seconds;
  cpu_seconds += other.cpu_seconds;
}
std::vector<DeviceReport> run_workers(
    const std::vector<WorkerGroup>& groups, TileQueue& queue, Progress* progress,
    const std::function<double(std::size_t worker, const WorkTile&)>& score) {
  std::vector<std::size_t> group_of_worker;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (unsigned w = 0; w < groups[g].workers; ++w) group_of_worker.push_back(g);
  RateMeter rates(groups);

  std::vector<DeviceReport> reports;
  for (const WorkerGroup& g : groups) reports.push_back({g.name, 0, 0, 0});
  std::mutex report_mutex;
  parallel_for(group_of_worker.size(), static_cast<unsigned>(group_of_worker.size()), [&](std::size_t w, unsigned) {
    const std::size_t g = group_of_worker[w];
    double cells = 0;
    const double cpu_start = thread_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    const bool gpu = groups[g].is_gpu();
    while (true) {
      const std::size_t remaining = queue.remaining();
      if (!gpu && rates.cpu_worker_retires(g, remaining)) break;
      const auto tile = queue.take(gpu ? rates.gpu_take(g, remaining) : 1);
      if (!tile) break;
      const auto take_start = std::chrono::steady_clock::now();
      cells += score(w, *tile);
      const std::size_t tiles = queue.tiles_in(*tile);
      rates.record(g, tiles, std::chrono::duration<double>(std::chrono::steady_clock::now() - take_start).count());
      if (progress) progress->advance(tiles);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu = thread_cpu_seconds() - cpu_start;
    std::lock_guard lock(report_mutex);
    reports[g].add({"", cells, seconds, cpu});
  });
  return reports;
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
  for (const auto& r : reports)
    log_info("  {}: {:.1f}% of the cells, {:.2f} s busy, {:.2f} s CPU time", r.name,
             100.0 * r.cells / std::max(1.0, cells), r.busy_seconds, r.cpu_seconds);
}

}  // namespace hyalign::engine

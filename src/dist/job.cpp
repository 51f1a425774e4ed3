#include "dist/job.hpp"

#include <sched.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "core/error.hpp"
#include "core/log.hpp"
#include "dist/transport.hpp"
#include "engine/devices.hpp"

namespace hyalign::dist {
namespace {

transport::Place place;
std::int64_t start = 0;  // start_microseconds()

// Units a rank gets where the work allows: enough to even out units of unequal cost.
constexpr std::size_t kUnitsPerRank = 4;

// The node's hardware threads divided between its ranks.
unsigned node_share() {
  return std::max(1u, std::thread::hardware_concurrency() / static_cast<unsigned>(place.local_size));
}

// The hardware threads this process may run on: fewer than the node's where a launcher bound it
// (mpirun binds each rank to a core or a socket), a cpuset holds it (Slurm, containers) or taskset.
unsigned usable_threads() {
  cpu_set_t usable;
  CPU_ZERO(&usable);
  if (sched_getaffinity(0, sizeof usable, &usable) != 0) return std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::max(1, CPU_COUNT(&usable)));
}

// Open MPI binds each rank to one core at -np 2 or less unless told how to bind (to a socket at
// more), and a rank's threads then share that core: 2 ranks on 16 cores ran 9x slower than one
// process (docs/performance.md). Open MPI 4's mpirun says in the rank's environment that it bound
// the rank, and names the binding it was told to use.
bool bound_by_open_mpi_default() {
  return std::getenv("OMPI_MCA_orte_bound_at_launch") != nullptr &&
         std::getenv("OMPI_MCA_hwloc_base_binding_policy") == nullptr;
}

// Lets this thread, and the threads it starts, run on any of the node's cores (a cpuset's, where
// one holds the process); false if the system refuses.
bool unbind() {
  cpu_set_t every;
  CPU_ZERO(&every);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &every);
  return sched_setaffinity(0, sizeof every, &every) == 0;
}

// A rank that a launcher bound to fewer hardware threads than its share of the node: unbound where
// that was Open MPI's default, else told how to give it more.
void take_share_of_node() {
  const unsigned bound = usable_threads();
  if (bound >= node_share()) return;
  if (bound_by_open_mpi_default() && unbind() && usable_threads() >= node_share()) {
    log_info("notice: mpirun bound each rank to {} of its {} hardware threads by default; they run on the node's "
             "cores instead (mpirun --bind-to chooses a binding)",
             bound, node_share());
    return;
  }
  if (place.size > 1)  // else a plain process that taskset or a cpuset holds, as its user chose
    log_info("notice: the launcher bound each rank to {} of the {} hardware threads a rank could use here; "
             "mpirun --bind-to none (or --map-by socket:PE=N) lets each use its share",
             bound, node_share());
}

}  // namespace

Job::Job(int& argc, char**& argv) {
  place = transport::start(argc, argv);
  start = system_microseconds();
  if (place.size > 1) Log::instance().set_quiet(place.rank != 0);
  take_share_of_node();  // `mpirun -np 1` binds its one rank to a core too
  if (place.size == 1) return;
  engine::share_gpus(static_cast<unsigned>(place.local_rank), static_cast<unsigned>(place.local_size));
}

Job::~Job() { transport::stop(); }

std::int64_t system_microseconds() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int rank() { return place.rank; }
std::int64_t start_microseconds() { return start; }
int size() { return place.size; }
bool writes_output() { return place.rank == 0; }

unsigned hardware_threads() { return std::min(node_share(), usable_threads()); }

void check_same_inputs(const std::vector<std::string>& paths) {
  if (place.size == 1) return;
  std::uint64_t fingerprint = 14695981039346656037ull;  // FNV-1a over the sizes
  for (const std::string& path : paths) {
    if (path.empty()) continue;
    if (path == "-") throw UsageError("with several MPI ranks the inputs must be files, not standard input");
    struct stat file {};
    const bool seen = stat(path.c_str(), &file) == 0;
    if (seen && !S_ISREG(file.st_mode))
      throw UsageError(path + ": with several MPI ranks every input must be a file each rank reads (not a pipe)");
    fingerprint = (fingerprint ^ (seen ? static_cast<std::uint64_t>(file.st_size) : ~0ull)) * 1099511628211ull;
  }
  std::uint64_t highest[2] = {fingerprint, ~fingerprint};  // the largest and (negated) the smallest
  transport::max_over_ranks(highest);
  if (highest[0] != ~highest[1])
    throw UsageError("the input files differ between the ranks (in size, or missing on some): every rank must read "
                     "the same files");
}

std::string error_prefix() { return place.size > 1 ? "rank " + std::to_string(place.rank) + ": " : ""; }

void abort_job(int code) { transport::abort_job(code); }

void max_over_ranks(std::span<std::uint64_t> values) {
  if (place.size > 1) transport::max_over_ranks(values);
}

std::uint64_t from_rank_zero(std::uint64_t value) {
  return place.size > 1 ? transport::from_rank_zero(value) : value;
}

std::size_t stream_unit_size(std::uint64_t total, std::size_t fewest, std::size_t most) {
  const std::uint64_t share = total / (kUnitsPerRank * static_cast<std::uint64_t>(size()));
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(share, fewest, std::max(fewest, most)));
}

std::vector<std::size_t> equal_weight_bounds(std::span<const std::size_t> offsets, std::size_t units,
                                             std::size_t most_per_unit, std::size_t together) {
  const std::size_t items = offsets.empty() ? 0 : offsets.size() - 1;
  together = std::max<std::size_t>(1, together);
  const std::size_t most = std::max<std::size_t>(1, (most_per_unit + together - 1) / together) * together;
  // The weight of the items before `end`; each weighs one more than its residues, since items of
  // none still cost their setup and output. Integers, so that every rank cuts the same units: the
  // products below stay under 2^64 for up to 2^40 residues and 2^20 units, beyond what ranks hold.
  const auto weight_before = [&](std::size_t end) { return std::uint64_t{offsets[end] - offsets[0] + end}; };
  const std::uint64_t total = items == 0 ? 0 : weight_before(items);
  units = std::max({units, std::size_t{1}, (items + most - 1) / most});
  std::vector<std::size_t> bounds{0};
  for (std::size_t first = 0; first < items; first += together) {
    const std::size_t end = std::min(items, first + together);
    const bool even = weight_before(end) * units >= total * bounds.size();  // past the next even cut
    const bool full = end + together - bounds.back() > most;
    if (end < items && (even || full)) bounds.push_back(end);
  }
  if (items > 0) bounds.push_back(items);
  return bounds;
}

ItemUnits::ItemUnits(std::span<const std::size_t> offsets, std::size_t most_per_unit, std::size_t together)
    : bounds_(equal_weight_bounds(offsets, kUnitsPerRank * static_cast<std::size_t>(size()), most_per_unit,
                                  together)) {}

std::vector<std::size_t> ItemUnits::my_items() const {
  std::vector<std::size_t> items;
  for_each_mine([&](std::size_t unit, std::size_t, std::size_t) {
    for (std::size_t i = first(unit); i < end(unit); ++i) items.push_back(i);
  });
  return items;
}

}  // namespace hyalign::dist

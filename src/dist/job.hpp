#pragma once
// One run spread over several processes: `mpirun -np N hyalign TOOL ...` (or srun) starts N ranks
// of one job. Every rank reads the same inputs; the work is cut into numbered units (batches of
// reads, blocks of queries) dealt out in turn, unit u to rank u % N; rank 0 writes the whole output
// in input order (ordered_output.hpp). Without a launcher, or built without MPI, a run is one
// process, rank 0 of 1, and nothing here costs anything.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hyalign::dist {

// The job for the process's lifetime (main holds it). In a job of several ranks, ranks other than
// 0 log nothing (their errors are still printed), and each rank takes its share of its node's GPUs
// and cores. Throws UsageError when several processes were launched but hyalign has no MPI.
class Job {
 public:
  Job(int& argc, char**& argv);
  ~Job();
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;
};

int rank();
int size();
std::int64_t system_microseconds();  // now, on the system clock
// When this rank's job began (MPI started), in microseconds of the system clock: the ranks of one
// node share that clock, so their starts compare (across nodes, as closely as their clocks agree).
std::int64_t start_microseconds();
bool writes_output();         // rank 0 opens the outputs and writes them
unsigned hardware_threads();  // this node's hardware threads divided between its ranks, at most those it may use
std::string error_prefix();   // "rank R: " in a job of several ranks, so that an error names its rank
// After an error on this rank: ends every rank (the launcher exits with `code`).
[[noreturn]] void abort_job(int code);

// Every rank must cut the same inputs into the same units: in a job of several ranks, throws
// UsageError unless each path names a regular file of the same size on every rank (standard
// input or a pipe reaches one rank only). Empty paths are left out.
void check_same_inputs(const std::vector<std::string>& paths);

// The size of a stream's units in a job of several ranks: about four units a rank of the stream's
// `total` size (a file's, the same on every rank), within [fewest, most], so that a small input is
// still shared between the ranks.
std::size_t stream_unit_size(std::uint64_t total, std::size_t fewest, std::size_t most);

// The rank that does unit `unit`.
inline int owner(std::size_t unit) { return static_cast<int>(unit % static_cast<std::size_t>(size())); }
inline bool mine(std::size_t unit) { return owner(unit) == rank(); }

// Units cut from a stream (batches of a file): every rank cuts them alike, passing over other
// ranks' batches (cheaper than reading them) and reading its own. Counts the units; one thread at a
// time reads.
class UnitCounter {
 public:
  // pass_over() for each batch of another rank's, then read() for this rank's next one; both
  // return false when no batch is left. True once read() gave a batch, its unit in `unit`.
  template <class Read, class PassOver>
  bool next_mine(Read&& read, PassOver&& pass_over, std::size_t& unit) {
    for (; !mine(count_); ++count_)
      if (!pass_over()) return false;
    if (!read()) return false;
    unit = count_++;
    return true;
  }
  std::size_t count() const { return count_; }

 private:
  std::size_t count_ = 0;
};

// Collectives: every rank calls them at the same step of a run.
void max_over_ranks(std::span<std::uint64_t> values);
std::uint64_t from_rank_zero(std::uint64_t value);  // rank 0's value, where ranks must agree

// Items held by every rank (queries) cut into units of consecutive items of about equal work: at
// most `most_per_unit` items each, and about four units per rank where there are enough items, so
// that ranks get similar shares; fewer items than ranks leave some ranks without a unit.
class ItemUnits {
 public:
  // Item i's work grows with its residues, [offsets[i], offsets[i + 1]) (a query's cells do).
  // Units hold a multiple of `together` items (at most most_per_unit, rounded up to one), so that
  // runs of `together` consecutive items stay in one unit.
  ItemUnits(std::span<const std::size_t> offsets, std::size_t most_per_unit, std::size_t together = 1);
  // The units of a batch of sequences (SequenceBatch).
  template <class Batch>
  static ItemUnits of_sequences(const Batch& batch, std::size_t most_per_unit, std::size_t together = 1) {
    return ItemUnits({batch.offsets.data(), batch.offsets.size()}, most_per_unit, together);
  }
  std::size_t count() const { return bounds_.size() - 1; }
  std::size_t first(std::size_t unit) const { return bounds_[unit]; }
  std::size_t end(std::size_t unit) const { return bounds_[unit + 1]; }

  // The items of this rank's units, in order.
  std::vector<std::size_t> my_items() const;
  // This rank's sequences of `all` (a SequenceBatch), in order: `all` itself in a one-process run,
  // else a copy into `share`.
  template <class Batch>
  const Batch& share_of(const Batch& all, Batch& share) const {
    if (size() == 1) return all;
    for (std::size_t i : my_items()) share.add(all.name(i), all.sequence(i), all.ids[i]);
    return share;
  }
  // Calls f(unit, first, end) for each of this rank's units in order; [first, end) are the unit's
  // items as positions among this rank's items.
  template <class F>
  void for_each_mine(F&& f) const {
    for (std::size_t unit = static_cast<std::size_t>(rank()), at = 0; unit < count(); unit += size()) {
      const std::size_t items = end(unit) - first(unit);
      f(unit, at, at + items);
      at += items;
    }
  }

 private:
  std::vector<std::size_t> bounds_;  // unit u holds items [bounds_[u], bounds_[u + 1])
};

// Where units of about equal weight end (ItemUnits): 0, then each unit's end; an item weighs its
// residues (offsets as ItemUnits takes them) plus one. `units` is the count wanted: more where
// most_per_unit demands, fewer where there are fewer runs of `together`.
std::vector<std::size_t> equal_weight_bounds(std::span<const std::size_t> offsets, std::size_t units,
                                             std::size_t most_per_unit, std::size_t together);

}  // namespace hyalign::dist

#pragma once
// The job's output in input order. Each unit's owner hands its bytes over; rank 0 writes them, a
// unit only once every unit before it is written, receiving another rank's unit when its turn
// comes. One unit travels at a time and is written piece by piece as it arrives, so rank 0's
// memory stays bounded however long the output; a rank whose unit is not wanted yet waits in its
// send. In a one-process run, write() calls the writer straight away.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hyalign::dist {

// What one rank did, as rank 0 learns it at the end: its units and the tool's counts.
struct RankShare {
  std::size_t units = 0;
  std::vector<std::uint64_t> counts;
  // Seconds from rank 0's start to this rank's start, and to when it handed over its first bytes
  // or unit (a rank that writes at the end: its work done). A late rank holds rank 0 in its write.
  double started = 0, first_output = 0;
};

class OrderedOutput {
 public:
  using Writer = std::function<void(std::string_view)>;
  // `write` puts bytes into the output; it is called on rank 0 only, from the thread that called
  // write() or finish(). Whole pieces are passed on: a piece of packed records arrives whole.
  explicit OrderedOutput(Writer write) : write_(std::move(write)) {}

  // Bytes of `unit`, from its owner: the pieces of a unit in order, units in increasing order, one
  // thread at a time.
  void write(std::size_t unit, std::string_view piece);
  // The owner's `unit` is complete (a unit may have no bytes; it is ended all the same).
  void end(std::size_t unit);
  // On every rank once its units are ended; `units` is the job's count (every rank reads the whole
  // input). Rank 0 writes the units still to come, then returns every rank's share; other ranks
  // return their own. `counts` are the tool's tallies (reads, matches, ...).
  std::vector<RankShare> finish(std::size_t units, std::vector<std::uint64_t> counts);

 private:
  void write_units_before(std::size_t unit);  // rank 0: the other ranks' units before `unit`
  void receive_unit(std::size_t unit);
  void note_first_output();
  Writer write_;
  std::size_t next_ = 0;   // rank 0: the next unit to write
  std::size_t ended_ = 0;  // units this rank ended
  std::int64_t first_output_ = -1;  // system microseconds of this rank's first write() or end()
};

// counts[k] summed over the ranks.
std::vector<std::uint64_t> summed(const std::vector<RankShare>& shares);
// In a job of several ranks, one log line per rank: its units and its counts[k], which are `what`,
// then what `more` says of the share.
void log_shares(const std::vector<RankShare>& shares, std::size_t k, std::string_view what,
                const std::function<std::string(const RankShare&)>& more = {});
// For log_shares' `more`: ", C cells in S s" from counts[cells] and counts[microseconds], so that
// a late rank shows whether it had more work or went slower.
std::function<std::string(const RankShare&)> cells_and_seconds(std::size_t cells, std::size_t microseconds);

}  // namespace hyalign::dist

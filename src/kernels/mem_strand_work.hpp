#pragma once
// Strands cut into units of work for several threads: runs of whole strands of about
// kLettersPerUnit letters (and at most a given number of strands), and, where the CPU matches,
// pieces of consecutive seeds of each strand longer than that (under -maxmatch, of each strand
// over kLeastLetters, also cut by their seeds' reference occurrences). A GPU cuts a long strand into items
// of its own; without pieces a chromosome would be matched on one core, and a draft assembly's
// contigs on a few.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "index/periodic_runs.hpp"
#include "kernels/mem_kernel.hpp"

namespace hyalign::kernels {

class StrandWork {
 public:
  // At most about 25 ms of matching on a core (10 M letters a second); fewer letters where the
  // strands would give a thread fewer than kUnitsPerThread units, but not below kLeastLetters:
  // a unit's cost varies with its letters' repeats (-maxmatch on a repeat-rich genome), and a
  // job of few units ends with one thread still at work.
  static constexpr std::size_t kLettersPerUnit = std::size_t{1} << 18;
  static constexpr std::size_t kLeastLetters = std::size_t{1} << 14;
  static constexpr std::size_t kUnitsPerThread = 8;

  struct Unit {
    std::size_t first_strand = 0, strands = 0;  // whole strands [first_strand, first_strand + strands)
    MemFinder::SeedRange seeds;                 // or, for a piece (strands == 0), these seeds of first_strand
    std::size_t runs = 0;                       // a piece's strand's periodic stretches in runs_
    std::span<const MemFinder::Seed> found;     // under -maxmatch, a piece's seeds looked up
    bool piece() const { return strands == 0; }
  };

  // The units of strands [first, first + count) of `set`, whole strands at most `most_strands` a
  // unit; pieces of the long strands with `pieces` (the finder that matches them; their stretches
  // are found, and under -maxmatch their seeds looked up, on `threads` threads).
  StrandWork(const StrandSet& set, std::size_t first, std::size_t count, std::size_t most_strands,
             const MemFinder* pieces, unsigned threads);

  // Whether StrandWork(set, 0, set.size(), .., &finder, threads) cuts a strand into pieces.
  static bool cuts(const StrandSet& set, const MemFinder& finder, unsigned threads);

  std::size_t size() const { return units_.size(); }
  // Whether a strand was cut into pieces (a GPU cannot take those).
  bool has_pieces() const { return !runs_.empty(); }
  const Unit& operator[](std::size_t unit) const { return units_[unit]; }
  // Matches the pieces among units [first, end) on `threads` threads; returns their letters.
  // Several threads may call it at once, each for other units.
  double find_pieces(std::size_t first, std::size_t end, unsigned threads);
  // Appends each strand cut into pieces to `found` as one strand's matches, in order and with
  // -mum's rule applied over the whole strand, taking the memory from `make()` (an empty piece);
  // the strands are put together on `threads` threads, each strand on one.
  template <typename Make>
  void gather_pieces(std::vector<StrandMatches>& found, Make&& make, unsigned threads) {
    const std::vector<std::size_t> firsts = first_pieces();
    const std::size_t base = found.size();
    for (const std::size_t unit : firsts) {
      found.push_back(make());
      found.back().first = units_[unit].first_strand;
    }
    gather(firsts, std::span<StrandMatches>(found).subspan(base), threads);
  }

 private:
  // A seed's look-up, in occurrences extended: a table look-up and a search among its rows.
  static constexpr double kLookUpCost = 8;
  static double seed_cost(const MemFinder::Seed& seed) { return kLookUpCost + seed.rows.size(); }
  static std::size_t unit_letters(const StrandSet& set, std::size_t first, std::size_t count, unsigned threads);
  static std::vector<std::size_t> strands_to_cut(const StrandSet& set, std::size_t first, std::size_t count,
                                                 std::size_t unit_letters, bool weigh);
  std::size_t letters_of(std::size_t strand) const { return set_.starts[strand + 1] - set_.starts[strand]; }
  void look_up_seeds(const std::vector<std::size_t>& split, unsigned threads);
  double most_cost_per_piece(const std::vector<std::size_t>& split) const;
  void add_whole(std::size_t strand, std::size_t letters, std::size_t most_strands, std::size_t& unit_letters);
  void add_pieces(std::size_t strand, std::size_t k);
  void add_weighed_pieces(std::size_t strand, std::size_t k, double most_cost);
  void find_piece(std::size_t unit);
  std::vector<std::size_t> first_pieces() const;
  void gather(const std::vector<std::size_t>& firsts, std::span<StrandMatches> out, unsigned threads);
  void gather_strand(std::size_t unit, StrandMatches& out);

  StrandSet set_;
  const MemFinder* finder_;
  bool weigh_;  // -maxmatch: strands over kLeastLetters are cut by their seeds' rows
  std::size_t unit_letters_;  // letters a unit holds at most (a longer strand: a unit alone, or pieces)
  std::vector<Unit> units_;
  std::vector<index::PeriodicRuns> runs_;            // per strand cut into pieces
  std::vector<std::vector<MemFinder::Seed>> seeds_;  // per strand cut into pieces, under -maxmatch
  std::vector<std::vector<MemMatch>> piece_matches_;  // by unit, written by the unit's worker
};

// The matches of strands [first, first + count) with `finder` on `threads` threads, long strands
// in pieces, appended to `out` (whose `first` the caller set): the CPU's share of a GPU kernel's
// work, where the CPU has no workers of its own.
void find_on_cpu_in_parallel(const MemFinder& finder, const StrandSet& strands, std::size_t first, std::size_t count,
                             unsigned threads, StrandMatches& out);

}  // namespace hyalign::kernels

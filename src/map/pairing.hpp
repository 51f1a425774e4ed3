#pragma once
// Pairs: the insert-size distribution of a batch, mate rescue (the other end searched for near
// each good placement of one end, with a wide band) and the choice of the two ends' placements: the
// pair whose scores plus the insert size's log-likelihood is best, or both ends unpaired when that
// scores more than the unpaired penalty better. Only the FR orientation (Illumina's) pairs.
#include <cstdint>
#include <span>
#include <vector>

#include "index/reference_text.hpp"
#include "map/end_mapping.hpp"

namespace hyalign::map {

struct InsertSizes {
  bool known = false;
  double mean = 0, sd = 0;
  std::int64_t low = 0, high = 0;  // proper pairs' insert sizes
  bool proper(std::int64_t size) const { return size >= low && size <= high; }
  std::size_t pairs = 0;           // pairs the estimate came from
};

// Pairs further apart are not counted in the estimate (BWA-MEM's bound): Hi-C, chimeric and other
// libraries whose ends lie anywhere would give a distribution of millions of letters, every pair
// proper, and mate-rescue windows as wide.
inline constexpr std::int64_t kMaxEstimatedInsert = 10000;

// From the batch's FR pairs whose ends are placed once each with confidence, at most
// kMaxEstimatedInsert apart, with IQR outliers left out. Falls back to `previous` when fewer than a
// few dozen pairs qualify, or when they are a small share of the confidently placed pairs.
InsertSizes estimate_insert_sizes(std::span<const EndResult> ends, const InsertSizes& previous);

// The given distribution (-I).
InsertSizes given_insert_sizes(double mean, double sd);

// The insert size of an FR pair (the forward end's first letter to the reverse end's last), 0
// when the two are not an FR pair on one sequence.
std::int64_t fr_insert_size(const Placement& a, const Placement& b);

// A search for one end near a placement of the other, queued on a LocusAligner.
struct RescueTask {
  std::size_t task = 0;
  bool reverse = false;  // the strand of the end searched for
};

// Queues a search for the mate (`mate_letters`, placed as `mate`) near each good placement of
// `anchor` that has no placement of the mate within the insert-size range.
void queue_rescues(const EndResult& anchor, std::int32_t anchor_length, const EndLetters& mate_letters,
                   const EndResult& mate, const InsertSizes& sizes, const index::ReferenceText& reference,
                   const MapParams& params, LocusAligner& aligner, std::vector<RescueTask>& tasks);

// After aligner.score_all(): adds the placements the rescues found to `mate` and chooses its
// placements again (`read_number` as sort_placements takes it).
void add_rescued(std::span<const RescueTask> tasks, const LocusAligner& aligner, std::int32_t read_length,
                 std::uint64_t read_number, const MapParams& params, EndResult& mate);

// Whether the ends' primaries make a proper pair: FR on one sequence, the insert size in range.
bool proper_pair(const EndResult& first, const EndResult& second, const InsertSizes& sizes);

// The pair's choice: sets each end's primary (the pair's placement when paired) and its MAPQ;
// returns whether the pair is proper. Pairs that score alike are chosen between as BWA-MEM does
// (sort_placements says why), from `pair_number`, the pair's ordinal in the input.
bool choose_pair(EndResult& first, EndResult& second, std::int32_t length1, std::int32_t length2,
                 const InsertSizes& sizes, const MapParams& params, std::uint64_t pair_number);

}  // namespace hyalign::map

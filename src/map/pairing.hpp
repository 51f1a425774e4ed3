#pragma once
// Pairs: the insert-size distribution of a batch, mate rescue (the other end searched for near
// each good placement of one end, with a wide band) and the choice of the two ends' placements: the
// pair whose scores plus the insert size's log-likelihood is best, or both ends unpaired when that
// scores more than the unpaired penalty better. Each orientation of the ends (FR for Illumina's
// paired ends, RF for mate-pair libraries, FF and RR) has its own distribution, estimated where
// enough of a batch's pairs have it, as BWA-MEM's are.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
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

// How the first end's placement and the second's lie (BWA-MEM's directions): FR, the forward one's
// 5' end before the reverse one's, facing each other; RF, facing away; FF, both on one strand,
// the second after the first along that strand; RR, the second before it.
enum class Orientation : std::uint8_t { ff, fr, rf, rr };
inline constexpr std::array<std::string_view, 4> kOrientationNames{"FF", "FR", "RF", "RR"};

// The insert sizes of each orientation; -I gives FR's.
struct PairSizes {
  std::array<InsertSizes, 4> of;  // by Orientation
  bool known() const { return of[0].known || of[1].known || of[2].known || of[3].known; }
};

// A pair's orientation and its insert size: from one end's 5' letter to the other's, both counted
// (for FR, the forward end's first letter to the reverse end's last). None on two sequences.
struct PairGeometry {
  Orientation orientation = Orientation::fr;
  std::int64_t size = 0;
};
std::optional<PairGeometry> pair_geometry(const Placement& first, const Placement& second);

// Pairs further apart are not counted in the estimate (BWA-MEM's bound): Hi-C, chimeric and other
// libraries whose ends lie anywhere would give a distribution of millions of letters, every pair
// proper, and mate-rescue windows as wide.
inline constexpr std::int64_t kMaxEstimatedInsert = 10000;

// From the batch's pairs whose ends are placed once each with confidence, at most
// kMaxEstimatedInsert apart, each orientation's with IQR outliers left out; an orientation is
// estimated where a few dozen pairs have it and they are not a small share of the confidently
// placed pairs. Falls back to `previous` when no orientation is.
PairSizes estimate_insert_sizes(std::span<const EndResult> ends, const PairSizes& previous);

// The given distribution (-I), of FR pairs.
InsertSizes given_insert_sizes(double mean, double sd);
PairSizes given_fr_sizes(double mean, double sd);

// A pair's insert size and the distribution of its orientation, where that is known and the size
// in its range; else nothing.
struct ProperInsert {
  std::int64_t size = 0;
  const InsertSizes* sizes = nullptr;
};
std::optional<ProperInsert> proper_insert(const Placement& first, const Placement& second, const PairSizes& sizes);

// A search for one end near a placement of the other, queued on a LocusAligner.
struct RescueTask {
  std::size_t task = 0;
  bool reverse = false;  // the strand of the end searched for
};

// Queues a search for the mate (`mate_letters`, placed as `mate`) near each good placement of
// `anchor` (the pair's first end when `anchor_first`) that has no placement of the mate within the
// insert-size range, one for each known orientation.
void queue_rescues(const EndResult& anchor, bool anchor_first, std::int32_t anchor_length, const EndLetters& mate_letters,
                   const EndResult& mate, const PairSizes& sizes, const index::ReferenceText& reference,
                   const MapParams& params, LocusAligner& aligner, std::vector<RescueTask>& tasks);

// After aligner.score_all(): adds the placements the rescues found to `mate` and chooses its
// placements again (`read_number` as sort_placements takes it).
void add_rescued(std::span<const RescueTask> tasks, const LocusAligner& aligner, std::int32_t read_length,
                 std::uint64_t read_number, const MapParams& params, EndResult& mate);

// Whether the ends' primaries make a proper pair: in a known orientation, the insert size in range.
bool proper_pair(const EndResult& first, const EndResult& second, const PairSizes& sizes);

// The pair's choice: sets each end's primary (the pair's placement when paired) and its MAPQ;
// returns whether the pair is proper. Pairs that score alike are chosen between as BWA-MEM does
// (sort_placements says why), from `pair_number`, the pair's ordinal in the input.
bool choose_pair(EndResult& first, EndResult& second, std::int32_t length1, std::int32_t length2,
                 const PairSizes& sizes, const MapParams& params, std::uint64_t pair_number);

}  // namespace hyalign::map

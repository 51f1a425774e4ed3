#pragma once
// When `map --device auto` tries its GPUs: each device maps a batch (the GPUs two, their first not
// counted) and the faster maps the rest. A batch or two on the slower device is made up for only
// by enough batches after it, so the trial needs enough left once the GPUs are ready, and reads too
// few for one do not start CUDA at all (a job that ends while CUDA starts waits for the driver's
// call in flight: docs/performance.md).
#include <cstddef>
#include <cstdint>
#include <optional>

namespace hyalign::map {

// The fewest of a rank's batches left for a trial of the GPUs.
constexpr double kBatchesWorthATrial = 6;

// Whether the share of the input read is known (not for reads from a pipe).
inline bool share_known(std::optional<double> input_read) { return input_read && *input_read > 0; }

// A rank's batches from batch `unit` on (batches counted over all `ranks`), from the share of the
// input read with batch `unit`. Where that share is unknown, the batches read so far stand for
// those left: an input that has given few is as likely to end soon as not.
inline double batches_left(std::size_t unit, std::optional<double> input_read, int ranks) {
  const double read = static_cast<double>(unit + 1);
  if (!share_known(input_read)) return read / ranks;
  return (read * (1 - *input_read) / *input_read + 1) / ranks;
}

// A rank's batches of `batch_letters` in reads of `letters` at most (none where unknown).
inline std::optional<double> batches_at_most(std::optional<std::uint64_t> letters, std::size_t batch_letters,
                                             int ranks) {
  if (!letters) return std::nullopt;
  return static_cast<double>(*letters) / static_cast<double>(batch_letters) / ranks;
}

}  // namespace hyalign::map

// The map's seed search (map/seeds.cpp) on a GPU, a thread per strand. Every step is the CPU
// search's, in the same order, so the matches are the same: the greedy scan along the strand (the
// longest match from a start, then on from the letter after it, and the search of a run's last
// min_seed letters that it would pass over); after a long match with few
// copies, the searches from every min_seed-th letter inside it for matches with one copy more; and
// after a seed, the search across its end, or after a match too short to seed, its extension
// backwards; and after the scan, the third round's searches for matches with few copies
// (kernels/seed_search.hpp).
#include "kernels/cuda/seed_cuda.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "kernels/cuda/cuda_support.cuh"
#include "kernels/cuda/suffix_search.cuh"

namespace hyalign::kernels::cuda {
namespace {

constexpr int kThreadsPerBlock = 128;

// A match of a pattern's first `length` letters and the suffix-array rows that hold it.
struct Match {
  unsigned length = 0;
  uint2 rows = {0, 0};
};

struct Pattern {
  const unsigned char* letters;
  unsigned length;
};

__device__ __forceinline__ unsigned rows_in(uint2 rows) { return rows.y > rows.x ? rows.y - rows.x : 0; }

// SeedFinder::common_prefix: letters of `p` from `from` on that equal the text from text_pos on.
__device__ unsigned text_prefix(const DeviceIndex& ix, Pattern p, unsigned long long text_pos, unsigned from) {
  const auto limit = static_cast<unsigned>(min(static_cast<unsigned long long>(p.length), ix.length - text_pos));
  if (from >= limit) return from;
  return from + common_prefix(p.letters + from, ix.text + text_pos + from, limit - from, false);
}

// SeedFinder::read_neighbours: the letters p shares with the rows around where it sorts in `rows`,
// into `shared`: every row when there are `whole` or fewer, else `around` on each side.
__device__ uint2 read_neighbours(const DeviceIndex& ix, Pattern p, uint2 rows, unsigned depth, unsigned around,
                                 unsigned whole, unsigned* shared) {
  unsigned lo = rows.x, hi = rows.y;
  if (rows_in(rows) > whole) {
    const unsigned at = insertion_row(ix, rows, p.letters, p.length, depth);
    lo = at - min(at - rows.x, around);
    hi = min(rows.y, at + around);
  }
  for (unsigned r = lo; r < hi; ++r) shared[r - lo] = text_prefix(ix, p, sa_at(ix, r), depth);
  return make_uint2(lo, hi);
}

// SeedFinder::longest_match: the longest prefix of p found at least `copies` times, given the rows
// of its first `depth` letters; with `back`, the rows a match too short to seed is extended back along.
__device__ Match longest_match(const DeviceIndex& ix, Pattern p, uint2 rows, unsigned depth, unsigned copies,
                               unsigned min_seed, BackCopies* back) {
  unsigned shared[kDirectRows];
  const unsigned around = back != nullptr ? max(copies, kScanRowsAround) : copies;
  const uint2 read = read_neighbours(ix, p, rows, depth, around, kDirectRows, shared);
  const unsigned lo = read.x, hi = read.y;
  if (back != nullptr) *back = back_copies(shared, hi - lo, lo, lo > rows.x, hi < rows.y, min_seed);
  unsigned best = 0, best_start = lo;
  for (unsigned start = lo; start + copies <= hi; ++start) {
    unsigned shortest = shared[start - lo];
    for (unsigned k = 1; k < copies; ++k) shortest = min(shortest, shared[start - lo + k]);
    if (shortest > best) best = shortest, best_start = start;
  }
  if (best < max(depth, 1u)) return {};
  if (best == depth) return {best, rows};
  if (lo != rows.x || hi != rows.y) return {best, narrow(ix, rows, p.letters, best, depth)};
  unsigned first = best_start, last = best_start + copies;
  while (first > lo && shared[first - 1 - lo] >= best) --first;
  while (last < hi && shared[last - lo] >= best) ++last;
  return {best, make_uint2(first, last)};
}

// SeedFinder::rare_match: the shortest prefix of p longer than min_seed letters with fewer than
// kRareMaxCopies copies, and its rows (maybe none), given the rows of its first `depth` letters.
__device__ Match rare_match(const DeviceIndex& ix, Pattern p, uint2 rows, unsigned depth, unsigned min_seed) {
  unsigned shared[kRareWindowRows];
  const uint2 read = read_neighbours(ix, p, rows, depth, kRareMaxCopies, kRareWindowRows, shared);
  const RareRows rare = shortest_rare_prefix(shared, read.y - read.x, min_seed + 1);
  return {rare.length, make_uint2(read.x + rare.first, read.x + rare.last)};
}

// The rows a search starts from (SeedFinder::read_rows): the prefix's bucket, the whole suffix
// array where the prefix has too few copies but a match may be shorter than it, or none.
__device__ uint2 start_rows(const DeviceIndex& ix, Pattern rest, unsigned copies, unsigned min_seed, unsigned& depth) {
  depth = 0;
  const long long code = prefix_code(ix, rest.letters, rest.length);
  if (code >= 0) {
    const uint2 bucket = __ldg(ix.buckets + code);
    if (rows_in(bucket) >= copies) {
      depth = ix.prefix_letters;
      return bucket;
    }
    if (min_seed >= ix.prefix_letters) return make_uint2(0, 0);
  }
  return make_uint2(ix.row_lo, ix.row_hi);
}

__global__ void __launch_bounds__(kThreadsPerBlock)
    search_seeds(DeviceIndex ix, SeedSearchParams params, const unsigned char* letters, const uint2* patterns,
                 std::uint32_t n, const std::uint32_t* out_at, SeedMatch* out, std::uint32_t* counts) {
  const std::uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= n) return;
  const Pattern pattern{letters + patterns[q].x, patterns[q].y};
  const std::uint32_t min_seed = params.min_seed, length = pattern.length;
  const std::uint32_t capacity = out_at[q + 1] - out_at[q];
  SeedMatch* found = out + out_at[q];
  std::uint32_t count = 0, next = 0, run_begin = 0, run_end = 0, reseed_at = 0, reseed_last = 0, reseed_copies = 0;
  std::uint32_t cross_at = 0, side_floor = 0;
  for (;;) {  // the scan
    std::uint32_t start = 0, copies = 1;
    const bool reseeding = reseed_copies > 0 && reseed_at <= reseed_last;
    const bool side_search = reseeding || cross_at > 0;
    if (reseeding) {
      start = reseed_at;
      copies = reseed_copies;
      reseed_at += min_seed;
    } else if (cross_at > 0) {
      reseed_copies = 0;
      start = cross_at;
      cross_at = 0;
    } else {
      reseed_copies = 0;
      if (!next_scan_start(pattern.letters, length, min_seed, next, run_begin, run_end)) break;
      start = next;
    }
    const Pattern rest{pattern.letters + start, run_end - start};
    std::uint32_t depth = 0;
    const uint2 rows = start_rows(ix, rest, copies, min_seed, depth);
    BackCopies back;
    const Match match = rows_in(rows) == 0
                            ? Match{}
                            : longest_match(ix, rest, rows, depth, copies, min_seed, side_search ? nullptr : &back);
    if (match.length >= min_seed) {
      if (count < capacity) found[count] = {start, match.length, match.rows.x, match.rows.y};
      ++count;
    }
    if (side_search) continue;
    if (match.length >= params.reseed_length && rows_in(match.rows) <= kReseedMaxCopies) {
      reseed_at = start;
      reseed_last = start + match.length - min_seed;
      reseed_copies = rows_in(match.rows) + 1;
    }
    cross_at = cross_search_start(start, match.length, min_seed, run_end, side_floor);
    SeedMatch extended[kBackExtendMaxCopies];
    const unsigned n = back_extended_matches(pattern.letters, start, run_begin, ix.text, back,
                                             [&](unsigned row) { return sa_at(ix, row); }, min_seed, side_floor, extended);
    for (unsigned k = 0; k < n; ++k, ++count)
      if (count < capacity) found[count] = extended[k];
    next = scan_next(start, match.length, min_seed, run_end);
  }
  for (next = run_begin = run_end = 0; next_run_start(pattern.letters, length, min_seed + 1, next, run_begin, run_end);) {
    const Pattern rest{pattern.letters + next, run_end - next};
    std::uint32_t depth = 0;
    const uint2 rows = start_rows(ix, rest, 1, min_seed, depth);
    const Match match = rows_in(rows) == 0 ? Match{min_seed + 1} : rare_match(ix, rest, rows, depth, min_seed);
    if (match.length > rest.length) {  // the run ends first
      next = run_end + 1;
      continue;
    }
    const bool family = in_large_family(match.length, min_seed);
    if (rows_in(match.rows) > 0 || family) {
      if (count < capacity) found[count] = {next, match.length, match.rows.x, match.rows.y, 0, family};
      ++count;
    }
    next += match.length;
  }
  counts[q] = count;
}

// At most this many matches of a strand of `length` letters: the scan's matches each take
// min_seed + 1 letters but the last; the searches of a run's last min_seed letters are one a run of
// min_seed letters or more; the searches across their ends (a match each) and the backward
// extensions (kBackExtendMaxCopies each) begin half a seed apart or more; and the searches inside
// a match of L letters number at most L / min_seed; the third round's matches take more than
// min_seed letters each.
std::uint32_t most_matches(std::uint32_t length, std::uint32_t min_seed) {
  return (4 + 2 * kBackExtendMaxCopies) * length / min_seed + 3 + kBackExtendMaxCopies;
}

class GpuSeedSearcher final : public SeedGpuSearcher {
 public:
  GpuSeedSearcher(int device, const DeviceIndex& index, SeedSearchParams params, std::atomic<double>& device_seconds)
      : device_(current_device(device)), index_(index), params_(params), device_seconds_(device_seconds) {}

  void find(std::span<const std::string_view> patterns, std::vector<SeedMatch>& matches,
            std::vector<std::uint32_t>& ends) override {
    matches.clear();
    ends.assign(patterns.size(), 0);
    if (patterns.empty()) return;
    check(cudaSetDevice(device_), "cudaSetDevice");
    const auto n = static_cast<std::uint32_t>(patterns.size());
    pack(patterns);
    check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    search_seeds<<<(n + kThreadsPerBlock - 1) / kThreadsPerBlock, kThreadsPerBlock, 0, stream_>>>(
        index_, params_, letters_dev_.ptr, patterns_dev_.ptr, n, out_at_dev_.ptr, out_dev_.ptr, counts_dev_.ptr);
    check(cudaGetLastError(), "seed search launch");
    check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    counts_host_.reserve(n);
    out_host_.reserve(out_at_.back());
    check(cudaMemcpyAsync(counts_host_.ptr, counts_dev_.ptr, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream_),
          "download");
    check(cudaMemcpyAsync(out_host_.ptr, out_dev_.ptr, out_at_.back() * sizeof(SeedMatch), cudaMemcpyDeviceToHost,
                          stream_),
          "download");
    check(cudaStreamSynchronize(stream_), "seed search");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    device_seconds_.fetch_add(ms / 1000.0);
    for (std::uint32_t q = 0; q < n; ++q) {
      const std::uint32_t count = counts_host_.ptr[q];
      if (count > out_at_[q + 1] - out_at_[q]) throw std::runtime_error("GPU seed search: more matches than bounded");
      matches.insert(matches.end(), out_host_.ptr + out_at_[q], out_host_.ptr + out_at_[q] + count);
      ends[q] = static_cast<std::uint32_t>(matches.size());
    }
  }

 private:
  // The patterns' letters back to back, each one's place and length, and where its matches go.
  void pack(std::span<const std::string_view> patterns) {
    std::size_t letters = 0;
    for (std::string_view p : patterns) letters += p.size();
    letters_host_.reserve(std::max<std::size_t>(letters, 1));
    places_.resize(patterns.size());
    out_at_.assign(patterns.size() + 1, 0);
    std::size_t at = 0;
    for (std::size_t q = 0; q < patterns.size(); ++q) {
      std::copy(patterns[q].begin(), patterns[q].end(), letters_host_.ptr + at);
      places_[q] = {static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(patterns[q].size())};
      at += patterns[q].size();
      out_at_[q + 1] = out_at_[q] + most_matches(places_[q].y, std::max(1u, params_.min_seed));
    }
    letters_dev_.reserve(letters + kLetterPadding);
    patterns_dev_.reserve(places_.size());
    out_at_dev_.reserve(out_at_.size());
    out_dev_.reserve(out_at_.back());
    counts_dev_.reserve(places_.size());
    check(cudaMemcpyAsync(letters_dev_.ptr, letters_host_.ptr, letters, cudaMemcpyHostToDevice, stream_), "upload");
    check(cudaMemcpyAsync(patterns_dev_.ptr, places_.data(), places_.size() * sizeof(uint2), cudaMemcpyHostToDevice,
                          stream_),
          "upload");
    check(cudaMemcpyAsync(out_at_dev_.ptr, out_at_.data(), out_at_.size() * sizeof(std::uint32_t),
                          cudaMemcpyHostToDevice, stream_),
          "upload");
  }

  int device_;
  DeviceIndex index_;
  SeedSearchParams params_;
  std::atomic<double>& device_seconds_;
  Stream stream_;
  Event start_, stop_;
  std::vector<uint2> places_;
  std::vector<std::uint32_t> out_at_;
  PinnedBuffer<unsigned char> letters_host_;
  PinnedBuffer<std::uint32_t> counts_host_;
  PinnedBuffer<SeedMatch> out_host_;
  DeviceBuffer<unsigned char> letters_dev_;
  DeviceBuffer<uint2> patterns_dev_;
  DeviceBuffer<std::uint32_t> out_at_dev_, counts_dev_;
  DeviceBuffer<SeedMatch> out_dev_;
};

class GpuSeedKernel final : public SeedGpuKernel {
 public:
  GpuSeedKernel(int device, const index::SuffixIndex& index, SeedSearchParams params)
      : device_(current_device(device)), params_(params) {
    const std::string_view text = index.text();
    text_.reserve(text.size() + kLetterPadding);
    check(cudaMemcpy(text_.ptr, text.data(), text.size(), cudaMemcpyHostToDevice), "upload");
    check(cudaMemset(text_.ptr + text.size(), 0, kLetterPadding), "cudaMemset");
    const auto sa = index.suffix_array();
    sa_.upload(sa.data(), sa.size());
    const auto buckets = index.buckets();
    std::vector<uint2> packed(buckets.size());
    for (std::size_t b = 0; b < buckets.size(); ++b) packed[b] = {buckets[b].lo, buckets[b].hi};
    buckets_.upload(packed);
    index_ = {text_.ptr, text.size(), sa_.ptr, 0, static_cast<unsigned>(sa.size()), buckets_.ptr,
              index.prefix_letters()};
  }

  std::unique_ptr<SeedGpuSearcher> make_searcher() const override {
    return std::make_unique<GpuSeedSearcher>(device_, index_, params_, device_seconds_);
  }
  double device_seconds() const override { return device_seconds_.load(); }

 private:
  int device_;
  SeedSearchParams params_;
  DeviceBuffer<unsigned char> text_;
  DeviceBuffer<std::uint32_t> sa_;
  DeviceBuffer<uint2> buckets_;
  DeviceIndex index_{};
  mutable std::atomic<double> device_seconds_{0};
};

}  // namespace

std::unique_ptr<SeedGpuKernel> make_seed_gpu_kernel(int device, const index::SuffixIndex& index,
                                                    SeedSearchParams params) {
  return std::make_unique<GpuSeedKernel>(device, index, params);
}

}  // namespace hyalign::kernels::cuda

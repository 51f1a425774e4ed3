// Host side of the PaPaRa CUDA kernels (papara_cuda_kernel.cuh): the column words of the branches on
// each GPU, the choice of kernel per query (16x2 or 32-bit lanes, rows per lane, stripes), and
// tiles scored in slices whose results fit a fixed buffer on two alternating streams.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <mutex>
#include <utility>

#include "engine/devices.hpp"
#include "kernels/cuda/cuda_support.cuh"
#include "kernels/cuda/papara_cuda.hpp"
#include "kernels/cuda/papara_cuda_kernel.cuh"
#include "kernels/papara_encoding.hpp"

namespace hyalign::kernels::cuda {
namespace {

constexpr long long kScoreLimit = 15000;  // 16-bit lanes: keeps real scores clear of the sentinel
constexpr std::size_t kRowKinds = kMaxRowsPerLane / kRowStep;
constexpr std::size_t kStripeRows = 32 * kMaxRowsPerLane;

// Which kernel scores a query: lane format, single stripe or striped, rows per lane.
struct KernelKey {
  bool wide = false;     // 32-bit lanes, one branch per warp
  bool striped = false;  // more than one stripe of 32 R rows
  std::size_t rows = 0;  // index into the row kinds: R = (rows + 1) * kRowStep
  std::size_t index() const { return ((wide ? 2 : 0) + (striped ? 1 : 0)) * kRowKinds + rows; }
  static KernelKey of_index(std::size_t i) { return {i / kRowKinds >= 2, (i / kRowKinds) % 2 == 1, i % kRowKinds}; }
};
constexpr std::size_t kKernelKinds = 4 * kRowKinds;
constexpr std::uint8_t kNoKernel = kKernelKinds;  // an empty query (or reference): scores 0
static_assert(kKernelKinds < 255);

// 16x2 lanes are exact for scorings whose padding rows stay at S = 0 and whose values provably fit.
bool pair16_scoring(const PaparaScoring& sc) {
  return sc.gap_open <= 0 && sc.gap_extend <= 0 && sc.match_cgap <= 0 && sc.match >= 0;
}

// The kernel of each query (its KernelKey index), or kNoKernel.
std::vector<std::uint8_t> kernel_of_queries(const PaparaProblem& problem) {
  const std::size_t columns = problem.targets.columns;
  std::vector<std::uint8_t> kinds(problem.queries->size(), kNoKernel);
  for (std::size_t q = 0; q < kinds.size(); ++q) {
    const std::size_t m = problem.queries->length(q);
    if (m == 0 || columns == 0) continue;
    const std::size_t stripes = (m + kStripeRows - 1) / kStripeRows;
    const std::size_t rows_per_lane = (m + 32 * stripes - 1) / (32 * stripes);
    const KernelKey key{!pair16_scoring(problem.scoring) || !fits_int16(m, columns, problem.scoring, kScoreLimit),
                        stripes > 1, (rows_per_lane + kRowStep - 1) / kRowStep - 1};
    kinds[q] = static_cast<std::uint8_t>(key.index());
  }
  return kinds;
}

template <class Columns, class Score>
using KernelFn = void (*)(KernelArgs<Columns, Score>);

template <class Lanes, class Columns, bool kStriped, int... Rs>
constexpr std::array<KernelFn<Columns, typename Lanes::Score>, sizeof...(Rs)> row_kernels(
    std::integer_sequence<int, Rs...>) {
  return {&papara_score_kernel<Lanes, Columns, (Rs + 1) * kRowStep, kStriped>...};
}
template <class Lanes, class Columns, bool kStriped>
constexpr auto kRowKernels = row_kernels<Lanes, Columns, kStriped>(std::make_integer_sequence<int, kRowKinds>());

// Column words of every branch pair (pair-major), in the encoding's layout.
template <class Columns>
std::vector<typename Columns::Word> column_words(const PaparaProblem& problem);

// Per branch and column: bit s when its state set meets residue set s, and the gap signal.
template <class Visit>
void for_each_branch_column(const PaparaProblem& problem, Visit visit) {
  const auto& sets = problem.alphabet->residue_sets();
  for (std::size_t b = 0; b < problem.targets.count; ++b) {
    const BranchView branch = problem.targets.branch(b);
    for (std::size_t c = 0; c < problem.targets.columns; ++c) {
      unsigned bits = 0;
      for (std::size_t s = 0; s < sets.size(); ++s)
        if (branch.states[c] & sets[s]) bits |= 1u << s;
      visit(b, c, bits, branch.cgap[c] != 0);
    }
  }
}

template <>
std::vector<unsigned> column_words<DnaColumns>(const PaparaProblem& problem) {
  const std::size_t columns = problem.targets.columns;
  std::vector<unsigned> words((problem.targets.count + 1) / 2 * columns, 0);
  for_each_branch_column(problem, [&](std::size_t b, std::size_t c, unsigned bits, bool gap) {
    words[(b / 2) * columns + c] |= (bits | (gap ? 1u << DnaColumns::kGapBit : 0u)) << (16 * (b % 2));
  });
  return words;
}

template <>
std::vector<uint2> column_words<ProteinColumns>(const PaparaProblem& problem) {
  const std::size_t columns = problem.targets.columns;
  std::vector<uint2> words((problem.targets.count + 1) / 2 * columns, make_uint2(0, 0));
  for_each_branch_column(problem, [&](std::size_t b, std::size_t c, unsigned bits, bool gap) {
    uint2& w = words[(b / 2) * columns + c];
    const unsigned gap_bit = gap ? 1u << ProteinColumns::kGapBit : 0u;
    if (b % 2 == 0) w.x = bits | gap_bit;
    else w.y = std::rotl(bits | gap_bit, 16);
  });
  return words;
}

struct Scorings {
  DeviceScoring<unsigned> pair16;
  DeviceScoring<int> single32;
};

template <class Columns>
class GpuKernel;

// Scores tiles in slices of queries whose results fit a fixed device buffer, alternating two
// streams: while the GPU computes one slice, the previous slice's results travel back and are folded
// into the sink by this thread.
template <class Columns>
class GpuScorer final : public PaparaBlockScorer {
 public:
  explicit GpuScorer(const GpuKernel<Columns>& kernel) : kernel_(kernel), device_(current_device(kernel.device_)) {
    check(cudaEventRecord(origin_, slots_[0].stream), "event");
  }
  void score_tile(const engine::WorkTile& tile, engine::ScoreSink& sink) override;

 private:
  struct Slot {
    Stream stream;
    Event start, stop;
    DeviceBuffer<int> query_ids, results;
    DeviceBuffer<uint2> bottom_rows;  // striped kernels' rows between stripes
    PinnedBuffer<int> host_ids, host_results;
    std::size_t queries = 0;  // queries of the slice in flight, 0 when idle
  };
  // Where one tile's branches lie: pairs for 16x2 kernels, branches for 32-bit ones.
  struct TileSpan {
    std::size_t first_target, end_target, first_pair, pair_count;
  };
  void launch(Slot& slot, const std::vector<int>& ids, const std::vector<std::size_t>& kind_of, std::size_t begin,
              std::size_t end, const TileSpan& span);
  template <class Lanes>
  void launch_kind(Slot& slot, KernelKey key, std::size_t first_slot, std::size_t queries, const TileSpan& span);
  void finish(Slot& slot, const TileSpan& span, engine::ScoreSink& sink);
  std::size_t striped_warps_per_launch() const {
    const std::size_t warp_bytes = 2 * kernel_.problem_.targets.columns * sizeof(uint2);
    return std::max(kMinStripedWarps, kBottomRowBudgetBytes / warp_bytes);
  }

  static constexpr std::size_t kResultBudgetBytes = std::size_t{256} << 20;    // per slot
  static constexpr std::size_t kBottomRowBudgetBytes = std::size_t{256} << 20;  // per slot
  static constexpr std::size_t kMinStripedWarps = 1056;  // enough warps in flight to fill an H100
  static constexpr std::size_t kMinWarpsPerSlice = 8 * kMinStripedWarps;
  static constexpr std::size_t kSlicesPerTake = 8;
  const GpuKernel<Columns>& kernel_;
  int device_;  // made current before the slots' streams and events are created
  Slot slots_[2];
  // Kernel time is the union of the slices' kernel intervals, measured from origin_: the two
  // streams' kernels overlap, so summing each slice's interval would count the overlap twice.
  Event origin_;
  float kernels_end_ms_ = 0;
};

template <class Columns>
class GpuKernel final : public PaparaKernel {
 public:
  GpuKernel(int device, const PaparaProblem& problem) : device_(device), problem_(problem) {
    name_ = engine::use_gpu(device);
    const EncodedQueries encoded = encode_queries(problem);
    kernel_of_query_ = kernel_of_queries(problem);
    std::vector<unsigned long long> offsets(encoded.symbols.offsets.begin(), encoded.symbols.offsets.end());
    symbols_.upload(encoded.symbols.residues);
    offsets_.upload(offsets);
    columns_.upload(column_words<Columns>(problem));
    const PaparaScoring& sc = problem.scoring;
    scorings_.pair16 = {pack_s16x2(sc.gap_open), pack_s16x2(sc.gap_extend), pack_s16x2(sc.match_cgap),
                        static_cast<unsigned>(sc.match)};
    scorings_.single32 = {sc.gap_open, sc.gap_extend, sc.match_cgap, sc.match};
  }

  std::size_t block_width() const override { return 32; }
  std::string_view name() const override { return name_; }
  std::unique_ptr<PaparaBlockScorer> make_scorer() const override {
    return std::make_unique<GpuScorer<Columns>>(*this);
  }
  double device_seconds() const override {
    std::lock_guard lock(stats_mutex_);
    return kernel_seconds_;
  }

  int device_ = 0;
  const PaparaProblem& problem_;
  std::string name_;
  std::vector<std::uint8_t> kernel_of_query_;
  DeviceBuffer<unsigned char> symbols_;
  DeviceBuffer<unsigned long long> offsets_;
  DeviceBuffer<typename Columns::Word> columns_;
  Scorings scorings_{};
  mutable std::mutex stats_mutex_;
  mutable double kernel_seconds_ = 0;
};

template <class Columns>
template <class Lanes>
void GpuScorer<Columns>::launch_kind(Slot& slot, KernelKey key, std::size_t first_slot, std::size_t queries,
                                     const TileSpan& span) {
  using Score = typename Lanes::Score;
  const bool wide = Lanes::kBranches == 1;
  KernelArgs<Columns, Score> args{};
  args.columns = kernel_.columns_.ptr;
  args.column_count = static_cast<int>(kernel_.problem_.targets.columns);
  args.first_item = static_cast<int>(wide ? span.first_target : span.first_pair);
  args.items = static_cast<int>(wide ? span.end_target - span.first_target : span.pair_count);
  args.symbols = kernel_.symbols_.ptr;
  args.offsets = kernel_.offsets_.ptr;
  args.query_ids = slot.query_ids.ptr + first_slot;
  if constexpr (Lanes::kBranches == 2) args.scoring = kernel_.scorings_.pair16;
  else args.scoring = kernel_.scorings_.single32;
  args.out_stride = static_cast<int>(2 * span.pair_count);
  args.out = slot.results.ptr + first_slot * args.out_stride;
  args.out_base = static_cast<int>(2 * span.first_pair);

  const auto kernel = (key.striped ? kRowKernels<Lanes, Columns, true> : kRowKernels<Lanes, Columns, false>)[key.rows];
  const long long total = static_cast<long long>(queries) * args.items;
  // Striped kernels keep a buffer of bottom rows per warp: launches of at most what it holds.
  const long long per_launch = key.striped ? std::min(static_cast<long long>(striped_warps_per_launch()), total) : total;
  args.bottom_rows = slot.bottom_rows.ptr;
  for (long long first = 0; first < total; first += per_launch) {
    args.first_warp = first;
    args.warps = std::min(per_launch, total - first);
    const unsigned blocks = static_cast<unsigned>((args.warps + kWarpsPerBlock - 1) / kWarpsPerBlock);
    kernel<<<blocks, 32 * kWarpsPerBlock, 0, slot.stream>>>(args);
    check(cudaGetLastError(), "kernel launch");
  }
}

template <class Columns>
void GpuScorer<Columns>::launch(Slot& slot, const std::vector<int>& ids, const std::vector<std::size_t>& kind_of,
                                std::size_t begin, std::size_t end, const TileSpan& span) {
  const std::size_t n = end - begin, stride = 2 * span.pair_count;
  slot.host_ids.reserve(n);
  slot.query_ids.reserve(n);
  slot.results.reserve(n * stride);
  slot.host_results.reserve(n * stride);
  std::copy(ids.begin() + static_cast<std::ptrdiff_t>(begin), ids.begin() + static_cast<std::ptrdiff_t>(end),
            slot.host_ids.ptr);
  check(cudaMemcpyAsync(slot.query_ids.ptr, slot.host_ids.ptr, n * sizeof(int), cudaMemcpyHostToDevice, slot.stream),
        "ids");
  // Sized before any launch: growing it later would free memory that queued kernels use.
  if (std::any_of(kind_of.begin() + static_cast<std::ptrdiff_t>(begin), kind_of.begin() + static_cast<std::ptrdiff_t>(end),
                  [](std::size_t kind) { return KernelKey::of_index(kind).striped; }))
    slot.bottom_rows.reserve(striped_warps_per_launch() * 2 * kernel_.problem_.targets.columns);
  check(cudaEventRecord(slot.start, slot.stream), "event");
  // One launch (or a few, for striped kernels) per run of queries of the same kernel.
  for (std::size_t a = begin; a < end;) {
    std::size_t b = a;
    while (b < end && kind_of[b] == kind_of[a]) ++b;
    const KernelKey key = KernelKey::of_index(kind_of[a]);
    if (key.wide) launch_kind<Single32>(slot, key, a - begin, b - a, span);
    else launch_kind<Pair16>(slot, key, a - begin, b - a, span);
    a = b;
  }
  check(cudaEventRecord(slot.stop, slot.stream), "event");
  check(cudaMemcpyAsync(slot.host_results.ptr, slot.results.ptr, n * stride * sizeof(int), cudaMemcpyDeviceToHost,
                        slot.stream),
        "results");
  slot.queries = n;
}

template <class Columns>
void GpuScorer<Columns>::finish(Slot& slot, const TileSpan& span, engine::ScoreSink& sink) {
  if (slot.queries == 0) return;
  check(cudaStreamSynchronize(slot.stream), "cudaStreamSynchronize");  // blocking sync: the thread sleeps
  float start_ms = 0, stop_ms = 0;
  check(cudaEventElapsedTime(&start_ms, origin_, slot.start), "cudaEventElapsedTime");
  check(cudaEventElapsedTime(&stop_ms, origin_, slot.stop), "cudaEventElapsedTime");
  const float busy_ms = std::max(0.0f, stop_ms - std::max(start_ms, kernels_end_ms_));
  kernels_end_ms_ = std::max(kernels_end_ms_, stop_ms);
  {
    std::lock_guard lock(kernel_.stats_mutex_);
    kernel_.kernel_seconds_ += busy_ms / 1000.0;
  }
  const std::size_t stride = 2 * span.pair_count;
  for (std::size_t k = 0; k < slot.queries; ++k) {
    const int* row = slot.host_results.ptr + k * stride;
    const std::size_t q = static_cast<std::size_t>(slot.host_ids.ptr[k]);
    sink.offer_row(q, row + (span.first_target - 2 * span.first_pair), span.first_target,
                   span.end_target - span.first_target);
  }
  slot.queries = 0;
}

template <class Columns>
void GpuScorer<Columns>::score_tile(const engine::WorkTile& tile, engine::ScoreSink& sink) {
  TileSpan span{tile.first_target, tile.first_target + tile.target_count, tile.first_target / 2, 0};
  span.pair_count = (span.end_target + 1) / 2 - span.first_pair;

  // Queries grouped by kernel; an empty query (or reference) scores 0 against every branch.
  std::vector<std::vector<int>> kinds(kKernelKinds);
  for (std::size_t q = tile.first_query; q < tile.first_query + tile.query_count; ++q) {
    const std::uint8_t kind = kernel_.kernel_of_query_[q];
    if (kind == kNoKernel) {
      for (std::size_t b = span.first_target; b < span.end_target; ++b) sink.offer(q, 0, b);
      continue;
    }
    kinds[kind].push_back(static_cast<int>(q));
  }
  std::vector<int> ids;
  std::vector<std::size_t> kind_of;
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    ids.insert(ids.end(), kinds[k].begin(), kinds[k].end());
    kind_of.insert(kind_of.end(), kinds[k].size(), k);
  }
  check(cudaSetDevice(kernel_.device_), "cudaSetDevice");
  // Slices small enough that the host folds one while the GPU scores the next (a take in one slice
  // leaves the GPU idle while its rows are folded), big enough to fill the GPU, and within the
  // result buffer.
  const std::size_t most = std::max<std::size_t>(1, kResultBudgetBytes / (2 * span.pair_count * sizeof(int)));
  const std::size_t least = (kMinWarpsPerSlice + span.pair_count - 1) / span.pair_count;
  const std::size_t slice = std::min(most, std::max(least, (ids.size() + kSlicesPerTake - 1) / kSlicesPerTake));
  std::size_t next_slot = 0;
  for (std::size_t begin = 0; begin < ids.size(); begin += slice) {
    Slot& slot = slots_[next_slot];
    finish(slot, span, sink);  // the slice launched two steps ago
    launch(slot, ids, kind_of, begin, std::min(ids.size(), begin + slice), span);
    next_slot ^= 1;
  }
  finish(slots_[next_slot], span, sink);
  finish(slots_[next_slot ^ 1], span, sink);
}

}  // namespace

std::string gpu_unsupported_reason(const PaparaProblem& problem) {
  if (problem.alphabet->residue_sets().size() > ProteinColumns::kMaxSymbols)
    return "the GPU kernel handles alphabets of up to 30 residue sets";
  return "";
}

std::unique_ptr<PaparaKernel> make_papara_gpu_kernel(int device, const PaparaProblem& problem) {
  if (!gpu_unsupported_reason(problem).empty()) return nullptr;
  if (problem.alphabet->residue_sets().size() <= DnaColumns::kMaxSymbols)
    return std::make_unique<GpuKernel<DnaColumns>>(device, problem);
  return std::make_unique<GpuKernel<ProteinColumns>>(device, problem);
}

}  // namespace hyalign::kernels::cuda

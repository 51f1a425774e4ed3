// CUDA kernel for maximal exact matches: the CPU finder's method (kernels/mem_cpu.cpp), one thread
// per work item, with the index (text, suffix array, prefix table) resident in device memory.
//
// A work item is up to kSeedsPerItem consecutive seeds of one strand, so a 150-letter read is one
// item and a chromosome many. A thread looks its seeds up (prefix table, then binary search in the
// suffix array), extends every occurrence both ways and keeps what the CPU finder keeps (the same
// uniqueness by dominance, the same per-position search for seeds with many occurrences). It
// sorts its matches, applies -mum's rule when the item is the whole strand, and packs them into
// one result array. An item with more than kMatchesPerItem matches is marked and its strand found
// again on the CPU, so no output depends on a capacity.
//
// The work is memory-latency bound (every seed is a few dependent random reads of the index), so
// throughput comes from many threads in flight; slices of a take alternate between two streams so
// that the host packs one slice's results while the GPU works on the next.
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "engine/devices.hpp"
#include "kernels/cuda/cuda_support.cuh"
#include "kernels/cuda/mem_cuda.hpp"

namespace hyalign::kernels::cuda {
namespace {

constexpr unsigned kSeedsPerItem = 32;
constexpr unsigned kMatchesPerItem = 32;
constexpr unsigned kMostOccurrencesToExtend = 64;  // as the CPU finder
constexpr unsigned kThreadsPerBlock = 128;
constexpr std::size_t kItemsPerSlice = std::size_t{1} << 19;
constexpr std::size_t kLettersPerSlice = std::size_t{1} << 27;

struct Item {
  unsigned strand;      // within the slice
  unsigned first_seed;  // seed j starts at query position j * seed_step
  unsigned seeds;
  unsigned whole;       // 1: the strand's only item
};

struct DeviceIndex {
  const unsigned char* text;
  unsigned long long length;
  const unsigned* sa;
  const uint2* buckets;  // SaInterval {lo, hi} per prefix code
  unsigned prefix_letters;
};

struct DeviceParams {
  int kind;  // MemKind
  unsigned min_length, seed_length, seed_step;
  bool bases_only;
};

struct SliceView {
  const unsigned char* letters;
  const unsigned long long* starts;
  const Item* items;
  unsigned item_count;
  MemMatch* slots;                // kMatchesPerItem per item
  unsigned char* overflowed;      // per item: more matches than a slot holds
  unsigned long long* counts;     // per item
  unsigned long long* offsets;    // per item: exclusive prefix sum of the counts
  MemMatch* packed;               // every item's matches, in item order
};

__device__ __forceinline__ int base_code(unsigned char c) { return index::base_code(static_cast<char>(c)); }

class ItemFinder {
 public:
  // Keeps the first `capacity` matches in `out` (none when it is null: counting only).
  __device__ ItemFinder(const DeviceIndex& ix, const DeviceParams& p, const unsigned char* query, unsigned length,
                        MemMatch* out, unsigned long long capacity)
      : ix_(ix), p_(p), q_(query), qlen_(length), out_(out), capacity_(capacity) {}

  __device__ unsigned long long count() const { return count_; }
  __device__ bool full() const { return count_ > capacity_; }

  // Every seed of `item`, until the matches overflow the capacity.
  __device__ void seeds(const Item& item) {
    for (unsigned j = item.first_seed; j < item.first_seed + item.seeds && !full(); ++j) seed(j * p_.seed_step);
  }

  __device__ void seed(unsigned pos) {
    const unsigned k = p_.seed_length;
    if (p_.bases_only)
      for (unsigned i = 0; i < k; ++i)
        if (base_code(q_[pos + i]) < 0) return;
    const uint2 rows = find_rows(q_ + pos, k);
    if (rows.y <= rows.x) return;
    if (p_.kind != static_cast<int>(MemKind::maxmatch) && rows.y - rows.x > kMostOccurrencesToExtend) {
      for (unsigned at = pos + 1 >= p_.seed_step ? pos + 1 - p_.seed_step : 0; at <= pos && !full(); ++at)
        unique_at(at);
      return;
    }
    if (p_.kind == static_cast<int>(MemKind::maxmatch)) {
      for (unsigned row = rows.x; row < rows.y && !full(); ++row) {
        const unsigned long long t = __ldg(ix_.sa + row);
        const unsigned left = extend_left(pos, t, p_.seed_step);
        if (left >= p_.seed_step) continue;
        const unsigned length = left + k + extend_right(q_, qlen_, pos + k, t + k);
        if (length >= p_.min_length) emit(t - left, pos - left, length);
      }
      return;
    }
    unsigned lefts[kMostOccurrencesToExtend], rights[kMostOccurrencesToExtend];
    const unsigned n = rows.y - rows.x;
    for (unsigned i = 0; i < n; ++i) {
      const unsigned long long t = __ldg(ix_.sa + rows.x + i);
      lefts[i] = extend_left(pos, t, p_.seed_step);
      rights[i] = k + extend_right(q_, qlen_, pos + k, t + k);
    }
    for (unsigned i = 0; i < n && !full(); ++i) {
      if (lefts[i] >= p_.seed_step || lefts[i] + rights[i] < p_.min_length) continue;
      bool dominated = false;  // another occurrence reaching as far both ways: not unique
      for (unsigned j = 0; j < n && !dominated; ++j) dominated = j != i && lefts[j] >= lefts[i] && rights[j] >= rights[i];
      if (!dominated) emit(__ldg(ix_.sa + rows.x + i) - lefts[i], pos - lefts[i], lefts[i] + rights[i]);
    }
  }

  // Sorts the matches by (query position, reference position, length); with `mum`, drops those
  // -mum's rule drops (a match whose reference interval lies inside or equals another's, and a
  // one-letter match at the first reference letter), as keep_mums does. At most kMatchesPerItem.
  __device__ void finish(bool mum) {
    for (unsigned i = 1; i < count_; ++i) {
      const MemMatch m = out_[i];
      unsigned j = i;
      for (; j > 0 && before(m, out_[j - 1]); --j) out_[j] = out_[j - 1];
      out_[j] = m;
    }
    if (!mum) return;
    unsigned dropped = 0;  // bit per match (count_ <= 32)
    for (unsigned i = 0; i < count_; ++i) {
      const MemMatch& m = out_[i];
      bool drop = m.ref_pos == 0 && m.length == 1;
      for (unsigned j = 0; j < count_ && !drop; ++j)
        drop = j != i && out_[j].ref_pos <= m.ref_pos && out_[j].ref_pos + out_[j].length >= m.ref_pos + m.length;
      if (drop) dropped |= 1u << i;
    }
    unsigned kept = 0;
    for (unsigned i = 0; i < count_; ++i)
      if (!(dropped >> i & 1u)) out_[kept++] = out_[i];
    count_ = kept;
  }

  // Sorts any number of matches in place (heapsort: no extra memory, n log n).
  __device__ void sort_many() {
    const auto sift = [&](unsigned long long root, unsigned long long end) {
      for (unsigned long long child; (child = 2 * root + 1) < end; root = child) {
        if (child + 1 < end && before(out_[child], out_[child + 1])) ++child;
        if (!before(out_[root], out_[child])) return;
        const MemMatch t = out_[root];
        out_[root] = out_[child];
        out_[child] = t;
      }
    };
    for (unsigned long long i = count_ / 2; i-- > 0;) sift(i, count_);
    for (unsigned long long end = count_; end-- > 1;) {
      const MemMatch t = out_[0];
      out_[0] = out_[end];
      out_[end] = t;
      sift(0, end);
    }
  }

 private:
  __device__ static bool before(const MemMatch& a, const MemMatch& b) {
    if (a.query_pos != b.query_pos) return a.query_pos < b.query_pos;
    if (a.ref_pos != b.ref_pos) return a.ref_pos < b.ref_pos;
    return a.length < b.length;
  }

  __device__ void emit(unsigned long long ref_pos, unsigned query_pos, unsigned length) {
    if (out_ && count_ < capacity_) {
      out_[count_].ref_pos = ref_pos;
      out_[count_].query_pos = query_pos;
      out_[count_].length = length;
    }
    ++count_;
  }

  __device__ bool letters_match(unsigned char q, unsigned char t) const {
    return q == t && (!p_.bases_only || base_code(q) >= 0);
  }

  __device__ unsigned extend_right(const unsigned char* q, unsigned qlen, unsigned from, unsigned long long t) const {
    unsigned n = 0;
    while (from + n < qlen && t + n < ix_.length && letters_match(q[from + n], __ldg(ix_.text + t + n))) ++n;
    return n;
  }

  __device__ unsigned extend_left(unsigned from, unsigned long long t, unsigned most) const {
    unsigned n = 0;
    while (n < most && n < from && n < t && letters_match(q_[from - n - 1], __ldg(ix_.text + t - n - 1))) ++n;
    return n;
  }

  // As compare_suffix in index/suffix_index.cpp: the text ends with a separator below every letter.
  __device__ int compare_suffix(unsigned long long pos, const unsigned char* pattern, unsigned length,
                                unsigned from) const {
    for (unsigned i = from; i < length; ++i) {
      const unsigned char t = pos + i < ix_.length ? __ldg(ix_.text + pos + i) : 0;
      if (t != pattern[i]) return t < pattern[i] ? -1 : 1;
    }
    return 0;
  }

  __device__ unsigned insertion_row(uint2 within, const unsigned char* pattern, unsigned length, unsigned depth) const {
    unsigned lo = within.x, hi = within.y;
    while (lo < hi) {
      const unsigned mid = lo + (hi - lo) / 2;
      if (compare_suffix(__ldg(ix_.sa + mid), pattern, length, depth) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  __device__ uint2 narrow(uint2 within, const unsigned char* pattern, unsigned length, unsigned depth) const {
    const unsigned first = insertion_row(within, pattern, length, depth);
    unsigned lo = first, hi = within.y;
    while (lo < hi) {
      const unsigned mid = lo + (hi - lo) / 2;
      if (compare_suffix(__ldg(ix_.sa + mid), pattern, length, depth) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return make_uint2(first, lo);
  }

  // The suffixes that start with pattern[0, length): from the prefix table when its first letters
  // are a/c/g/t, else by binary search over the whole array (SuffixIndex::find).
  __device__ uint2 find_rows(const unsigned char* pattern, unsigned length) const {
    const unsigned K = ix_.prefix_letters;
    long long code = length >= K ? 0 : -1;
    for (unsigned i = 0; i < K && code >= 0; ++i) {
      const int c = base_code(pattern[i]);
      code = c < 0 ? -1 : code * 4 + c;
    }
    if (code < 0) return narrow(make_uint2(0, static_cast<unsigned>(ix_.length)), pattern, length, 0);
    const uint2 bucket = __ldg(ix_.buckets + code);
    return bucket.y <= bucket.x || length == K ? bucket : narrow(bucket, pattern, length, K);
  }

  // MemFinder::find_unique_at: the longest match at query position `pos`, if it is unique,
  // at least min_length long and left-maximal.
  __device__ void unique_at(unsigned pos) {
    const unsigned l = p_.min_length;
    if (pos + l > qlen_) return;
    const unsigned char* rest = q_ + pos;
    const unsigned rest_length = qlen_ - pos;
    if (p_.bases_only)
      for (unsigned i = 0; i < l; ++i)
        if (base_code(rest[i]) < 0) return;
    const uint2 rows = find_rows(rest, l);
    if (rows.y <= rows.x) return;
    const unsigned at = insertion_row(rows, rest, rest_length, l);
    const auto common = [&](unsigned row) { return l + extend_right(rest, rest_length, l, __ldg(ix_.sa + row) + l); };
    const unsigned before = at > rows.x ? common(at - 1) : 0, after = at < rows.y ? common(at) : 0;
    if (before == after) return;
    const unsigned row = before > after ? at - 1 : at, length = max(before, after);
    const bool third = before > after ? row > rows.x && common(row - 1) >= length
                                      : row + 1 < rows.y && common(row + 1) >= length;
    if (third) return;
    const unsigned long long t = __ldg(ix_.sa + row);
    if (extend_left(pos, t, 1) == 1) return;
    emit(t, pos, length);
  }

  const DeviceIndex& ix_;
  const DeviceParams& p_;
  const unsigned char* q_;
  unsigned qlen_;
  MemMatch* out_;
  unsigned long long capacity_;
  unsigned long long count_ = 0;
};

__device__ __forceinline__ const unsigned char* strand_of(const SliceView& s, const Item& item, unsigned& length) {
  const unsigned long long start = s.starts[item.strand];
  length = static_cast<unsigned>(s.starts[item.strand + 1] - start);
  return s.letters + start;
}

// Pass 1: each item's matches into its slot, sorted (and -mum's rule applied when the item is its
// whole strand); an item with more than a slot holds is marked.
__global__ void __launch_bounds__(kThreadsPerBlock) find_item_matches(DeviceIndex ix, DeviceParams p, SliceView s) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.item_count) return;
  const Item item = s.items[i];
  unsigned length;
  const unsigned char* strand = strand_of(s, item, length);
  ItemFinder finder(ix, p, strand, length, s.slots + static_cast<std::size_t>(i) * kMatchesPerItem, kMatchesPerItem);
  finder.seeds(item);
  s.overflowed[i] = finder.full();
  if (finder.full()) return;
  finder.finish(item.whole && p.kind == static_cast<int>(MemKind::mum));
  s.counts[i] = finder.count();
}

// Pass 2: the match count of every marked item.
__global__ void __launch_bounds__(kThreadsPerBlock) count_overflowed(DeviceIndex ix, DeviceParams p, SliceView s) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.item_count || !s.overflowed[i]) return;
  const Item item = s.items[i];
  unsigned length;
  const unsigned char* strand = strand_of(s, item, length);
  ItemFinder finder(ix, p, strand, length, nullptr, ~0ull);
  finder.seeds(item);
  s.counts[i] = finder.count();
}

// Pass 3 (after a scan of the counts): every item's matches at its place in `packed`, in item
// order: copied from the slot, or found again and sorted there. -mum's rule for a marked item is
// left to the host.
__global__ void __launch_bounds__(kThreadsPerBlock) pack_matches(DeviceIndex ix, DeviceParams p, SliceView s) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.item_count) return;
  MemMatch* to = s.packed + s.offsets[i];
  if (!s.overflowed[i]) {
    const MemMatch* slot = s.slots + static_cast<std::size_t>(i) * kMatchesPerItem;
    for (unsigned long long m = 0; m < s.counts[i]; ++m) to[m] = slot[m];
    return;
  }
  const Item item = s.items[i];
  unsigned length;
  const unsigned char* strand = strand_of(s, item, length);
  ItemFinder finder(ix, p, strand, length, to, s.counts[i]);
  finder.seeds(item);
  finder.sort_many();
}

// A slice of a take: strands [first, end), their items, and the buffers one stream uses for it.
struct SliceBuffers {
  Stream stream;
  Event counted, done, kernel_start, kernel_stop;
  PinnedBuffer<unsigned char> letters, overflowed;
  PinnedBuffer<unsigned long long> starts, counts, total;
  PinnedBuffer<Item> items;
  PinnedBuffer<MemMatch> packed;
  DeviceBuffer<unsigned char> d_letters, d_overflowed, d_scan_space;
  DeviceBuffer<unsigned long long> d_starts, d_counts, d_offsets;
  DeviceBuffer<Item> d_items;
  DeviceBuffer<MemMatch> d_slots, d_packed;
  std::size_t first = 0, end = 0, item_count = 0;
  bool busy = false;

  SliceView view() {
    return {d_letters.ptr, d_starts.ptr, d_items.ptr, static_cast<unsigned>(item_count), d_slots.ptr,
            d_overflowed.ptr, d_counts.ptr, d_offsets.ptr, d_packed.ptr};
  }
  unsigned blocks() const { return static_cast<unsigned>((item_count + kThreadsPerBlock - 1) / kThreadsPerBlock); }
};

class MemGpuKernel final : public MemKernel {
 public:
  MemGpuKernel(int device, const index::SuffixIndex& index, MemParams params)
      : device_(current_device(device)), finder_(index, params), params_(params) {
    name_ = engine::use_gpu(device);
    const std::string_view text = index.text();
    text_.upload(reinterpret_cast<const unsigned char*>(text.data()), text.size());
    sa_.upload(index.suffix_array().data(), index.suffix_array().size());
    const auto buckets = index.buckets();
    std::vector<uint2> table(buckets.size());
    for (std::size_t i = 0; i < buckets.size(); ++i) table[i] = make_uint2(buckets[i].lo, buckets[i].hi);
    buckets_.upload(table);
    ix_ = {text_.ptr, text.size(), sa_.ptr, buckets_.ptr, index.prefix_letters()};
    p_ = {static_cast<int>(params.kind), params.min_length, finder_.seed_length(), finder_.seed_step(),
          params.bases_only};
  }

  std::string_view name() const override { return name_; }
  double device_seconds() const override { return kernel_seconds_; }

  void find(const StrandSet& strands, std::size_t first, std::size_t count, StrandMatches& out) override {
    check(cudaSetDevice(device_), "cudaSetDevice");
    std::size_t next = first;
    const std::size_t end = first + count;
    // Slices alternate between the two buffer sets; results are collected in launch order.
    for (int turn = 0; next < end || slices_[0].busy || slices_[1].busy; turn ^= 1) {
      SliceBuffers& s = slices_[turn];
      if (s.busy) collect(s, out);
      if (next < end && !fits_a_slice(strands.starts[next + 1] - strands.starts[next])) {
        // A strand too long for a slice (letters or work items) is found on the CPU, after the
        // strands before it.
        if (slices_[turn ^ 1].busy) collect(slices_[turn ^ 1], out);
        find_on_cpu(finder_, strands, next++, 1, out);
        continue;
      }
      if (next < end) next = launch(s, strands, next, end);
    }
  }

 private:
  // Fills `s` with strands from `next` on (up to a slice's items and letters) and starts the
  // passes that count their matches; returns the first strand it did not take.
  // Seeds and work items of a strand of `length` letters.
  std::uint64_t seeds_of(std::uint64_t length) const {
    return length >= p_.seed_length ? (length - p_.seed_length) / p_.seed_step + 1 : 0;
  }
  static std::uint64_t items_of(std::uint64_t seeds) { return (seeds + kSeedsPerItem - 1) / kSeedsPerItem; }
  bool fits_a_slice(std::uint64_t length) const {
    return length <= kLettersPerSlice && items_of(seeds_of(length)) <= kItemsPerSlice;
  }

  std::size_t launch(SliceBuffers& s, const StrandSet& strands, std::size_t next, std::size_t end) {
    s.first = next;
    s.items.reserve(kItemsPerSlice);
    s.starts.reserve(kItemsPerSlice + 1);
    std::size_t items = 0;
    const std::uint64_t base = strands.starts[next];
    for (; next < end; ++next) {
      const std::uint64_t length = strands.starts[next + 1] - strands.starts[next];
      const std::uint64_t seeds = seeds_of(length), item_count = items_of(seeds);
      if (!fits_a_slice(length) ||
          (next > s.first && (items + item_count > kItemsPerSlice || next - s.first + 2 > kItemsPerSlice ||
                              strands.starts[next + 1] - base > kLettersPerSlice)))
        break;
      s.starts.ptr[next - s.first] = strands.starts[next] - base;
      for (std::uint64_t w = 0; w < item_count; ++w)
        s.items.ptr[items++] = {static_cast<unsigned>(next - s.first), static_cast<unsigned>(w * kSeedsPerItem),
                                static_cast<unsigned>(std::min<std::uint64_t>(kSeedsPerItem, seeds - w * kSeedsPerItem)),
                                item_count == 1};
    }
    s.end = next;
    s.item_count = items;
    const std::size_t strand_count = s.end - s.first, letters = strands.starts[s.end] - base;
    s.starts.ptr[strand_count] = letters;
    s.letters.reserve(kLettersPerSlice);
    // Into pinned memory on a few threads: one thread's copy would hold the GPU up.
    constexpr std::size_t kCopyThreads = 4;
    parallel_for(kCopyThreads, kCopyThreads, [&](std::size_t part, unsigned) {
      const std::size_t from = letters * part / kCopyThreads, to = letters * (part + 1) / kCopyThreads;
      std::copy(strands.letters.begin() + static_cast<std::ptrdiff_t>(base + from),
                strands.letters.begin() + static_cast<std::ptrdiff_t>(base + to), s.letters.ptr + from);
    });
    reserve_buffers(s);
    check(cudaMemcpyAsync(s.d_letters.ptr, s.letters.ptr, letters, cudaMemcpyHostToDevice, s.stream), "upload");
    check(cudaMemcpyAsync(s.d_starts.ptr, s.starts.ptr, (strand_count + 1) * sizeof(unsigned long long),
                          cudaMemcpyHostToDevice, s.stream), "upload");
    check(cudaMemcpyAsync(s.d_items.ptr, s.items.ptr, items * sizeof(Item), cudaMemcpyHostToDevice, s.stream), "upload");
    check(cudaEventRecord(s.kernel_start, s.stream), "cudaEventRecord");
    if (items > 0) {
      find_item_matches<<<s.blocks(), kThreadsPerBlock, 0, s.stream>>>(ix_, p_, s.view());
      count_overflowed<<<s.blocks(), kThreadsPerBlock, 0, s.stream>>>(ix_, p_, s.view());
      check(cudaGetLastError(), "kernel launch");
      std::size_t space = s.d_scan_space.size;
      check(cub::DeviceScan::ExclusiveSum(s.d_scan_space.ptr, space, s.d_counts.ptr, s.d_offsets.ptr,
                                          static_cast<int>(items), s.stream), "scan");
      // The total: the last offset plus the last count.
      check(cudaMemcpyAsync(s.total.ptr, s.d_offsets.ptr + items - 1, sizeof(unsigned long long),
                            cudaMemcpyDeviceToHost, s.stream), "download");
      check(cudaMemcpyAsync(s.total.ptr + 1, s.d_counts.ptr + items - 1, sizeof(unsigned long long),
                            cudaMemcpyDeviceToHost, s.stream), "download");
    }
    check(cudaEventRecord(s.counted, s.stream), "cudaEventRecord");
    s.busy = true;
    return next;
  }

  void reserve_buffers(SliceBuffers& s) {
    s.d_letters.reserve(kLettersPerSlice);
    s.d_starts.reserve(kItemsPerSlice + 1);
    s.d_items.reserve(kItemsPerSlice);
    s.d_slots.reserve(kItemsPerSlice * kMatchesPerItem);
    s.d_overflowed.reserve(kItemsPerSlice);
    s.d_counts.reserve(kItemsPerSlice);
    s.d_offsets.reserve(kItemsPerSlice);
    s.overflowed.reserve(kItemsPerSlice);
    s.counts.reserve(kItemsPerSlice);
    s.total.reserve(2);
    if (s.d_scan_space.size == 0) {
      std::size_t space = 0;
      check(cub::DeviceScan::ExclusiveSum(nullptr, space, s.d_counts.ptr, s.d_offsets.ptr,
                                          static_cast<int>(kItemsPerSlice), s.stream), "scan");
      s.d_scan_space.reserve(space);
    }
  }

  // Places every item's matches once their total is known, downloads them and appends the
  // slice's strands to `out`.
  void collect(SliceBuffers& s, StrandMatches& out) {
    check(cudaEventSynchronize(s.counted), "kernel");
    s.busy = false;
    const std::size_t total = s.item_count ? s.total.ptr[0] + s.total.ptr[1] : 0;
    if (s.item_count > 0) {
      s.d_packed.reserve(total);
      s.packed.reserve(total);
      pack_matches<<<s.blocks(), kThreadsPerBlock, 0, s.stream>>>(ix_, p_, s.view());
      check(cudaGetLastError(), "kernel launch");
      check(cudaEventRecord(s.kernel_stop, s.stream), "cudaEventRecord");
      check(cudaMemcpyAsync(s.counts.ptr, s.d_counts.ptr, s.item_count * sizeof(unsigned long long),
                            cudaMemcpyDeviceToHost, s.stream), "download");
      check(cudaMemcpyAsync(s.overflowed.ptr, s.d_overflowed.ptr, s.item_count, cudaMemcpyDeviceToHost, s.stream),
            "download");
      check(cudaMemcpyAsync(s.packed.ptr, s.d_packed.ptr, total * sizeof(MemMatch), cudaMemcpyDeviceToHost, s.stream),
            "download");
      check(cudaStreamSynchronize(s.stream), "kernel");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, s.kernel_start, s.kernel_stop), "cudaEventElapsedTime");
      kernel_seconds_ += ms / 1000.0;
    }
    const std::size_t base = out.matches.size();
    out.matches.resize(base + total);
    std::copy_n(s.packed.ptr, total, out.matches.data() + base);
    // Offsets per strand from the item counts; a strand -mum's rule was not applied to on the GPU
    // (several items, or a marked one) gets it here.
    bool host_mum = false;
    std::size_t item = 0, end_of_strand = base;
    for (std::size_t strand = 0; strand < s.end - s.first; ++strand) {
      std::size_t pieces = 0;
      bool marked = false;
      for (; item < s.item_count && s.items.ptr[item].strand == strand; ++item, ++pieces) {
        end_of_strand += s.counts.ptr[item];
        marked = marked || s.overflowed.ptr[item];
      }
      host_mum = host_mum || (params_.kind == MemKind::mum && (pieces > 1 || marked));
      out.offsets.push_back(end_of_strand);
    }
    if (host_mum) apply_mum_rule(out, out.offsets.size() - 1 - (s.end - s.first));
  }

  // -mum's rule over every strand of `out` from index `from` on (each already sorted; the rule
  // is idempotent, so strands the GPU handled keep their matches).
  void apply_mum_rule(StrandMatches& out, std::size_t from) const {
    std::vector<MemMatch> strand;
    std::size_t write = out.offsets[from];
    for (std::size_t i = from; i < out.count(); ++i) {
      strand.assign(out.matches.begin() + static_cast<std::ptrdiff_t>(out.offsets[i]),
                    out.matches.begin() + static_cast<std::ptrdiff_t>(out.offsets[i + 1]));
      keep_mums(strand);
      out.offsets[i] = write;
      std::copy(strand.begin(), strand.end(), out.matches.begin() + static_cast<std::ptrdiff_t>(write));
      write += strand.size();
    }
    out.offsets.back() = write;
    out.matches.resize(write);
  }

  int device_;
  MemFinder finder_;  // strands the GPU leaves to the CPU
  MemParams params_;
  std::string name_;
  DeviceBuffer<unsigned char> text_;
  DeviceBuffer<unsigned> sa_;
  DeviceBuffer<uint2> buckets_;
  DeviceIndex ix_{};
  DeviceParams p_{};
  SliceBuffers slices_[2];
  double kernel_seconds_ = 0;
};

// Device memory a kernel takes beside the index: two slices' buffers (letters, starts, items,
// counts, offsets, marks, slots, and packed matches counted at a slot's worth, though they grow
// with a slice's matches) and room for the runtime.
constexpr std::size_t kBytesBesideIndex =
    2 * (kLettersPerSlice + kItemsPerSlice * (3 * sizeof(unsigned long long) + sizeof(Item) + 1 +
                                              2 * kMatchesPerItem * sizeof(MemMatch))) +
    (std::size_t{1} << 28);

}  // namespace

std::string mem_gpu_unsupported_reason(const index::SuffixIndex& index) {
  const std::size_t needed = index.bytes() + kBytesBesideIndex;
  for (const engine::GpuInfo& gpu : engine::usable_gpus())
    if (gpu.free_bytes < needed)
      return "the index needs " + std::to_string(needed >> 20) + " MiB of GPU memory and gpu" +
             std::to_string(gpu.index) + " has " + std::to_string(gpu.free_bytes >> 20) + " MiB free";
  return "";
}

std::unique_ptr<MemKernel> make_mem_gpu_kernel(int device, const index::SuffixIndex& index, MemParams params) {
  return std::make_unique<MemGpuKernel>(device, index, params);
}

}  // namespace hyalign::kernels::cuda

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
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

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
constexpr unsigned kOverflow = ~0u;

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
  MemMatch* slots;   // kMatchesPerItem per item
  MemMatch* packed;  // every item's matches, back to back
  uint2* placed;     // per item: (first in packed, count), count kOverflow when it had too many
  unsigned* total;
};

__device__ __forceinline__ int base_code(unsigned char c) {
  switch (c) {
    case 'a': return 0;
    case 'c': return 1;
    case 'g': return 2;
    case 't': return 3;
    default: return -1;
  }
}

class ItemFinder {
 public:
  __device__ ItemFinder(const DeviceIndex& ix, const DeviceParams& p, const unsigned char* query, unsigned length,
                        MemMatch* out)
      : ix_(ix), p_(p), q_(query), qlen_(length), out_(out) {}

  __device__ unsigned count() const { return count_; }
  __device__ bool full() const { return count_ > kMatchesPerItem; }

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
  // one-letter match at the first reference letter), as keep_mums does.
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

 private:
  __device__ static bool before(const MemMatch& a, const MemMatch& b) {
    if (a.query_pos != b.query_pos) return a.query_pos < b.query_pos;
    if (a.ref_pos != b.ref_pos) return a.ref_pos < b.ref_pos;
    return a.length < b.length;
  }

  __device__ void emit(unsigned long long ref_pos, unsigned query_pos, unsigned length) {
    if (count_ < kMatchesPerItem) {
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
  unsigned count_ = 0;
};

__global__ void __launch_bounds__(kThreadsPerBlock) find_item_matches(DeviceIndex ix, DeviceParams p, SliceView s) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.item_count) return;
  const Item item = s.items[i];
  const unsigned long long start = s.starts[item.strand];
  const unsigned length = static_cast<unsigned>(s.starts[item.strand + 1] - start);
  MemMatch* slot = s.slots + static_cast<std::size_t>(i) * kMatchesPerItem;
  ItemFinder finder(ix, p, s.letters + start, length, slot);
  for (unsigned j = item.first_seed; j < item.first_seed + item.seeds && !finder.full(); ++j)
    finder.seed(j * p.seed_step);
  if (finder.full()) {
    s.placed[i] = make_uint2(0, kOverflow);
    return;
  }
  finder.finish(item.whole && p.kind == static_cast<int>(MemKind::mum));
  const unsigned n = finder.count();
  const unsigned first = n ? atomicAdd(s.total, n) : 0;
  for (unsigned m = 0; m < n; ++m) s.packed[first + m] = slot[m];
  s.placed[i] = make_uint2(first, n);
}

// A slice of a take: strands [first, end), their items, and the buffers one stream uses for it.
struct SliceBuffers {
  Stream stream;
  Event done;
  PinnedBuffer<unsigned char> letters;
  PinnedBuffer<unsigned long long> starts;
  PinnedBuffer<Item> items;
  PinnedBuffer<uint2> placed;
  PinnedBuffer<unsigned> total;
  PinnedBuffer<MemMatch> packed;
  DeviceBuffer<unsigned char> d_letters;
  DeviceBuffer<unsigned long long> d_starts;
  DeviceBuffer<Item> d_items;
  DeviceBuffer<MemMatch> d_slots, d_packed;
  DeviceBuffer<uint2> d_placed;
  DeviceBuffer<unsigned> d_total;
  std::size_t first = 0, end = 0, item_count = 0;
  float kernel_ms = 0;
  Event kernel_start, kernel_stop;
  bool busy = false;
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
      if (s.busy) collect(s, strands, out);
      if (next < end && strands.starts[next + 1] - strands.starts[next] > kLettersPerSlice) {
        // A strand too long for a slice is found on the CPU, after the strands before it.
        if (slices_[turn ^ 1].busy) collect(slices_[turn ^ 1], strands, out);
        find_on_cpu(finder_, strands, next++, 1, out);
        continue;
      }
      if (next < end) next = launch(s, strands, next, end);
    }
  }

 private:
  // Fills `s` with strands from `next` on (up to a slice's items and letters) and starts its work;
  // returns the first strand it did not take.
  std::size_t launch(SliceBuffers& s, const StrandSet& strands, std::size_t next, std::size_t end) {
    const unsigned k = p_.seed_length, step = p_.seed_step;
    s.first = next;
    s.items.reserve(kItemsPerSlice);
    s.starts.reserve(kItemsPerSlice + 1);
    std::size_t items = 0;
    const std::uint64_t base = strands.starts[next];
    for (; next < end; ++next) {
      const std::uint64_t length = strands.starts[next + 1] - strands.starts[next];
      const std::uint64_t seeds = length >= k ? (length - k) / step + 1 : 0;
      const std::uint64_t item_count = (seeds + kSeedsPerItem - 1) / kSeedsPerItem;
      if (next > s.first && (items + item_count > kItemsPerSlice || next - s.first + 2 > kItemsPerSlice ||
                             strands.starts[next + 1] - base > kLettersPerSlice))
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
    std::copy_n(reinterpret_cast<const unsigned char*>(strands.letters.data()) + base, letters, s.letters.ptr);
    s.d_letters.reserve(kLettersPerSlice);
    s.d_starts.reserve(kItemsPerSlice + 1);
    s.d_items.reserve(kItemsPerSlice);
    s.d_slots.reserve(kItemsPerSlice * kMatchesPerItem);
    s.d_packed.reserve(kItemsPerSlice * kMatchesPerItem);
    s.d_placed.reserve(kItemsPerSlice);
    s.placed.reserve(kItemsPerSlice);
    s.d_total.reserve(1);
    s.total.reserve(1);
    check(cudaMemcpyAsync(s.d_letters.ptr, s.letters.ptr, letters, cudaMemcpyHostToDevice, s.stream), "upload");
    check(cudaMemcpyAsync(s.d_starts.ptr, s.starts.ptr, (strand_count + 1) * sizeof(unsigned long long),
                          cudaMemcpyHostToDevice, s.stream), "upload");
    check(cudaMemcpyAsync(s.d_items.ptr, s.items.ptr, items * sizeof(Item), cudaMemcpyHostToDevice, s.stream), "upload");
    check(cudaMemsetAsync(s.d_total.ptr, 0, sizeof(unsigned), s.stream), "cudaMemset");
    check(cudaEventRecord(s.kernel_start, s.stream), "cudaEventRecord");
    if (items > 0) {
      const SliceView view{s.d_letters.ptr, s.d_starts.ptr, s.d_items.ptr, static_cast<unsigned>(items),
                           s.d_slots.ptr,   s.d_packed.ptr, s.d_placed.ptr, s.d_total.ptr};
      const auto blocks = static_cast<unsigned>((items + kThreadsPerBlock - 1) / kThreadsPerBlock);
      find_item_matches<<<blocks, kThreadsPerBlock, 0, s.stream>>>(ix_, p_, view);
      check(cudaGetLastError(), "kernel launch");
    }
    check(cudaEventRecord(s.kernel_stop, s.stream), "cudaEventRecord");
    check(cudaMemcpyAsync(s.placed.ptr, s.d_placed.ptr, items * sizeof(uint2), cudaMemcpyDeviceToHost, s.stream),
          "download");
    check(cudaMemcpyAsync(s.total.ptr, s.d_total.ptr, sizeof(unsigned), cudaMemcpyDeviceToHost, s.stream), "download");
    check(cudaEventRecord(s.done, s.stream), "cudaEventRecord");
    s.busy = true;
    return next;
  }

  // Waits for `s`, downloads its packed matches and appends its strands' matches to `out`.
  void collect(SliceBuffers& s, const StrandSet& strands, StrandMatches& out) {
    check(cudaEventSynchronize(s.done), "kernel");
    s.busy = false;
    float ms = 0;
    check(cudaEventElapsedTime(&ms, s.kernel_start, s.kernel_stop), "cudaEventElapsedTime");
    kernel_seconds_ += ms / 1000.0;
    const unsigned total = *s.total.ptr;
    s.packed.reserve(total);
    check(cudaMemcpyAsync(s.packed.ptr, s.d_packed.ptr, total * sizeof(MemMatch), cudaMemcpyDeviceToHost, s.stream),
          "download");
    check(cudaStreamSynchronize(s.stream), "download");
    std::size_t item = 0;
    for (std::size_t strand = s.first; strand < s.end; ++strand) {
      const std::size_t start = out.matches.size();
      bool overflow = false;
      std::size_t pieces = 0;
      for (; item < s.item_count && s.items.ptr[item].strand == strand - s.first; ++item, ++pieces) {
        const uint2 placed = s.placed.ptr[item];
        if (placed.y == kOverflow) overflow = true;
        else if (!overflow) out.matches.insert(out.matches.end(), s.packed.ptr + placed.x, s.packed.ptr + placed.x + placed.y);
      }
      if (overflow) {
        out.matches.resize(start);
        find_on_cpu(finder_, strands, strand, 1, out);
        continue;
      }
      if (pieces > 1 && params_.kind == MemKind::mum) {
        std::vector<MemMatch> whole(out.matches.begin() + static_cast<std::ptrdiff_t>(start), out.matches.end());
        out.matches.resize(start);
        append_strand(whole, params_.kind, out);
        continue;
      }
      out.offsets.push_back(out.matches.size());
    }
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

}  // namespace

std::unique_ptr<MemKernel> make_mem_gpu_kernel(int device, const index::SuffixIndex& index, MemParams params) {
  return std::make_unique<MemGpuKernel>(device, index, params);
}

}  // namespace hyalign::kernels::cuda

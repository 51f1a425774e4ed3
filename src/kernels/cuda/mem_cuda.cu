// CUDA kernel for maximal exact matches: the CPU finder's method (kernels/mem_cpu.cpp), one thread
// per work item, with the index (text, suffix array, prefix table) resident in device memory.
//
// A work item is up to kSeedsPerItem consecutive seeds of one strand, so a 150-letter read is one
// item and a chromosome many. A thread looks its seeds up (prefix table, then binary search in the
// suffix array), extends every occurrence to the left and, where its match starts within the
// seed's step, to the right, and keeps what the CPU finder keeps (the same uniqueness by
// dominance, the same per-position search for seeds with many occurrences, carrying what one
// position's search learnt to the next). Under -maxmatch every occurrence is reported, and one seed
// of a repeat-rich genome may have thousands: there a thread looks up an item's seeds, and the
// occurrences are then shared out kOccurrencesPerChunk to a thread (count_occurrence_chunks and the
// kernels after it). A strand with a periodic stretch over kLongestGpuStretch letters is left to
// the CPU, which crosses such stretches in one step. A thread sorts its item's matches and applies
// -mum's rule when the item is the whole strand. An item with more than its slot's
// kMatchesPerItem is counted, found again at its place in the packed result and sorted there with
// the other items by a segmented radix sort, so no output depends on a capacity.
//
// A suffix array larger than the GPU's memory is split into pieces at prefix boundaries
// (index/sa_pieces.hpp) and swapped in turn: first every piece marks the seeds with many
// occurrences (so each piece takes the whole reference's choice of method), then every piece finds
// its matches, merged on the host.
//
// The work is memory-latency bound (every seed is a few dependent random reads of the index), so
// throughput comes from many threads in flight and from fewer dependent loads: letters are
// compared eight at a time, and binary searches skip the letters that both bounds share with the
// pattern. Slices of a take alternate between two streams so that the host packs one slice's
// results while the GPU works on the next; strands in page-locked memory are uploaded as they are.
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <cstdint>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "engine/devices.hpp"
#include "index/periodic_runs.hpp"
#include "index/sa_pieces.hpp"
#include "kernels/cuda/cuda_support.cuh"
#include "kernels/cuda/mem_cuda.hpp"
#include "kernels/cuda/suffix_search.cuh"
#include "kernels/mem_strand_work.hpp"

namespace hyalign::kernels::cuda {
namespace {

constexpr unsigned kSeedsPerItem = 32;
constexpr unsigned kMatchesPerItem = 32;
constexpr unsigned kMostOccurrencesToExtend = 64;  // as the CPU finder
constexpr unsigned kOccurrencesPerChunk = 32;      // -maxmatch: a thread's share (a bit each in a mask)
constexpr unsigned kNotExtended = ~0u;
constexpr unsigned kThreadsPerBlock = 128;
constexpr std::size_t kItemsPerSlice = std::size_t{1} << 19;
constexpr std::size_t kLettersPerSlice = std::size_t{1} << 27;
constexpr std::size_t kLongestGpuStretch = 1024;
constexpr unsigned kMostChunkBlocks = 1u << 16;  // -maxmatch's chunk kernels stride over the rest

struct Item {
  unsigned strand;      // within the slice
  unsigned first_seed;  // seed j starts at query position j * seed_step
  unsigned seeds;
  unsigned whole;       // 1: the strand's only item
};

struct DeviceParams {
  int kind;  // MemKind
  unsigned min_length, seed_length, seed_step;
  bool bases_only;
  bool apply_mum;  // -mum's rule on whole-strand items (not with pieces: applied after merging)
};

struct SliceView {
  const unsigned char* letters;
  const unsigned long long* starts;
  const Item* items;
  unsigned item_count;
  MemMatch* slots;                // kMatchesPerItem per item
  unsigned char* overflowed;      // per item: more matches than a slot holds
  unsigned long long* counts;     // per item
  unsigned long long* offsets;    // per item and one more: exclusive prefix sum of the counts
  MemMatch* packed;               // every item's matches, in item order
  unsigned* marks;                // per item, a bit per seed: many occurrences (with pieces)
  bool marked;                    // the marks are every piece's: use them, do not decide per piece
  unsigned long long* overflows;  // items marked as overflowed
  // -maxmatch, by occurrence: per item, each seed's rows (kSeedsPerItem) and its first chunk
  // (and one more: the chunk count); per chunk, the bits of the occurrences that start a match,
  // their count and the exclusive prefix sum of the counts (and one more: the total).
  uint2* rows;
  unsigned long long* chunk_first;
  unsigned* chunk_marks;
  unsigned long long* chunk_counts;
  unsigned long long* chunk_offsets;
};

class ItemFinder {
 public:
  // Keeps the first `capacity` matches in `out` (none when it is null: counting only).
  __device__ ItemFinder(const DeviceIndex& ix, const DeviceParams& p, const unsigned char* query, unsigned length,
                        MemMatch* out, unsigned long long capacity)
      : ix_(ix), p_(p), q_(query), qlen_(length), out_(out), capacity_(capacity) {}

  __device__ unsigned long long count() const { return count_; }
  __device__ bool full() const { return count_ > capacity_; }

  // Every seed of `item`, until the matches overflow the capacity. With `marks` (a bit per seed,
  // from every piece), whether a seed has many occurrences is taken from them.
  __device__ void seeds(const Item& item, const unsigned* marks) {
    for (unsigned j = 0; j < item.seeds && !full(); ++j)
      seed((item.first_seed + j) * p_.seed_step, marks ? static_cast<int>(*marks >> j & 1u) : -1);
  }

  // A bit per seed of `item` whose rows lie in this piece and number more than the occurrences
  // extended one by one.
  __device__ unsigned repeated_seeds(const Item& item) const {
    unsigned marks = 0;
    for (unsigned j = 0; j < item.seeds; ++j) {
      const unsigned char* letters = q_ + (item.first_seed + j) * p_.seed_step;
      if (!bases_only_ok(letters, p_.seed_length)) continue;
      const uint2 rows = find_rows(letters, p_.seed_length);
      if (rows.y > rows.x && rows.y - rows.x > kMostOccurrencesToExtend) marks |= 1u << j;
    }
    return marks;
  }

  // -maxmatch: the rows of each seed of `item` in `rows` ((0, 0) where it has none, or -n rules it
  // out), and their total.
  __device__ unsigned long long seed_rows(const Item& item, uint2* rows) const {
    unsigned long long total = 0;
    for (unsigned j = 0; j < item.seeds; ++j) {
      const unsigned char* letters = q_ + (item.first_seed + j) * p_.seed_step;
      uint2 found = make_uint2(0, 0);
      if (bases_only_ok(letters, p_.seed_length)) found = find_rows(letters, p_.seed_length);
      if (found.y <= found.x) found = make_uint2(0, 0);
      rows[j] = found;
      total += found.y - found.x;
    }
    return total;
  }

  // -maxmatch: the match through the seed at `pos` and its occurrence at text offset t, reported
  // from this seed only if it starts within the seed's step (MemFinder::find_at_seed).
  __device__ bool occurrence_match(unsigned pos, unsigned long long t, MemMatch& match) const {
    const unsigned left = extend_left(pos, t, p_.seed_step);
    if (left >= p_.seed_step) return false;
    const unsigned k = p_.seed_length;
    const unsigned length = left + k + extend_right(q_, qlen_, pos + k, t + k);
    if (length < p_.min_length) return false;
    match.ref_pos = t - left;
    match.query_pos = pos - left;
    match.length = length;
    return true;
  }

  // The unique matches of the seed at `pos` (-mumreference, -mum; -maxmatch is found by occurrence).
  // `repeated`: 1 or 0 from the marks of every piece, -1 to decide from this seed's rows.
  __device__ void seed(unsigned pos, int repeated) {
    const unsigned k = p_.seed_length;
    if (!bases_only_ok(q_ + pos, k)) return;
    const uint2 rows = find_rows(q_ + pos, k);
    const bool many = repeated < 0 ? rows.y > rows.x && rows.y - rows.x > kMostOccurrencesToExtend : repeated == 1;
    if (many) {
      for (unsigned at = pos + 1 >= p_.seed_step ? pos + 1 - p_.seed_step : 0; at <= pos && !full(); ++at)
        unique_at(at);
      return;
    }
    if (rows.y <= rows.x) return;
    // Left first: only an occurrence whose match starts within this seed's step is extended to
    // the right (MemFinder::find_at_seed), so a long match is not extended again at every seed.
    unsigned lefts[kMostOccurrencesToExtend], rights[kMostOccurrencesToExtend];
    const unsigned n = rows.y - rows.x;
    for (unsigned i = 0; i < n; ++i) {
      const unsigned long long t = sa_at(ix_, rows.x + i);
      lefts[i] = extend_left(pos, t, p_.seed_step);
      rights[i] = lefts[i] < p_.seed_step ? k + extend_right(q_, qlen_, pos + k, t + k) : kNotExtended;
    }
    for (unsigned i = 0; i < n && !full(); ++i) {
      if (lefts[i] >= p_.seed_step || lefts[i] + rights[i] < p_.min_length) continue;
      bool dominated = false;  // another occurrence reaching as far both ways: not unique
      for (unsigned j = 0; j < n && !dominated; ++j)
        dominated = j != i && lefts[j] >= lefts[i] && reaches(pos, sa_at(ix_, rows.x + j), rights[j], rights[i]);
      if (!dominated) emit(sa_at(ix_, rows.x + i) - lefts[i], pos - lefts[i], lefts[i] + rights[i]);
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

  // With -n, a seed or search must hold only a/c/g/t.
  __device__ bool bases_only_ok(const unsigned char* letters, unsigned length) const {
    if (p_.bases_only)
      for (unsigned i = 0; i < length; ++i)
        if (base_code(letters[i]) < 0) return false;
    return true;
  }

  __device__ unsigned extend_right(const unsigned char* q, unsigned qlen, unsigned from, unsigned long long t,
                                   unsigned most = ~0u) const {
    if (from >= qlen || t >= ix_.length) return 0;
    return common_prefix(q + from, ix_.text + t,
                         static_cast<unsigned>(min(static_cast<unsigned long long>(min(qlen - from, most)), ix_.length - t)),
                         p_.bases_only);
  }

  // Whether the occurrence at text offset t of the seed at `pos` matches at least `right` letters
  // from the seed's start (`known`: its extension, or kNotExtended, then extended that far only).
  __device__ bool reaches(unsigned pos, unsigned long long t, unsigned known, unsigned right) const {
    if (known != kNotExtended) return known >= right;
    const unsigned k = p_.seed_length;
    return k + extend_right(q_, qlen_, pos + k, t + k, right - k) >= right;
  }

  // Letters equal before q_[from] and text[t], at most `most`: eight at a time, backwards, where
  // eight letters before both exist in their buffers, else one at a time.
  __device__ unsigned extend_left(unsigned from, unsigned long long t, unsigned most) const {
    most = static_cast<unsigned>(min(static_cast<unsigned long long>(min(most, from)), t));
    unsigned n = 0;
    while (n + 8 <= most) {
      const unsigned long long x = load_letters(q_ + from - n - 8);
      const unsigned long long differ = (x ^ load_letters(ix_.text + t - n - 8)) | (p_.bases_only ? not_bases(x) : 0);
      if (differ != 0) return n + (__clzll(static_cast<long long>(differ)) >> 3);
      n += 8;
    }
    while (n < most) {
      const unsigned char q = q_[from - n - 1];
      if (q != __ldg(ix_.text + t - n - 1) || (p_.bases_only && base_code(q) < 0)) break;
      ++n;
    }
    return n;
  }

  // The suffixes that start with pattern[0, length) (at least a piece's prefix long), if they lie
  // in the resident rows: from the prefix table when its first letters are a/c/g/t, else by binary
  // search over the resident rows (MemFinder::rows_in_piece).
  __device__ uint2 find_rows(const unsigned char* pattern, unsigned length) const {
    const unsigned K = ix_.prefix_letters;
    const long long code = prefix_code(ix_, pattern, length);
    if (code < 0) return narrow(ix_, make_uint2(ix_.row_lo, ix_.row_hi), pattern, length, 0);
    const uint2 bucket = __ldg(ix_.buckets + code);
    if (bucket.y <= bucket.x || bucket.x < ix_.row_lo || bucket.x >= ix_.row_hi) return make_uint2(0, 0);
    return length == K ? bucket : narrow(ix_, bucket, pattern, length, K);
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
    // Letters known shared from an earlier position's search (MemFinder::find_unique_at): a suffix
    // sharing c letters at position p shares c - k at p + k, k letters on.
    // (A copy: the carried values are replaced below, before the last comparisons.)
    const unsigned carried_pos = carried_pos_;
    const unsigned long long carried_text[2] = {carried_text_[0], carried_text_[1]};
    const unsigned carried_shared[2] = {carried_shared_[0], carried_shared_[1]};
    const auto known = [&](unsigned long long t) -> unsigned {
      if (carried_pos > pos) return 0;
      const unsigned k = pos - carried_pos;
      for (int i = 0; i < 2; ++i)
        if (carried_shared[i] > k && carried_text[i] + k == t) return carried_shared[i] - k;
      return 0;
    };
    const unsigned at = search_rows(ix_, rows, rest, rest_length, l, false, known);
    const auto common = [&](unsigned row) {
      const unsigned long long t = sa_at(ix_, row);
      const unsigned shared = known(t);
      return shared > 0 ? shared : l + extend_right(rest, rest_length, l, t + l);
    };
    const unsigned before = at > rows.x ? common(at - 1) : 0, after = at < rows.y ? common(at) : 0;
    carried_pos_ = pos;
    carried_text_[0] = before > 0 ? sa_at(ix_, at - 1) : ~0ull;
    carried_text_[1] = after > 0 ? sa_at(ix_, at) : ~0ull;
    carried_shared_[0] = before;
    carried_shared_[1] = after;
    if (before == after) return;
    const unsigned row = before > after ? at - 1 : at, length = max(before, after);
    const bool third = before > after ? row > rows.x && common(row - 1) >= length
                                      : row + 1 < rows.y && common(row + 1) >= length;
    if (third) return;
    const unsigned long long t = sa_at(ix_, row);
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
  // The last searched position's rows around the query and the letters they share (unique_at).
  unsigned carried_pos_ = ~0u;
  unsigned long long carried_text_[2] = {~0ull, ~0ull};
  unsigned carried_shared_[2] = {0, 0};
};

// A finder over `item`'s strand, keeping its first `capacity` matches at `out`.
__device__ __forceinline__ ItemFinder finder_for(const DeviceIndex& ix, const DeviceParams& p, const SliceView& s,
                                                 const Item& item, MemMatch* out, unsigned long long capacity) {
  const unsigned long long start = s.starts[item.strand];
  return ItemFinder(ix, p, s.letters + start, static_cast<unsigned>(s.starts[item.strand + 1] - start), out, capacity);
}

__device__ __forceinline__ const unsigned* marks_of(const SliceView& s, unsigned item) {
  return s.marked ? s.marks + item : nullptr;
}

// With pieces, before any matching: each piece marks the seeds whose rows it holds and that have
// many occurrences (the host joins the marks of every piece).
__global__ void __launch_bounds__(kThreadsPerBlock) mark_repeated_seeds(DeviceIndex ix, DeviceParams p, SliceView s) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.item_count) return;
  const Item item = s.items[i];
  s.marks[i] = finder_for(ix, p, s, item, nullptr, 0).repeated_seeds(item);
}

// Pass 1: each item's matches into its slot, sorted (and -mum's rule applied when the item is its
// whole strand); an item with more than a slot holds is marked.
__global__ void __launch_bounds__(kThreadsPerBlock) find_item_matches(DeviceIndex ix, DeviceParams p, SliceView s) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.item_count) return;
  const Item item = s.items[i];
  ItemFinder finder = finder_for(ix, p, s, item, s.slots + static_cast<std::size_t>(i) * kMatchesPerItem, kMatchesPerItem);
  finder.seeds(item, marks_of(s, i));
  s.overflowed[i] = finder.full();
  if (finder.full()) {
    atomicAdd(s.overflows, 1ull);
    return;
  }
  finder.finish(item.whole && p.apply_mum);
  s.counts[i] = finder.count();
}

// Pass 2: the match count of every marked item.
__global__ void __launch_bounds__(kThreadsPerBlock) count_overflowed(DeviceIndex ix, DeviceParams p, SliceView s) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.item_count || !s.overflowed[i]) return;
  const Item item = s.items[i];
  ItemFinder finder = finder_for(ix, p, s, item, nullptr, ~0ull);
  finder.seeds(item, marks_of(s, i));
  s.counts[i] = finder.count();
}

// Pass 3 (after a scan of the counts): every item's matches at its place in `packed`, in item
// order: copied from the slot, or found again there (in seed order: sorted afterwards, and
// -mum's rule for such an item is left to the host).
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
  ItemFinder finder = finder_for(ix, p, s, item, to, s.counts[i]);
  finder.seeds(item, marks_of(s, i));
}

// -maxmatch by occurrence, step 1: each item's seeds' rows, and its chunks of occurrences (scanned
// into chunk_first afterwards).
__global__ void __launch_bounds__(kThreadsPerBlock) count_occurrence_chunks(DeviceIndex ix, DeviceParams p, SliceView s,
                                                                           unsigned long long* chunks) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.item_count) return;
  const Item item = s.items[i];
  const unsigned long long occurrences =
      finder_for(ix, p, s, item, nullptr, 0).seed_rows(item, s.rows + static_cast<std::size_t>(i) * kSeedsPerItem);
  chunks[i] = (occurrences + kOccurrencesPerChunk - 1) / kOccurrencesPerChunk;
}

// The item that chunk `chunk` belongs to: the last with chunk_first at or below it.
__device__ unsigned item_of_chunk(const SliceView& s, unsigned long long chunk) {
  unsigned lo = 0, hi = s.item_count;  // chunk_first[lo] <= chunk < chunk_first[hi]
  while (hi - lo > 1) {
    const unsigned mid = lo + (hi - lo) / 2;
    if (s.chunk_first[mid] <= chunk) lo = mid;
    else hi = mid;
  }
  return lo;
}

// Calls visit(n, finder, seed position, text offset) for the occurrences n = 0, 1, ... of chunk
// `chunk`: its item's occurrences in seed order, then suffix-array order, from the chunk's first on.
template <typename Visit>
__device__ void visit_chunk(const DeviceIndex& ix, const DeviceParams& p, const SliceView& s, unsigned long long chunk,
                            Visit visit) {
  const unsigned i = item_of_chunk(s, chunk);
  const Item item = s.items[i];
  const uint2* rows = s.rows + static_cast<std::size_t>(i) * kSeedsPerItem;
  unsigned long long skip = (chunk - s.chunk_first[i]) * kOccurrencesPerChunk;
  unsigned j = 0;
  for (; skip >= rows[j].y - rows[j].x; ++j) skip -= rows[j].y - rows[j].x;
  unsigned row = rows[j].x + static_cast<unsigned>(skip);
  const ItemFinder finder = finder_for(ix, p, s, item, nullptr, 0);
  for (unsigned n = 0; n < kOccurrencesPerChunk; ++n, ++row) {
    while (row >= rows[j].y) {
      if (++j == item.seeds) return;
      row = rows[j].x;
    }
    visit(n, finder, (item.first_seed + j) * p.seed_step, sa_at(ix, row));
  }
}

// Step 2, a thread per chunk: which of its occurrences start a match, and how many.
__global__ void __launch_bounds__(kThreadsPerBlock) mark_occurrence_matches(DeviceIndex ix, DeviceParams p, SliceView s,
                                                                           unsigned long long chunks) {
  for (unsigned long long c = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; c < chunks;
       c += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    unsigned marks = 0;
    visit_chunk(ix, p, s, c, [&](unsigned n, const ItemFinder& finder, unsigned pos, unsigned long long t) {
      MemMatch match;
      if (finder.occurrence_match(pos, t, match)) marks |= 1u << n;
    });
    s.chunk_marks[c] = marks;
    s.chunk_counts[c] = __popc(marks);
  }
}

// Step 3 (after a scan of the chunks' counts), a thread per item: where its matches go, and how many.
__global__ void __launch_bounds__(kThreadsPerBlock) place_item_matches(SliceView s) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.item_count) return;
  const unsigned long long from = s.chunk_offsets[s.chunk_first[i]], to = s.chunk_offsets[s.chunk_first[i + 1]];
  s.offsets[i] = from;
  s.counts[i] = to - from;
  if (i + 1 == s.item_count) s.offsets[i + 1] = to;
}

// Step 4, a thread per chunk: its marked matches at their place in `packed` (in occurrence order:
// each item's are sorted afterwards).
__global__ void __launch_bounds__(kThreadsPerBlock) write_occurrence_matches(DeviceIndex ix, DeviceParams p, SliceView s,
                                                                            unsigned long long chunks) {
  for (unsigned long long c = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; c < chunks;
       c += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    const unsigned marks = s.chunk_marks[c];
    if (marks == 0) continue;
    MemMatch* to = s.packed + s.chunk_offsets[c];
    visit_chunk(ix, p, s, c, [&](unsigned n, const ItemFinder& finder, unsigned pos, unsigned long long t) {
      if (marks >> n & 1u) finder.occurrence_match(pos, t, *to++);
    });
  }
}

// A match as a radix-sortable key in hyalign's order (query position, then reference position,
// which together fix the length) and its length, and back. Text offsets are below 2^32.
__global__ void matches_to_keys(const MemMatch* matches, unsigned long long n, unsigned long long* keys,
                                unsigned* lengths) {
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    keys[i] = static_cast<unsigned long long>(matches[i].query_pos) << 32 | matches[i].ref_pos;
    lengths[i] = matches[i].length;
  }
}
__global__ void keys_to_matches(const unsigned long long* keys, const unsigned* lengths, unsigned long long n,
                                MemMatch* matches) {
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    matches[i] = {keys[i] & 0xFFFFFFFFull, static_cast<std::uint32_t>(keys[i] >> 32), lengths[i]};
}

// A slice of a take: strands [first, end), their items, and the buffers one stream uses for it.
struct SliceBuffers {
  Stream stream;
  Event counted, kernel_start, kernel_stop;
  PinnedBuffer<unsigned char> letters, overflowed;
  PinnedBuffer<unsigned long long> starts, counts, totals;
  PinnedBuffer<Item> items;
  PinnedBuffer<unsigned> marks;
  PinnedBuffer<MemMatch> packed;
  DeviceBuffer<unsigned char> d_letters, d_overflowed, d_scan_space, d_sort_space;
  DeviceBuffer<unsigned long long> d_starts, d_counts, d_offsets, d_overflows, d_keys;
  DeviceBuffer<unsigned> d_marks, d_lengths;
  DeviceBuffer<Item> d_items;
  DeviceBuffer<MemMatch> d_slots, d_packed;
  DeviceBuffer<uint2> d_rows;  // -maxmatch's buffers (SliceView)
  DeviceBuffer<unsigned long long> d_chunk_first, d_chunk_counts, d_chunk_offsets;
  DeviceBuffer<unsigned> d_chunk_marks;
  std::size_t first = 0, end = 0, item_count = 0, number = 0;  // number: the slice's place in its take
  bool busy = false;

  SliceView view(bool marked) {
    return {d_letters.ptr, d_starts.ptr, d_items.ptr, static_cast<unsigned>(item_count), d_slots.ptr,
            d_overflowed.ptr, d_counts.ptr, d_offsets.ptr, d_packed.ptr, d_marks.ptr, marked, d_overflows.ptr,
            d_rows.ptr, d_chunk_first.ptr, d_chunk_marks.ptr, d_chunk_counts.ptr, d_chunk_offsets.ptr};
  }
  unsigned blocks() const { return blocks_for(item_count); }
  static unsigned blocks_for(std::size_t threads) {
    return static_cast<unsigned>((threads + kThreadsPerBlock - 1) / kThreadsPerBlock);
  }
};

// Grows a buffer by half again when it must grow: a slice's matches vary, and every reallocation
// waits for the device.
template <typename Buffer>
void reserve_with_room(Buffer& buffer, std::size_t n) {
  if (n > buffer.size) buffer.reserve(n + n / 2);
}

// Whether the GPU can copy from `host` directly (page-locked memory, engine::TransferBuffer).
bool is_page_locked(const void* host) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, host) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

// Copies on a few threads where a copy is large: one thread's copy of a slice would hold the GPU
// up. A small one stays on the calling thread, since threads started while the CPU's workers keep
// every core busy wait for one (milliseconds a take, which --device auto's trial counts).
template <typename T>
void copy_in_parallel(const T* from, std::size_t n, T* to) {
  constexpr std::size_t kCopyThreads = 4, kBytesForThreads = std::size_t{16} << 20;
  if (n * sizeof(T) < kBytesForThreads) {
    std::copy(from, from + n, to);
    return;
  }
  parallel_for(kCopyThreads, kCopyThreads, [&](std::size_t part, unsigned) {
    const std::size_t begin = n * part / kCopyThreads, end = n * (part + 1) / kCopyThreads;
    std::copy(from + begin, from + end, to + begin);
  });
}

// Device memory a kernel takes beside the index: two slices' buffers (letters, starts, items,
// counts, offsets, marks, flags, slots, and packed matches counted at a slot's worth, though they
// grow with a slice's matches; -maxmatch's seed rows take less than the slots they replace, and its
// chunks grow with a slice's occurrences) and room for the runtime.
constexpr std::size_t kBytesBesideIndex =
    2 * (kLettersPerSlice + kItemsPerSlice * (3 * sizeof(unsigned long long) + sizeof(Item) + sizeof(unsigned) + 1 +
                                              2 * kMatchesPerItem * sizeof(MemMatch))) +
    (std::size_t{1} << 28);
// A suffix array in more pieces than this would spend more time swapped in than searched.
constexpr std::size_t kMostPieces = 64;

}  // namespace

std::size_t mem_gpu_bytes_beside_suffix_array(const index::SuffixIndex& index) {
  return index.text().size() + index.buckets().size_bytes() + kBytesBesideIndex;
}

namespace {

// What a kernel may take on GPU `gpu`: what it has free, or less when the user says so.
std::size_t usable_bytes(std::size_t free_bytes, std::size_t memory_limit) {
  return memory_limit ? std::min(free_bytes, memory_limit) : free_bytes;
}

class MemGpuKernel final : public MemKernel {
 public:
  MemGpuKernel(int device, const index::SuffixIndex& index, MemParams params, std::size_t memory_limit,
               unsigned cpu_threads)
      : device_(current_device(device)), index_(index), finder_(index, params), cpu_threads_(cpu_threads),
        params_(params) {
    name_ = engine::use_gpu(device);
    split_suffix_array(memory_limit);
    const std::string_view text = index.text();
    text_.reserve(text.size() + kLetterPadding);
    check(cudaMemcpy(text_.ptr, text.data(), text.size(), cudaMemcpyHostToDevice), "upload");
    check(cudaMemset(text_.ptr + text.size(), 0, kLetterPadding), "memset");
    const auto buckets = index.buckets();
    std::vector<uint2> table(buckets.size());
    for (std::size_t i = 0; i < buckets.size(); ++i) table[i] = make_uint2(buckets[i].lo, buckets[i].hi);
    buckets_.upload(table);
    ix_ = {text_.ptr, text.size(), nullptr, 0, 0, buckets_.ptr, index.prefix_letters()};
    use_piece(0);
    p_ = {static_cast<int>(params.kind), params.min_length, finder_.seed_length(), finder_.seed_step(),
          params.bases_only, params.kind == MemKind::mum && pieces_.size() == 1};
    // The slices' buffers now, as the devices are set up, rather than in the first take: --device
    // auto times the first takes against the cores (engine::WorkerGroup::proves_itself).
    for (SliceBuffers& s : slices_) {
      s.items.reserve(kItemsPerSlice);
      s.starts.reserve(kItemsPerSlice + 1);
      s.letters.reserve(kLettersPerSlice);
      reserve_buffers(s);
    }
  }

  ~MemGpuKernel() override {
    if (registered_sa_) cudaHostUnregister(registered_sa_);
  }
  MemGpuKernel(const MemGpuKernel&) = delete;
  MemGpuKernel& operator=(const MemGpuKernel&) = delete;

  std::string_view name() const override { return name_; }
  double device_seconds() const override { return kernel_seconds_; }

  void find(const StrandSet& strands, std::size_t first, std::size_t count, StrandMatches& out) override {
    check(cudaSetDevice(device_), "cudaSetDevice");
    const std::size_t matches_before = out.matches.size();
    reserve_matches(strands, first, count, out);
    if (pieces_.size() == 1) {
      run_slices(strands, first, count, Pass::find, out, true);
    } else {
      find_in_pieces(strands, first, count, out);
    }
    matches_seen_ += out.matches.size() - matches_before;
    letters_seen_ += strands.starts[first + count] - strands.starts[first];
  }

 private:
  enum class Pass { mark, find };

  // Pieces of at most what fits beside the text, the table and the slices' buffers.
  void split_suffix_array(std::size_t memory_limit) {
    std::size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    const std::size_t usable = usable_bytes(free_bytes, memory_limit), beside = mem_gpu_bytes_beside_suffix_array(index_);
    const auto sa = index_.suffix_array();
    if (usable <= beside) throw std::runtime_error("not enough GPU memory for the index text and buffers");
    const std::size_t most_rows = (usable - beside) / sizeof(unsigned);
    pieces_ = sa.size() <= most_rows ? std::vector<index::SaInterval>{{0, static_cast<std::uint32_t>(sa.size())}}
                                     : index::split_suffix_array(index_, most_rows, finder_.seed_length());
    std::size_t largest = 0;
    for (const auto& piece : pieces_) largest = std::max<std::size_t>(largest, piece.size());
    if (largest > most_rows || pieces_.size() > kMostPieces)
      throw std::runtime_error("the suffix array does not fit the GPU's memory in " + std::to_string(kMostPieces) +
                               " pieces");
    sa_.reserve(largest);
    if (pieces_.size() == 1) return;
    name_ += " (suffix array in " + std::to_string(pieces_.size()) + " pieces)";
    // Pieces are swapped in on every take: from page-locked memory that runs at the link's speed.
    // Without it (a locked-memory limit) they are copied through the driver's staging buffer.
    void* host = const_cast<std::uint32_t*>(sa.data());
    if (cudaHostRegister(host, sa.size_bytes(), cudaHostRegisterDefault) == cudaSuccess) registered_sa_ = host;
    else cudaGetLastError();  // clears the error: pageable copies work too
  }

  // Makes piece `p` the resident rows (every kernel on the old piece has finished).
  void use_piece(std::size_t p) {
    if (p == resident_) return;
    const index::SaInterval rows = pieces_[p];
    check(cudaMemcpy(sa_.ptr, index_.suffix_array().data() + rows.lo, rows.size() * sizeof(unsigned),
                     cudaMemcpyHostToDevice), "upload");
    ix_.sa = sa_.ptr;
    ix_.row_lo = rows.lo;
    ix_.row_hi = rows.hi;
    resident_ = p;
  }

  // Marks from every piece, then every piece's matches, merged. The pieces are visited from the
  // resident one and back, so each take swaps in all but one twice.
  void find_in_pieces(const StrandSet& strands, std::size_t first, std::size_t count, StrandMatches& out) {
    std::vector<std::size_t> order(pieces_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(resident_), order.end());
    marks_.clear();
    if (params_.kind != MemKind::maxmatch)
      for (std::size_t p : order) {
        use_piece(p);
        run_slices(strands, first, count, Pass::mark, out, false);
      }
    std::vector<StrandMatches> found(pieces_.size());
    for (auto p = order.rbegin(); p != order.rend(); ++p) {
      use_piece(*p);
      found[*p].first = first;
      run_slices(strands, first, count, Pass::find, found[*p], p == order.rbegin());
    }
    merge_piece_matches(found, params_.kind, out);
  }

  // One pass over strands [first, first + count) in slices on the two streams. A strand the GPU
  // does not take is found on the CPU (with the whole index) when `cpu_long` is set, else left
  // empty (with pieces, one pass finds it).
  void run_slices(const StrandSet& strands, std::size_t first, std::size_t count, Pass pass, StrandMatches& out,
                  bool cpu_long) {
    std::size_t next = first, number = 0;
    const std::size_t end = first + count;
    for (int turn = 0; next < end || slices_[0].busy || slices_[1].busy; turn ^= 1) {
      SliceBuffers& s = slices_[turn];
      if (s.busy) collect(s, pass, out);
      if (next < end && !gpu_takes(strands, next)) {
        // After the strands before it.
        if (slices_[turn ^ 1].busy) collect(slices_[turn ^ 1], pass, out);
        if (pass == Pass::find) {
          if (cpu_long) find_on_cpu_in_parallel(finder_, strands, next, 1, cpu_threads_, out);
          else out.offsets.push_back(out.matches.size());
        }
        ++next;
        continue;
      }
      if (next < end) next = launch(s, strands, next, end, pass, number++);
    }
  }

  // Seeds and work items of a strand of `length` letters.
  std::uint64_t seeds_of(std::uint64_t length) const {
    return length >= p_.seed_length ? (length - p_.seed_length) / p_.seed_step + 1 : 0;
  }
  static std::uint64_t items_of(std::uint64_t seeds) { return (seeds + kSeedsPerItem - 1) / kSeedsPerItem; }
  bool fits_a_slice(std::uint64_t length) const {
    return length <= kLettersPerSlice && items_of(seeds_of(length)) <= kItemsPerSlice;
  }

  // Whether the GPU takes strand `i`: it fits a slice and has no periodic stretch (an N gap, a
  // homopolymer, a microsatellite) longer than kLongestGpuStretch. The CPU crosses a stretch in
  // one step (index/periodic_runs.hpp); a GPU thread compares it letter by letter at each position
  // inside, which is quadratic in its length.
  bool gpu_takes(const StrandSet& strands, std::size_t i) {
    const std::string_view strand = strands.strand(i);
    if (!fits_a_slice(strand.size())) return false;
    if (strand.size() <= kLongestGpuStretch) return true;
    stretches_.find(strand);
    return stretches_.longest() <= kLongestGpuStretch;
  }

  // Reserves room for the matches of a take, from the matches per letter so far: growing a
  // vector of hundreds of megabytes copies it.
  void reserve_matches(const StrandSet& strands, std::size_t first, std::size_t count, StrandMatches& out) const {
    if (letters_seen_ == 0) return;
    const double letters = static_cast<double>(strands.starts[first + count] - strands.starts[first]);
    const double expected = letters * static_cast<double>(matches_seen_) / static_cast<double>(letters_seen_);
    out.matches.reserve(out.matches.size() + static_cast<std::size_t>(expected * 1.1));
    out.offsets.reserve(out.offsets.size() + count);
  }

  // Fills `s` with strands from `next` on (up to a slice's items and letters), uploads them and
  // starts the slice's pass; returns the first strand it did not take.
  std::size_t launch(SliceBuffers& s, const StrandSet& strands, std::size_t next, std::size_t end, Pass pass,
                     std::size_t number) {
    s.first = next;
    s.number = number;
    s.items.reserve(kItemsPerSlice);
    s.starts.reserve(kItemsPerSlice + 1);
    std::size_t items = 0;
    const std::uint64_t base = strands.starts[next];
    for (; next < end; ++next) {
      const std::uint64_t length = strands.starts[next + 1] - strands.starts[next];
      const std::uint64_t seeds = seeds_of(length), item_count = items_of(seeds);
      if (!gpu_takes(strands, next) ||
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
    const unsigned char* from = reinterpret_cast<const unsigned char*>(strands.letters.data()) + base;
    if (!is_page_locked(from)) {  // copied through the slice's page-locked buffer
      s.letters.reserve(kLettersPerSlice);
      copy_in_parallel(from, letters, s.letters.ptr);
      from = s.letters.ptr;
    }
    reserve_buffers(s);
    check(cudaMemcpyAsync(s.d_letters.ptr, from, letters, cudaMemcpyHostToDevice, s.stream), "upload");
    check(cudaMemcpyAsync(s.d_starts.ptr, s.starts.ptr, (strand_count + 1) * sizeof(unsigned long long),
                          cudaMemcpyHostToDevice, s.stream), "upload");
    check(cudaMemcpyAsync(s.d_items.ptr, s.items.ptr, items * sizeof(Item), cudaMemcpyHostToDevice, s.stream), "upload");
    check(cudaEventRecord(s.kernel_start, s.stream), "cudaEventRecord");
    if (items > 0) {
      if (pass == Pass::mark) start_marking(s);
      else if (by_occurrence()) start_finding_by_occurrence(s);
      else start_finding(s);
    }
    check(cudaEventRecord(s.counted, s.stream), "cudaEventRecord");
    s.busy = true;
    return next;
  }

  void start_marking(SliceBuffers& s) {
    mark_repeated_seeds<<<s.blocks(), kThreadsPerBlock, 0, s.stream>>>(ix_, p_, s.view(false));
    check(cudaGetLastError(), "kernel launch");
    check(cudaEventRecord(s.kernel_stop, s.stream), "cudaEventRecord");
    check(cudaMemcpyAsync(s.marks.ptr, s.d_marks.ptr, s.item_count * sizeof(unsigned), cudaMemcpyDeviceToHost,
                          s.stream), "download");
  }

  // Passes 1 and 2 and the scan; the total is downloaded with the count of overflowed items.
  void start_finding(SliceBuffers& s) {
    const std::size_t items = s.item_count;
    const bool marked = !marks_.empty();
    if (marked) {
      std::copy_n(marks_[s.number].data(), items, s.marks.ptr);
      check(cudaMemcpyAsync(s.d_marks.ptr, s.marks.ptr, items * sizeof(unsigned), cudaMemcpyHostToDevice, s.stream),
            "upload");
    }
    check(cudaMemsetAsync(s.d_overflows.ptr, 0, sizeof(unsigned long long), s.stream), "memset");
    check(cudaMemsetAsync(s.d_counts.ptr + items, 0, sizeof(unsigned long long), s.stream), "memset");
    find_item_matches<<<s.blocks(), kThreadsPerBlock, 0, s.stream>>>(ix_, p_, s.view(marked));
    count_overflowed<<<s.blocks(), kThreadsPerBlock, 0, s.stream>>>(ix_, p_, s.view(marked));
    check(cudaGetLastError(), "kernel launch");
    exclusive_sum(s, s.d_counts.ptr, s.d_offsets.ptr, items + 1);
    check(cudaMemcpyAsync(s.totals.ptr, s.d_offsets.ptr + items, sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                          s.stream), "download");
    check(cudaMemcpyAsync(s.totals.ptr + 1, s.d_overflows.ptr, sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                          s.stream), "download");
  }

  bool by_occurrence() const { return p_.kind == static_cast<int>(MemKind::maxmatch); }

  // -maxmatch, step 1 and the scan of the items' chunk counts (kept in d_counts until step 3); the
  // chunk count is downloaded.
  void start_finding_by_occurrence(SliceBuffers& s) {
    const std::size_t items = s.item_count;
    check(cudaMemsetAsync(s.d_counts.ptr + items, 0, sizeof(unsigned long long), s.stream), "memset");
    count_occurrence_chunks<<<s.blocks(), kThreadsPerBlock, 0, s.stream>>>(ix_, p_, s.view(false), s.d_counts.ptr);
    check(cudaGetLastError(), "kernel launch");
    exclusive_sum(s, s.d_counts.ptr, s.d_chunk_first.ptr, items + 1);
    check(cudaMemcpyAsync(s.totals.ptr, s.d_chunk_first.ptr + items, sizeof(unsigned long long),
                          cudaMemcpyDeviceToHost, s.stream), "download");
  }

  // An exclusive prefix sum of n values on the slice's stream (its space grown when a scan needs more).
  static void exclusive_sum(SliceBuffers& s, const unsigned long long* in, unsigned long long* out, std::size_t n) {
    if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw std::runtime_error("more work items or occurrences in one slice than a scan takes");
    std::size_t space = 0;
    check(cub::DeviceScan::ExclusiveSum(nullptr, space, in, out, static_cast<int>(n), s.stream), "scan");
    reserve_with_room(s.d_scan_space, space);
    space = s.d_scan_space.size;
    check(cub::DeviceScan::ExclusiveSum(s.d_scan_space.ptr, space, in, out, static_cast<int>(n), s.stream), "scan");
  }

  void reserve_buffers(SliceBuffers& s) {
    s.d_letters.reserve(kLettersPerSlice + kLetterPadding);
    s.d_starts.reserve(kItemsPerSlice + 1);
    s.d_items.reserve(kItemsPerSlice);
    if (by_occurrence()) {
      s.d_rows.reserve(kItemsPerSlice * kSeedsPerItem);
      s.d_chunk_first.reserve(kItemsPerSlice + 1);
    } else {
      s.d_slots.reserve(kItemsPerSlice * kMatchesPerItem);
    }
    s.d_overflowed.reserve(kItemsPerSlice);
    s.d_counts.reserve(kItemsPerSlice + 1);
    s.d_offsets.reserve(kItemsPerSlice + 1);
    s.d_overflows.reserve(1);
    s.d_marks.reserve(kItemsPerSlice);
    s.marks.reserve(kItemsPerSlice);
    s.overflowed.reserve(kItemsPerSlice);
    s.counts.reserve(kItemsPerSlice);
    s.totals.reserve(2);
    if (s.d_scan_space.size == 0) {
      std::size_t space = 0;
      check(cub::DeviceScan::ExclusiveSum(nullptr, space, s.d_counts.ptr, s.d_offsets.ptr,
                                          static_cast<int>(kItemsPerSlice + 1), s.stream), "scan");
      s.d_scan_space.reserve(space);
    }
  }

  void collect(SliceBuffers& s, Pass pass, StrandMatches& out) {
    check(cudaEventSynchronize(s.counted), "kernel");
    s.busy = false;
    if (pass == Pass::mark) collect_marks(s);
    else collect_matches(s, out);
  }

  // Joins this piece's marks of the slice's seeds to the other pieces'.
  void collect_marks(SliceBuffers& s) {
    if (marks_.size() <= s.number) marks_.resize(s.number + 1);
    std::vector<unsigned>& marks = marks_[s.number];
    marks.resize(s.item_count, 0);
    for (std::size_t i = 0; i < s.item_count; ++i) marks[i] |= s.marks.ptr[i];
    add_kernel_time(s);
  }

  // Places every item's matches, downloads them and appends the slice's strands to `out`.
  void collect_matches(SliceBuffers& s, StrandMatches& out) {
    std::size_t total = 0;
    if (s.item_count > 0) {
      total = by_occurrence() ? write_matches_by_occurrence(s) : write_matches_by_item(s);
      check(cudaEventRecord(s.kernel_stop, s.stream), "cudaEventRecord");
      check(cudaMemcpyAsync(s.counts.ptr, s.d_counts.ptr, s.item_count * sizeof(unsigned long long),
                            cudaMemcpyDeviceToHost, s.stream), "download");
      if (p_.apply_mum)
        check(cudaMemcpyAsync(s.overflowed.ptr, s.d_overflowed.ptr, s.item_count, cudaMemcpyDeviceToHost, s.stream),
              "download");
      check(cudaMemcpyAsync(s.packed.ptr, s.d_packed.ptr, total * sizeof(MemMatch), cudaMemcpyDeviceToHost, s.stream),
            "download");
      check(cudaStreamSynchronize(s.stream), "kernel");
      add_kernel_time(s);
    }
    const std::size_t base = out.matches.size();
    out.matches.resize(base + total);  // left unset (LargeArray), then written on several threads
    copy_in_parallel(s.packed.ptr, total, out.matches.data() + base);
    append_offsets(s, base, out);
  }

  // Pass 3 once the total is known, and the sort of the items that overflowed their slots (found
  // again in seed order); returns the total.
  std::size_t write_matches_by_item(SliceBuffers& s) {
    const std::size_t total = s.totals.ptr[0];
    reserve_with_room(s.d_packed, total);
    reserve_with_room(s.packed, total);
    pack_matches<<<s.blocks(), kThreadsPerBlock, 0, s.stream>>>(ix_, p_, s.view(!marks_.empty()));
    check(cudaGetLastError(), "kernel launch");
    if (s.totals.ptr[1] > 0) sort_items(s, total);
    return total;
  }

  // -maxmatch, steps 2 to 4 once the chunk count is known: the chunks' marks and their scan, the
  // items' places, then (once the total is known) the matches, each item's sorted. Returns the total.
  std::size_t write_matches_by_occurrence(SliceBuffers& s) {
    const std::size_t chunks = s.totals.ptr[0];
    reserve_with_room(s.d_chunk_marks, chunks);
    reserve_with_room(s.d_chunk_counts, chunks + 1);
    reserve_with_room(s.d_chunk_offsets, chunks + 1);
    const unsigned chunk_blocks = std::min(SliceBuffers::blocks_for(chunks), kMostChunkBlocks);
    if (chunks > 0) mark_occurrence_matches<<<chunk_blocks, kThreadsPerBlock, 0, s.stream>>>(ix_, p_, s.view(false), chunks);
    check(cudaMemsetAsync(s.d_chunk_counts.ptr + chunks, 0, sizeof(unsigned long long), s.stream), "memset");
    exclusive_sum(s, s.d_chunk_counts.ptr, s.d_chunk_offsets.ptr, chunks + 1);
    place_item_matches<<<s.blocks(), kThreadsPerBlock, 0, s.stream>>>(s.view(false));
    check(cudaGetLastError(), "kernel launch");
    check(cudaMemcpyAsync(s.totals.ptr, s.d_offsets.ptr + s.item_count, sizeof(unsigned long long),
                          cudaMemcpyDeviceToHost, s.stream), "download");
    check(cudaStreamSynchronize(s.stream), "kernel");
    const std::size_t total = s.totals.ptr[0];
    if (total == 0) return 0;
    reserve_with_room(s.d_packed, total);
    reserve_with_room(s.packed, total);
    write_occurrence_matches<<<chunk_blocks, kThreadsPerBlock, 0, s.stream>>>(ix_, p_, s.view(false), chunks);
    check(cudaGetLastError(), "kernel launch");
    sort_items(s, total);
    return total;
  }

  // Every item's matches sorted in place (items found again are in seed order): a segmented radix
  // sort on (query position, reference position) keys.
  void sort_items(SliceBuffers& s, std::size_t total) {
    if (total > (std::size_t{1} << 31)) throw std::runtime_error("more matches in one slice than a sort takes");
    reserve_with_room(s.d_keys, 2 * total);
    reserve_with_room(s.d_lengths, 2 * total);
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((total + 255) / 256, 4096));
    unsigned long long *keys = s.d_keys.ptr, *sorted_keys = keys + total;
    unsigned *lengths = s.d_lengths.ptr, *sorted_lengths = lengths + total;
    matches_to_keys<<<blocks, 256, 0, s.stream>>>(s.d_packed.ptr, total, keys, lengths);
    check(cudaGetLastError(), "kernel launch");
    const auto items = static_cast<std::int64_t>(s.item_count);
    std::size_t space = 0;
    check(cub::DeviceSegmentedSort::SortPairs(nullptr, space, keys, sorted_keys, lengths, sorted_lengths,
                                              static_cast<std::int64_t>(total), items, s.d_offsets.ptr,
                                              s.d_offsets.ptr + 1, s.stream), "sort");
    reserve_with_room(s.d_sort_space, space);
    check(cub::DeviceSegmentedSort::SortPairs(s.d_sort_space.ptr, space, keys, sorted_keys, lengths, sorted_lengths,
                                              static_cast<std::int64_t>(total), items, s.d_offsets.ptr,
                                              s.d_offsets.ptr + 1, s.stream), "sort");
    keys_to_matches<<<blocks, 256, 0, s.stream>>>(sorted_keys, sorted_lengths, total, s.d_packed.ptr);
    check(cudaGetLastError(), "kernel launch");
  }

  void add_kernel_time(SliceBuffers& s) {
    if (s.item_count == 0) return;
    float ms = 0;
    check(cudaEventElapsedTime(&ms, s.kernel_start, s.kernel_stop), "cudaEventElapsedTime");
    kernel_seconds_ += ms / 1000.0;
  }

  // Offsets per strand from the item counts; a strand -mum's rule was not applied to on the GPU
  // (several items, or an overflowed one) gets it here, unless pieces are merged later.
  void append_offsets(const SliceBuffers& s, std::size_t base, StrandMatches& out) const {
    bool host_mum = false;
    std::size_t item = 0, end_of_strand = base;
    for (std::size_t strand = 0; strand < s.end - s.first; ++strand) {
      std::size_t pieces = 0;
      bool overflowed = false;
      for (; item < s.item_count && s.items.ptr[item].strand == strand; ++item, ++pieces) {
        end_of_strand += s.counts.ptr[item];
        overflowed = overflowed || (p_.apply_mum && s.overflowed.ptr[item]);
      }
      host_mum = host_mum || (p_.apply_mum && (pieces > 1 || overflowed));
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
  const index::SuffixIndex& index_;
  MemFinder finder_;  // strands the GPU leaves to the CPU, on cpu_threads_ threads
  unsigned cpu_threads_;
  index::PeriodicRuns stretches_;  // of the strand gpu_takes looks at
  MemParams params_;
  std::string name_;
  DeviceBuffer<unsigned char> text_;
  DeviceBuffer<unsigned> sa_;  // the resident piece
  DeviceBuffer<uint2> buckets_;
  std::vector<index::SaInterval> pieces_;
  void* registered_sa_ = nullptr;  // the host suffix array, page-locked while pieces are swapped
  std::size_t resident_ = SIZE_MAX;
  std::vector<std::vector<unsigned>> marks_;  // per slice of a take, per item: every piece's marks
  DeviceIndex ix_{};
  DeviceParams p_{};
  SliceBuffers slices_[2];
  double kernel_seconds_ = 0;
  std::size_t matches_seen_ = 0, letters_seen_ = 0;
};

}  // namespace


std::string mem_gpu_unsupported_reason(const index::SuffixIndex& index, std::size_t memory_limit) {
  const std::size_t beside = mem_gpu_bytes_beside_suffix_array(index);
  const std::size_t needed = beside + index.suffix_array().size_bytes() / kMostPieces;
  for (const engine::GpuInfo& gpu : engine::usable_gpus())
    if (usable_bytes(gpu.free_bytes, memory_limit) < needed)
      return "the index needs at least " + std::to_string(needed >> 20) + " MiB of GPU memory (its suffix array in " +
             std::to_string(kMostPieces) + " pieces) and gpu" + std::to_string(gpu.index) + " has " +
             std::to_string(usable_bytes(gpu.free_bytes, memory_limit) >> 20) + " MiB" +
             (memory_limit ? " within --gpu-memory" : " free");
  return "";
}

std::unique_ptr<MemKernel> make_mem_gpu_kernel(int device, const index::SuffixIndex& index, MemParams params,
                                               std::size_t memory_limit, unsigned cpu_threads) {
  return std::make_unique<MemGpuKernel>(device, index, params, memory_limit, cpu_threads);
}

}  // namespace hyalign::kernels::cuda

#pragma once
// The suffix index's searches on a GPU (index/suffix_index.cpp's compare, insertion row and
// narrowing, with the same results), shared by the mem and seed kernels. The index's text, suffix
// array rows (all of them, or one piece) and prefix table are in device memory. The searches are
// memory-latency bound, so they make fewer dependent loads: letters are compared eight at a time,
// and binary searches skip the letters that both bounds share with the pattern.
#include <cuda_runtime.h>

#include <cstddef>

#include "index/suffix_index.hpp"

namespace hyalign::kernels::cuda {

// Readable bytes after the last letter of the text and of any pattern buffer: letters are compared
// eight at a time, from any offset, as two aligned words. The text's padding is zero (past its end).
inline constexpr std::size_t kLetterPadding = 16;

// The index with the suffix array rows [row_lo, row_hi) resident (all of them, or one piece).
struct DeviceIndex {
  const unsigned char* text;
  unsigned long long length;
  const unsigned* sa;  // row r is sa[r - row_lo]
  unsigned row_lo, row_hi;
  const uint2* buckets;  // SaInterval {lo, hi} per prefix code
  unsigned prefix_letters;
};

__device__ __forceinline__ int base_code(unsigned char c) { return index::base_code(static_cast<char>(c)); }

__device__ __forceinline__ unsigned long long sa_at(const DeviceIndex& ix, unsigned row) {
  return __ldg(ix.sa + (row - ix.row_lo));
}

// The eight letters from `p` on, the first in the lowest byte, as two aligned loads (the buffers
// have kLetterPadding bytes after their last letter).
__device__ __forceinline__ unsigned long long load_letters(const unsigned char* p) {
  const auto address = reinterpret_cast<unsigned long long>(p);
  const auto* words = reinterpret_cast<const unsigned long long*>(address & ~7ull);
  const unsigned shift = static_cast<unsigned>(address & 7) * 8;
  const unsigned long long low = __ldg(words);
  return shift == 0 ? low : low >> shift | __ldg(words + 1) << (64 - shift);
}

// 0xFF in each byte of `letters` that is not a, c, g or t.
__device__ __forceinline__ unsigned long long not_bases(unsigned long long letters) {
  const auto half = [](unsigned w) {
    return ~(__vcmpeq4(w, 0x61616161u) | __vcmpeq4(w, 0x63636363u) | __vcmpeq4(w, 0x67676767u) |
             __vcmpeq4(w, 0x74747474u));
  };
  return static_cast<unsigned long long>(half(static_cast<unsigned>(letters >> 32))) << 32 |
         half(static_cast<unsigned>(letters));
}

// Letters equal from a[0] and b[0] on, at most `most`, eight at a time; with `bases_only` a letter
// other than a/c/g/t ends the run.
__device__ inline unsigned common_prefix(const unsigned char* a, const unsigned char* b, unsigned most,
                                         bool bases_only) {
  unsigned n = 0;
  while (n < most) {
    const unsigned long long x = load_letters(a + n);
    const unsigned long long differ = (x ^ load_letters(b + n)) | (bases_only ? not_bases(x) : 0);
    if (differ != 0) return min(most, n + ((__ffsll(static_cast<long long>(differ)) - 1) >> 3));
    n += 8;
  }
  return most;
}

// The comparison of SuffixIndex::bound_row (the text ends with a separator below every letter,
// and its padding reads as more), from letter `from` on, which both are known to share; `same` is
// set to the letters they share (at most `length`).
__device__ inline int compare_suffix(const DeviceIndex& ix, unsigned long long pos, const unsigned char* pattern,
                                     unsigned length, unsigned from, unsigned& same) {
  for (unsigned i = from; i < length; i += 8) {
    const unsigned long long t = load_letters(ix.text + pos + i), q = load_letters(pattern + i);
    if (t == q) continue;
    const unsigned byte = (__ffsll(static_cast<long long>(t ^ q)) - 1) >> 3;
    if (i + byte >= length) break;
    same = i + byte;
    return (t >> 8 * byte & 0xFF) < (q >> 8 * byte & 0xFF) ? -1 : 1;
  }
  same = length;
  return 0;
}

// The first row in `within` (whose suffixes share `depth` letters with the pattern) that is not
// below pattern[0, length) (`upper`: not below or equal), by binary search. The letters the pattern
// shares with the bounds' suffixes are skipped: every row between shares their minimum; so are
// known(pos), the letters a caller knows the suffix at text offset pos shares (at most as many).
template <class Known>
__device__ inline unsigned search_rows(const DeviceIndex& ix, uint2 within, const unsigned char* pattern,
                                       unsigned length, unsigned depth, bool upper, Known known) {
  return index::bound_row_by(within.x, within.y, depth, upper, [&](unsigned row, unsigned from, unsigned& same) {
    const unsigned long long pos = sa_at(ix, row);
    return compare_suffix(ix, pos, pattern, length, max(from, known(pos)), same);
  });
}

__device__ inline unsigned none_known(unsigned long long) { return 0; }

__device__ inline unsigned insertion_row(const DeviceIndex& ix, uint2 within, const unsigned char* pattern,
                                         unsigned length, unsigned depth) {
  return search_rows(ix, within, pattern, length, depth, false, none_known);
}

__device__ inline uint2 narrow(const DeviceIndex& ix, uint2 within, const unsigned char* pattern, unsigned length,
                               unsigned depth) {
  const unsigned first = insertion_row(ix, within, pattern, length, depth);
  return make_uint2(first, search_rows(ix, make_uint2(first, within.y), pattern, length, depth, true, none_known));
}

// The prefix table's code of pattern[0, prefix_letters), or -1 when the pattern is shorter or one
// of those letters is not a/c/g/t.
__device__ inline long long prefix_code(const DeviceIndex& ix, const unsigned char* pattern, unsigned length) {
  if (length < ix.prefix_letters) return -1;
  long long code = 0;
  for (unsigned i = 0; i < ix.prefix_letters; ++i) {
    const int c = base_code(pattern[i]);
    if (c < 0) return -1;
    code = code * 4 + c;
  }
  return code;
}

}  // namespace hyalign::kernels::cuda

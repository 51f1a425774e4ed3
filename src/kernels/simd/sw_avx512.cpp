// AVX-512BW instances of the Smith–Waterman kernels. Needs AVX512F + AVX512BW only (no VBMI).
// Inter-sequence: 64 targets per vector of 8-bit lanes, 32 per vector of 16-bit lanes (re-runs); the
// per-column profile is built with two 16-entry byte shuffles and a blend (tables pre-broadcast).
// Striped (one target, re-runs beyond 16 bits and tracebacks' locate step): 32 query rows per vector
// of 16-bit lanes, 16 of 32-bit lanes.
#include <immintrin.h>

#include "kernels/simd/sw_simd.hpp"
#include "kernels/simd/sw_simd_kernel.hpp"
#include "kernels/simd/sw_striped_kernel.hpp"

namespace hyalign::kernels::simd {
namespace {

// AVX-512F intrinsics written with an all-lanes zero mask (the same instruction): GCC 12 reports the
// undefined pass-through vector of the plain ones as maybe-uninitialized once they are inlined.
constexpr __mmask8 kAll8 = 0xFF;
constexpr __mmask16 kAll16 = 0xFFFF;

// v moved up by `blocks` 128-bit blocks, fill's top blocks shifted in.
template <int blocks>
__m512i avx512_up_blocks(__m512i v, __m512i fill) {
  if constexpr (blocks == 0) return v;
  else return _mm512_maskz_alignr_epi64(kAll8, v, fill, 8 - 2 * blocks);
}


struct Avx512U8 {
  using V = __m512i;
  using Elem = std::int8_t;
  static constexpr std::size_t kLanes = 64;
  static constexpr std::size_t kColumnsPerPass = 4;
  static V set1(int x) { return _mm512_set1_epi8(static_cast<char>(x)); }
  static V adds(V a, V b) { return _mm512_adds_epi8(a, b); }
  static V subs(V a, V b) { return _mm512_subs_epi8(a, b); }
  static V max(V a, V b) { return _mm512_max_epi8(a, b); }
  static void store(Elem* out, V v) { _mm512_store_si512(reinterpret_cast<void*>(out), v); }
  static void build_profile(const std::uint8_t* codes, const SwTables& tables, std::size_t k, V* out,
                            std::size_t stride) {
    const V t = _mm512_loadu_si512(reinterpret_cast<const void*>(codes));
    const __mmask64 high = _mm512_test_epi8_mask(t, _mm512_set1_epi8(16));  // codes 16..31
    for (std::size_t a = 0; a < k; ++a) {
      const std::int8_t* row = tables.wide + a * 128;
      const V lo = _mm512_shuffle_epi8(_mm512_load_si512(row), t);  // 0 for the pad code
      const V hi = _mm512_shuffle_epi8(_mm512_load_si512(row + 64), t);
      out[a * stride] = _mm512_mask_blend_epi8(high, lo, hi);
    }
  }
};

struct Avx512U16 {
  using V = __m512i;
  using Elem = std::int16_t;
  static constexpr std::size_t kLanes = 32;
  static constexpr std::size_t kColumnsPerPass = 4;
  static V set1(int x) { return _mm512_set1_epi16(static_cast<short>(x)); }
  static V adds(V a, V b) { return _mm512_adds_epi16(a, b); }
  static V subs(V a, V b) { return _mm512_subs_epi16(a, b); }
  static V max(V a, V b) { return _mm512_max_epi16(a, b); }
  static void store(Elem* out, V v) { _mm512_store_si512(reinterpret_cast<void*>(out), v); }
  // AVX-512BW moves 16-bit lanes across 128-bit blocks only by whole blocks (valignq): whole blocks
  // first, then the bytes left with each block's neighbour below (as AVX2 does).
  template <std::size_t lanes>
  static V shift_in(V v, V fill) {
    constexpr int bytes = 2 * lanes, blocks = bytes / 16, rest = bytes % 16;
    const V whole = avx512_up_blocks<blocks>(v, fill);
    if constexpr (rest == 0) return whole;
    else return _mm512_alignr_epi8(whole, avx512_up_blocks<blocks + 1>(v, fill), 16 - rest);
  }
  static bool any_greater(V a, V b) { return _mm512_cmpgt_epi16_mask(a, b) != 0; }
  static void build_profile(const std::uint8_t* codes, const SwTables& tables, std::size_t k, V* out,
                            std::size_t stride) {
    sw_build_profile_scalar<Elem, kLanes>(codes, tables, k, reinterpret_cast<Elem*>(out), stride);
  }
};

// 32-bit lanes of the striped kernel: plain arithmetic, scores stay far inside int.
struct Avx512I32 {
  using V = __m512i;
  using Elem = std::int32_t;
  static constexpr std::size_t kLanes = 16;
  static V set1(int x) { return _mm512_set1_epi32(x); }
  static V adds(V a, V b) { return _mm512_add_epi32(a, b); }
  static V subs(V a, V b) { return _mm512_sub_epi32(a, b); }
  static V max(V a, V b) { return _mm512_maskz_max_epi32(kAll16, a, b); }
  static void store(Elem* out, V v) { _mm512_store_si512(reinterpret_cast<void*>(out), v); }
  template <std::size_t lanes>
  static V shift_in(V v, V fill) {
    return _mm512_maskz_alignr_epi32(kAll16, v, fill, 16 - lanes);
  }
  static bool any_greater(V a, V b) { return _mm512_cmpgt_epi32_mask(a, b) != 0; }
};

}  // namespace

std::unique_ptr<SwKernel> make_sw_avx512_kernel(const SwScoring& scoring) {
  return std::make_unique<SimdSwKernel<Avx512U8, Avx512U16, Avx512I32>>(scoring, "avx512");
}

std::unique_ptr<StripedSw> make_striped_sw_avx512(const SwScoring& scoring) {
  return std::make_unique<StripedSwKernel<Avx512U16, Avx512I32>>(scoring);
}

}  // namespace hyalign::kernels::simd

// AVX-512BW instance of the inter-sequence Smith–Waterman kernel: 64 targets per vector of 8-bit
// lanes, 32 per vector of 16-bit lanes (re-runs). Needs AVX512F + AVX512BW only (no VBMI): the
// per-column profile is built with two 16-entry byte shuffles and a blend (tables pre-broadcast).
#include <immintrin.h>

#include "kernels/simd/sw_simd.hpp"
#include "kernels/simd/sw_simd_kernel.hpp"

namespace hyalign::kernels::simd {
namespace {

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
  static void build_profile(const std::uint8_t* codes, const SwTables& tables, std::size_t k, V* out,
                            std::size_t stride) {
    sw_build_profile_scalar<Elem, kLanes>(codes, tables, k, reinterpret_cast<Elem*>(out), stride);
  }
};

}  // namespace

std::unique_ptr<SwKernel> make_sw_avx512_kernel(const SwScoring& scoring) {
  return std::make_unique<SimdSwKernel<Avx512U8, Avx512U16>>(scoring, "avx512");
}

}  // namespace hyalign::kernels::simd

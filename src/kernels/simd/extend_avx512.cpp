// AVX-512BW instance of the inter-task extension kernel: 32 tasks per vector of 16-bit lanes.
#include <immintrin.h>

#include "kernels/simd/extend_simd.hpp"
#include "kernels/simd/extend_simd_kernel.hpp"

namespace hyalign::kernels::simd {
namespace {

struct Avx512I16 {
  using V = __m512i;
  using Mask = __mmask32;
  static constexpr std::size_t kLanes = 32;
  static V set1(int x) { return _mm512_set1_epi16(static_cast<short>(x)); }
  static V load(const std::int16_t* p) { return _mm512_load_si512(reinterpret_cast<const void*>(p)); }
  static void store(std::int16_t* p, V v) { _mm512_store_si512(reinterpret_cast<void*>(p), v); }
  static V adds(V a, V b) { return _mm512_adds_epi16(a, b); }
  static V subs(V a, V b) { return _mm512_subs_epi16(a, b); }
  static V max(V a, V b) { return _mm512_max_epi16(a, b); }
  static Mask eq(V a, V b) { return _mm512_cmpeq_epi16_mask(a, b); }
  static Mask gt(V a, V b) { return _mm512_cmpgt_epi16_mask(a, b); }
  static Mask nonzero(V a) { return _mm512_test_epi16_mask(a, a); }
  static Mask both(Mask a, Mask b) { return a & b; }
  static V blend(Mask m, V if_set, V if_clear) { return _mm512_mask_blend_epi16(m, if_clear, if_set); }
};

}  // namespace

std::unique_ptr<ExtendKernel> make_extend_avx512_kernel(const ExtendScoring& scoring) {
  return std::make_unique<SimdExtendKernel<Avx512I16>>(scoring, "avx512");
}

}  // namespace hyalign::kernels::simd

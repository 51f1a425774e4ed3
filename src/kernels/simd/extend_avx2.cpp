// AVX2 instance of the inter-task extension kernel: 16 tasks per vector of 16-bit lanes.
#include <immintrin.h>

#include "kernels/simd/extend_simd.hpp"
#include "kernels/simd/extend_simd_kernel.hpp"

namespace hyalign::kernels::simd {
namespace {

struct Avx2I16 {
  using V = __m256i;
  using Mask = __m256i;  // all-ones lanes
  static constexpr std::size_t kLanes = 16;
  static V set1(int x) { return _mm256_set1_epi16(static_cast<short>(x)); }
  static V load(const std::int16_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(std::int16_t* p, V v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
  static V adds(V a, V b) { return _mm256_adds_epi16(a, b); }
  static V subs(V a, V b) { return _mm256_subs_epi16(a, b); }
  static V max(V a, V b) { return _mm256_max_epi16(a, b); }
  static Mask eq(V a, V b) { return _mm256_cmpeq_epi16(a, b); }
  static Mask gt(V a, V b) { return _mm256_cmpgt_epi16(a, b); }
  static Mask nonzero(V a) { return a; }  // lanes are 0 or all ones
  static Mask both(Mask a, Mask b) { return _mm256_and_si256(a, b); }
  static V blend(Mask m, V if_set, V if_clear) { return _mm256_blendv_epi8(if_clear, if_set, m); }
};

}  // namespace

std::unique_ptr<ExtendKernel> make_extend_avx2_kernel(const ExtendScoring& scoring) {
  return std::make_unique<SimdExtendKernel<Avx2I16>>(scoring, "avx2");
}

}  // namespace hyalign::kernels::simd

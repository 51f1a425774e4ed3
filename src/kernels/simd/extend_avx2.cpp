// AVX2 instances of the inter-task extension kernel: 32 tasks per vector of 8-bit lanes, 16 per
// vector of 16-bit lanes.
#include <immintrin.h>

#include "kernels/simd/extend_rows.hpp"
#include "kernels/simd/extend_simd.hpp"
#include "kernels/simd/extend_simd_kernel.hpp"

namespace hyalign::kernels::simd {
namespace {

// Masks are vectors of all-ones lanes, so one byte blend serves both widths.
struct Avx2Vector {
  using V = __m256i;
  using Mask = __m256i;
  static V bit_and(V a, V b) { return _mm256_and_si256(a, b); }
  static V blend(Mask m, V if_set, V if_clear) { return _mm256_blendv_epi8(if_clear, if_set, m); }
};

struct Avx2U8 : Avx2Vector {
  using Lane = std::uint8_t;
  static constexpr std::size_t kLanes = 32;
  static V set1(int x) { return _mm256_set1_epi8(static_cast<char>(x)); }
  static V adds(V a, V b) { return _mm256_adds_epu8(a, b); }
  static V subs(V a, V b) { return _mm256_subs_epu8(a, b); }
  static V max(V a, V b) { return _mm256_max_epu8(a, b); }
  static Mask eq(V a, V b) { return _mm256_cmpeq_epi8(a, b); }
  static V adds_where(Mask m, V src, V a, V b) { return blend(m, adds(a, b), src); }
};

struct Avx2U16 : Avx2Vector {
  using Lane = std::uint16_t;
  static constexpr std::size_t kLanes = 16;
  static V set1(int x) { return _mm256_set1_epi16(static_cast<short>(x)); }
  static V adds(V a, V b) { return _mm256_adds_epu16(a, b); }
  static V subs(V a, V b) { return _mm256_subs_epu16(a, b); }
  static V max(V a, V b) { return _mm256_max_epu16(a, b); }
  static Mask eq(V a, V b) { return _mm256_cmpeq_epi16(a, b); }
  static V adds_where(Mask m, V src, V a, V b) { return blend(m, adds(a, b), src); }
};

}  // namespace

ExtendAlignment extend_align_avx2(const ExtendTask& task, const ExtendScoring& scoring) {
  return extend_align_rows<Avx2U16>(task, scoring);
}

std::unique_ptr<ExtendKernel> make_extend_avx2_kernel(const ExtendScoring& scoring) {
  return std::make_unique<SimdExtendKernel<Avx2U8, Avx2U16>>(scoring, "avx2");
}

}  // namespace hyalign::kernels::simd

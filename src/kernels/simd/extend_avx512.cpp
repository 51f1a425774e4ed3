// AVX-512BW instances of the inter-task extension kernel: 64 tasks per vector of 8-bit lanes, 32 per
// vector of 16-bit lanes.
#include <immintrin.h>

#include "kernels/simd/extend_rows.hpp"
#include "kernels/simd/extend_simd.hpp"
#include "kernels/simd/extend_simd_kernel.hpp"

namespace hyalign::kernels::simd {
namespace {

struct Avx512Vector {
  using V = __m512i;
  static V bit_and(V a, V b) { return _mm512_and_si512(a, b); }
};

struct Avx512U8 : Avx512Vector {
  using Lane = std::uint8_t;
  using Mask = __mmask64;
  static constexpr std::size_t kLanes = 64;
  static V set1(int x) { return _mm512_set1_epi8(static_cast<char>(x)); }
  static V adds(V a, V b) { return _mm512_adds_epu8(a, b); }
  static V subs(V a, V b) { return _mm512_subs_epu8(a, b); }
  static V max(V a, V b) { return _mm512_max_epu8(a, b); }
  static Mask eq(V a, V b) { return _mm512_cmpeq_epi8_mask(a, b); }
  static V blend(Mask m, V if_set, V if_clear) { return _mm512_mask_blend_epi8(m, if_clear, if_set); }
  static V adds_where(Mask m, V src, V a, V b) { return _mm512_mask_adds_epu8(src, m, a, b); }
};

struct Avx512U16 : Avx512Vector {
  using Lane = std::uint16_t;
  using Mask = __mmask32;
  static constexpr std::size_t kLanes = 32;
  static V set1(int x) { return _mm512_set1_epi16(static_cast<short>(x)); }
  static V adds(V a, V b) { return _mm512_adds_epu16(a, b); }
  static V subs(V a, V b) { return _mm512_subs_epu16(a, b); }
  static V max(V a, V b) { return _mm512_max_epu16(a, b); }
  static Mask eq(V a, V b) { return _mm512_cmpeq_epi16_mask(a, b); }
  static V blend(Mask m, V if_set, V if_clear) { return _mm512_mask_blend_epi16(m, if_clear, if_set); }
  static V adds_where(Mask m, V src, V a, V b) { return _mm512_mask_adds_epu16(src, m, a, b); }
};

}  // namespace

ExtendAlignment extend_align_avx512(const ExtendTask& task, const ExtendScoring& scoring) {
  return extend_align_rows<Avx512U16>(task, scoring);
}

std::unique_ptr<ExtendKernel> make_extend_avx512_kernel(const ExtendScoring& scoring) {
  return std::make_unique<SimdExtendKernel<Avx512U8, Avx512U16>>(scoring, "avx512");
}

}  // namespace hyalign::kernels::simd

// AVX2 instances of the Smith–Waterman kernels. Inter-sequence: 32 targets per vector of 8-bit lanes,
// 16 per vector of 16-bit lanes (re-runs); the per-column profile is built with two 16-entry byte
// shuffles and a blend. Striped (one target, re-runs beyond 16 bits and tracebacks' locate step):
// 16 query rows per vector of 16-bit lanes, 8 of 32-bit lanes.
#include <immintrin.h>

#include "kernels/simd/sw_simd.hpp"
#include "kernels/simd/sw_simd_kernel.hpp"
#include "kernels/simd/sw_striped_kernel.hpp"

namespace hyalign::kernels::simd {
namespace {

// v moved up by `bytes` (<= 16) bytes, fill's top bytes shifted in: each 128-bit half of v with the
// half below it ([fill.hi, v.lo]) in front.
template <int bytes>
__m256i avx2_shift_in(__m256i v, __m256i fill) {
  const __m256i below = _mm256_permute2x128_si256(v, fill, 0x03);
  if constexpr (bytes == 16) return below;
  else return _mm256_alignr_epi8(v, below, 16 - bytes);
}

struct Avx2U8 {
  using V = __m256i;
  using Elem = std::int8_t;
  static constexpr std::size_t kLanes = 32;
  static constexpr std::size_t kColumnsPerPass = 4;
  static V set1(int x) { return _mm256_set1_epi8(static_cast<char>(x)); }
  static V adds(V a, V b) { return _mm256_adds_epi8(a, b); }
  static V subs(V a, V b) { return _mm256_subs_epi8(a, b); }
  static V max(V a, V b) { return _mm256_max_epi8(a, b); }
  static void store(Elem* out, V v) { _mm256_store_si256(reinterpret_cast<V*>(out), v); }
  static void build_profile(const std::uint8_t* codes, const SwTables& tables, std::size_t k, V* out,
                            std::size_t stride) {
    const V t = _mm256_loadu_si256(reinterpret_cast<const V*>(codes));
    const V sixteen = _mm256_set1_epi8(16);
    const V high = _mm256_cmpeq_epi8(_mm256_and_si256(t, sixteen), sixteen);  // codes 16..31
    for (std::size_t a = 0; a < k; ++a) {
      const std::int8_t* row = tables.wide + a * 128;
      const V lo = _mm256_shuffle_epi8(_mm256_load_si256(reinterpret_cast<const V*>(row)), t);  // 0 for the pad code
      const V hi = _mm256_shuffle_epi8(_mm256_load_si256(reinterpret_cast<const V*>(row + 64)), t);
      out[a * stride] = _mm256_blendv_epi8(lo, hi, high);
    }
  }
};

struct Avx2U16 {
  using V = __m256i;
  using Elem = std::int16_t;
  static constexpr std::size_t kLanes = 16;
  static constexpr std::size_t kColumnsPerPass = 4;
  static V set1(int x) { return _mm256_set1_epi16(static_cast<short>(x)); }
  static V adds(V a, V b) { return _mm256_adds_epi16(a, b); }
  static V subs(V a, V b) { return _mm256_subs_epi16(a, b); }
  static V max(V a, V b) { return _mm256_max_epi16(a, b); }
  static void store(Elem* out, V v) { _mm256_store_si256(reinterpret_cast<V*>(out), v); }
  template <std::size_t lanes>
  static V shift_in(V v, V fill) {
    return avx2_shift_in<2 * lanes>(v, fill);
  }
  static bool any_greater(V a, V b) { return _mm256_movemask_epi8(_mm256_cmpgt_epi16(a, b)) != 0; }
  static void build_profile(const std::uint8_t* codes, const SwTables& tables, std::size_t k, V* out,
                            std::size_t stride) {
    sw_build_profile_scalar<Elem, kLanes>(codes, tables, k, reinterpret_cast<Elem*>(out), stride);
  }
};

// 32-bit lanes of the striped kernel: plain arithmetic, scores stay far inside int.
struct Avx2I32 {
  using V = __m256i;
  using Elem = std::int32_t;
  static constexpr std::size_t kLanes = 8;
  static V set1(int x) { return _mm256_set1_epi32(x); }
  static V adds(V a, V b) { return _mm256_add_epi32(a, b); }
  static V subs(V a, V b) { return _mm256_sub_epi32(a, b); }
  static V max(V a, V b) { return _mm256_max_epi32(a, b); }
  static void store(Elem* out, V v) { _mm256_store_si256(reinterpret_cast<V*>(out), v); }
  template <std::size_t lanes>
  static V shift_in(V v, V fill) {
    return avx2_shift_in<4 * lanes>(v, fill);
  }
  static bool any_greater(V a, V b) { return _mm256_movemask_epi8(_mm256_cmpgt_epi32(a, b)) != 0; }
};

}  // namespace

std::unique_ptr<SwKernel> make_sw_avx2_kernel(const SwScoring& scoring) {
  return std::make_unique<SimdSwKernel<Avx2U8, Avx2U16, Avx2I32>>(scoring, "avx2");
}

std::unique_ptr<StripedSw> make_striped_sw_avx2(const SwScoring& scoring) {
  return std::make_unique<StripedSwKernel<Avx2U16, Avx2I32>>(scoring);
}

}  // namespace hyalign::kernels::simd

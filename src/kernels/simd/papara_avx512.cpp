// AVX-512BW instance of the inter-branch kernel: 32 branches per vector of 16-bit lanes.
#include <immintrin.h>

#include "kernels/simd/papara_simd.hpp"
#include "kernels/simd/papara_simd_kernel.hpp"

namespace hyalign::kernels::simd {
namespace {

struct Avx512 {
  using V = __m512i;
  using Mask = __mmask32;
  static constexpr std::size_t kLanes = 32;
  static constexpr std::size_t kColumnsPerPass = 4;
  static constexpr std::int16_t kMinusInfinity = -32768;
  static V set1(int x) { return _mm512_set1_epi16(static_cast<std::int16_t>(x)); }
  static V add(V a, V b) { return _mm512_adds_epi16(a, b); }
  static V max(V a, V b) { return _mm512_max_epi16(a, b); }
  static V select(Mask m, V if_clear, V if_set) { return _mm512_mask_blend_epi16(m, if_clear, if_set); }
  // Bit b set when states[b] & set != 0, for 32 lanes of 32-bit state sets.
  static Mask lanes_sharing(const std::uint32_t* states, std::uint32_t set) {
    const __m512i s = _mm512_set1_epi32(static_cast<int>(set));
    const __mmask16 low = _mm512_test_epi32_mask(_mm512_loadu_si512(states), s);
    const __mmask16 high = _mm512_test_epi32_mask(_mm512_loadu_si512(states + 16), s);
    return static_cast<Mask>(low | (static_cast<std::uint32_t>(high) << 16));
  }
  static void store(std::int16_t* out, V v) { _mm512_store_si512(reinterpret_cast<void*>(out), v); }
};

}  // namespace

std::unique_ptr<PaparaKernel> make_avx512_kernel(const PaparaProblem& problem) {
  return std::make_unique<SimdPaparaKernel<Avx512>>(problem, "avx512");
}

}  // namespace hyalign::kernels::simd

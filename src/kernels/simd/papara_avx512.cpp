// AVX-512BW instance of the inter-branch kernel: 32 branches per vector of 16-bit lanes.
#include <immintrin.h>

#include <cstring>

#include "kernels/simd/papara_simd.hpp"
#include "kernels/simd/papara_simd_kernel.hpp"
#include "kernels/simd/papara_traceback_kernel.hpp"

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

  // Inter-query traceback (papara_traceback_kernel.hpp).
  using Cmp = __mmask32;
  static constexpr std::size_t kTraceColumnsPerPass = 4;
  static constexpr std::size_t kTraceWords = 4;
  static Cmp gt(V a, V b) { return _mm512_cmpgt_epi16_mask(a, b); }
  // x + amount in the lanes where a & q != 0.
  static V add_if_shared(V x, V a, V q, V amount) {
    return _mm512_mask_adds_epi16(x, _mm512_test_epi16_mask(a, q), x, amount);
  }
  // The same for 32-bit sets split into low (a, q) and high (a_hi, q_hi) halves.
  static V add_if_shared2(V x, V a, V q, V a_hi, V q_hi, V amount) {
    const Cmp shared = _kor_mask32(_mm512_test_epi16_mask(a, q), _mm512_test_epi16_mask(a_hi, q_hi));
    return _mm512_mask_adds_epi16(x, shared, x, amount);
  }
  static void store_trace(std::uint32_t* cell, Cmp not_m, Cmp i_wins, Cmp d_ext, Cmp i_ext) {
    const __mmask64 first = _mm512_kunpackd(static_cast<__mmask64>(i_wins), static_cast<__mmask64>(not_m));
    const __mmask64 second = _mm512_kunpackd(static_cast<__mmask64>(i_ext), static_cast<__mmask64>(d_ext));
    const std::uint64_t words[2] = {first, second};  // two 64-bit stores instead of four 32-bit ones
    std::memcpy(cell, words, sizeof words);
  }
  // Bits 0..3: not_m, i_wins, d_ext, i_ext of one lane.
  static unsigned trace_bits(const std::uint32_t* cell, std::size_t lane) {
    return ((cell[0] >> lane) & 1) | ((cell[1] >> lane) & 1) << 1 | ((cell[2] >> lane) & 1) << 2 |
           ((cell[3] >> lane) & 1) << 3;
  }
};

}  // namespace

std::unique_ptr<PaparaKernel> make_avx512_kernel(const PaparaProblem& problem) {
  return std::make_unique<SimdPaparaKernel<Avx512>>(problem, "avx512");
}

std::unique_ptr<PaparaBatchAligner> make_avx512_aligner(const PaparaProblem& problem) {
  return std::make_unique<SimdPaparaAligner<Avx512>>(problem);
}

}  // namespace hyalign::kernels::simd

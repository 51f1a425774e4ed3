// AVX2 instance of the inter-branch kernel: 16 branches per vector of 16-bit lanes.
#include <immintrin.h>

#include "kernels/simd/papara_simd.hpp"
#include "kernels/simd/papara_simd_kernel.hpp"
#include "kernels/simd/papara_traceback_kernel.hpp"

namespace hyalign::kernels::simd {
namespace {

struct Avx2 {
  using V = __m256i;
  using Mask = std::uint16_t;
  static constexpr std::size_t kLanes = 16;
  static constexpr std::size_t kColumnsPerPass = 2;
  static constexpr std::int16_t kMinusInfinity = -32768;
  static V set1(int x) { return _mm256_set1_epi16(static_cast<std::int16_t>(x)); }
  static V add(V a, V b) { return _mm256_adds_epi16(a, b); }
  static V max(V a, V b) { return _mm256_max_epi16(a, b); }
  // AVX2 has no mask registers: spread the 16 mask bits over the lanes, then blend.
  static V select(Mask m, V if_clear, V if_set) {
    const V bits = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
                                     static_cast<short>(0x8000));
    const V set = _mm256_cmpeq_epi16(_mm256_and_si256(_mm256_set1_epi16(static_cast<short>(m)), bits), bits);
    return _mm256_blendv_epi8(if_clear, if_set, set);
  }
  // Bit b set when states[b] & set != 0, for 16 lanes of 32-bit state sets.
  static Mask lanes_sharing(const std::uint32_t* states, std::uint32_t set) {
    const __m256i s = _mm256_set1_epi32(static_cast<int>(set)), zero = _mm256_setzero_si256();
    auto empty = [&](const std::uint32_t* p) {
      const __m256i v = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), s);
      return static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, zero))));
    };
    return static_cast<Mask>(~(empty(states) | (empty(states + 8) << 8)));
  }
  static void store(std::int16_t* out, V v) { _mm256_store_si256(reinterpret_cast<V*>(out), v); }

  // Inter-query traceback (papara_traceback_kernel.hpp). Comparison results stay vectors of 0/-1 lanes.
  using Cmp = __m256i;
  static constexpr std::size_t kTraceColumnsPerPass = 4;
  static constexpr std::size_t kTraceWords = 2;
  static Cmp gt(V a, V b) { return _mm256_cmpgt_epi16(a, b); }
  // x + amount in the lanes where a & q != 0.
  static V add_if_shared(V x, V a, V q, V amount) {
    const V none = _mm256_cmpeq_epi16(_mm256_and_si256(a, q), _mm256_setzero_si256());
    return _mm256_adds_epi16(x, _mm256_andnot_si256(none, amount));
  }
  // The same for 32-bit sets split into low (a, q) and high (a_hi, q_hi) halves.
  static V add_if_shared2(V x, V a, V q, V a_hi, V q_hi, V amount) {
    const V both = _mm256_or_si256(_mm256_and_si256(a, q), _mm256_and_si256(a_hi, q_hi));
    const V none = _mm256_cmpeq_epi16(both, _mm256_setzero_si256());
    return _mm256_adds_epi16(x, _mm256_andnot_si256(none, amount));
  }
  // Two comparisons packed to bytes, one bit per lane each: per 128-bit half h, bits 16h..16h+7 hold
  // the first one's lanes 8h..8h+7 and bits 16h+8..16h+15 the second one's.
  static void store_trace(std::uint32_t* cell, Cmp not_m, Cmp i_wins, Cmp d_ext, Cmp i_ext) {
    cell[0] = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_packs_epi16(not_m, i_wins)));
    cell[1] = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_packs_epi16(d_ext, i_ext)));
  }
  // Bits 0..3: not_m, i_wins, d_ext, i_ext of one lane.
  static unsigned trace_bits(const std::uint32_t* cell, std::size_t lane) {
    const unsigned p = static_cast<unsigned>((lane >> 3) * 16 + (lane & 7));
    return ((cell[0] >> p) & 1) | ((cell[0] >> (p + 8)) & 1) << 1 | ((cell[1] >> p) & 1) << 2 |
           ((cell[1] >> (p + 8)) & 1) << 3;
  }
};

}  // namespace

std::unique_ptr<PaparaKernel> make_avx2_kernel(const PaparaProblem& problem) {
  return std::make_unique<SimdPaparaKernel<Avx2>>(problem, "avx2");
}

std::unique_ptr<PaparaBatchAligner> make_avx2_aligner(const PaparaProblem& problem) {
  return std::make_unique<SimdPaparaAligner<Avx2>>(problem);
}

}  // namespace hyalign::kernels::simd

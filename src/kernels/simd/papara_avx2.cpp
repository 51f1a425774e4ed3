// AVX2 instance of the inter-branch kernel: 16 branches per vector of 16-bit lanes.
#include <immintrin.h>

#include "kernels/simd/papara_simd.hpp"
#include "kernels/simd/papara_simd_kernel.hpp"

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
};

}  // namespace

std::unique_ptr<PaparaKernel> make_avx2_kernel(const PaparaProblem& problem) {
  return std::make_unique<SimdPaparaKernel<Avx2>>(problem, "avx2");
}

}  // namespace hyalign::kernels::simd

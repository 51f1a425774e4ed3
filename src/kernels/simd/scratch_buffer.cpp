#include "kernels/simd/scratch_buffer.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace hyalign::kernels::simd {

void ScratchBuffer::Free::operator()(void* p) const { std::free(p); }

void* ScratchBuffer::reserve_bytes(std::size_t bytes) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  std::size_t want = (bytes + 63) / 64 * 64;
  if (want > bytes_) {
    memory_.reset();
    const bool huge = want >= kHuge;
    if (huge) want = (want + kHuge - 1) / kHuge * kHuge;
    memory_.reset(std::aligned_alloc(huge ? kHuge : 64, want));
    if (!memory_) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    if (huge) madvise(memory_.get(), want, MADV_HUGEPAGE);
#endif
    bytes_ = want;
  }
  return memory_.get();
}

}  // namespace hyalign::kernels::simd

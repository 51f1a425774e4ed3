#include "kernels/simd/scratch_buffer.hpp"

#include <cstdlib>
#include <new>

#include "core/large_memory.hpp"

namespace hyalign::kernels::simd {

void ScratchBuffer::Free::operator()(void* p) const { std::free(p); }

void* ScratchBuffer::reserve_bytes(std::size_t bytes) {
  std::size_t want = (bytes + 63) / 64 * 64;
  if (want > bytes_) {
    memory_.reset();
    const bool huge = want >= kHugePage;
    if (huge) want = (want + kHugePage - 1) / kHugePage * kHugePage;
    memory_.reset(std::aligned_alloc(huge ? kHugePage : 64, want));
    if (!memory_) throw std::bad_alloc();
    if (huge) advise_huge_pages(memory_.get(), want);
    bytes_ = want;
  }
  return memory_.get();
}

}  // namespace hyalign::kernels::simd

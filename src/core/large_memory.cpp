#include "core/large_memory.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace hyalign {

void* allocate_large(std::size_t bytes) {
  if (bytes < kHugePage) {
    void* memory = std::malloc(std::max<std::size_t>(bytes, 1));
    if (memory == nullptr) throw std::bad_alloc();
    return memory;
  }
  if (bytes > SIZE_MAX - kHugePage) throw std::bad_alloc();
  const std::size_t pages_bytes = (bytes + kHugePage - 1) / kHugePage * kHugePage;  // aligned_alloc's rule
  void* memory = std::aligned_alloc(kHugePage, pages_bytes);
  if (memory == nullptr) throw std::bad_alloc();
  advise_huge_pages(memory, pages_bytes);
  return memory;
}

void free_large(void* memory) noexcept { std::free(memory); }

namespace {

// The whole huge pages of [memory, memory + bytes) given to `advise`, if there are any.
template <typename Advise>
void for_whole_huge_pages(void* memory, std::size_t bytes, Advise advise) {
  const auto first = (reinterpret_cast<std::uintptr_t>(memory) + kHugePage - 1) / kHugePage * kHugePage;
  const auto end = (reinterpret_cast<std::uintptr_t>(memory) + bytes) / kHugePage * kHugePage;
  if (first < end) advise(reinterpret_cast<void*>(first), end - first);
}

}  // namespace

void advise_huge_pages(void* memory, std::size_t bytes) noexcept {
#ifdef MADV_HUGEPAGE
  for_whole_huge_pages(memory, bytes, [](void* at, std::size_t n) { madvise(at, n, MADV_HUGEPAGE); });
#endif
}

}  // namespace hyalign

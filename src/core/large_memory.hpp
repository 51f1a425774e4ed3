#pragma once
// Memory for large arrays and buffers (hundreds of MB: an index's suffix array, a batch's output
// text). A block of 2 MiB or more sits on huge pages where the system grants them: filling such
// memory one 4 KiB page fault at a time otherwise dominates, and scattered reads miss the TLB less.
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace hyalign {

inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

// free_large frees either kind that allocate_large returns.
void* allocate_large(std::size_t bytes);
void free_large(void* memory) noexcept;
// Asks for huge pages under the whole 2 MiB pages of [memory, memory + bytes), before it is written.
void advise_huge_pages(void* memory, std::size_t bytes) noexcept;

// std::vector's allocator for large arrays. Value-initialisation (vector(n), resize(n)) leaves the
// elements unset: each such array is overwritten at once, so a pass of zeroes would only cost time.
template <typename T>
struct LargeArrayAllocator {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  using value_type = T;
  LargeArrayAllocator() = default;
  template <typename U>
  LargeArrayAllocator(const LargeArrayAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(allocate_large(n * sizeof(T))); }
  void deallocate(T* p, std::size_t) noexcept { free_large(p); }
  template <typename U>
  void construct(U*) noexcept {}
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <typename U>
  bool operator==(const LargeArrayAllocator<U>&) const noexcept { return true; }
};
template <typename T>
using LargeArray = std::vector<T, LargeArrayAllocator<T>>;

}  // namespace hyalign

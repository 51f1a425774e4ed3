#pragma once
// Scratch memory for the SIMD kernels: grows on demand, is reused across calls, 64-byte aligned, and
// large buffers sit on huge pages where the system offers them (on the traceback benchmark, faulting
// in a fresh buffer's 4 KiB pages took longer than the recurrence itself). The allocation itself is
// compiled without instruction-set flags, so it is safe on every CPU whichever kernel calls it.
#include <cstddef>
#include <memory>

namespace hyalign::kernels::simd {

class ScratchBuffer {
 public:
  template <typename Element>
  Element* reserve(std::size_t n) {
    return static_cast<Element*>(reserve_bytes(n * sizeof(Element)));
  }
  template <typename Element>
  Element* get() const {
    return static_cast<Element*>(memory_.get());
  }

 private:
  void* reserve_bytes(std::size_t bytes);
  struct Free {
    void operator()(void* p) const;
  };
  std::unique_ptr<void, Free> memory_;
  std::size_t bytes_ = 0;
};

}  // namespace hyalign::kernels::simd

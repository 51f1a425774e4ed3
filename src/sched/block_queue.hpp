#pragma once
// One queue of target blocks shared by every device. A CPU worker takes one block at a time, a GPU
// worker many; each block is handed out exactly once, so fast devices simply take more.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <optional>

namespace hyalign::sched {

struct BlockRange {
  std::size_t first = 0;  // first target
  std::size_t count = 0;  // targets in the range
};

class BlockQueue {
 public:
  BlockQueue(std::size_t targets, std::size_t block_width)
      : targets_(targets), width_(block_width), blocks_((targets + block_width - 1) / block_width) {}

  // Up to `max_blocks` consecutive blocks, or nothing once the queue is drained.
  std::optional<BlockRange> take(std::size_t max_blocks = 1) {
    const std::size_t first_block = next_.fetch_add(max_blocks, std::memory_order_relaxed);
    if (first_block >= blocks_) return std::nullopt;
    const std::size_t first = first_block * width_;
    const std::size_t end = std::min(targets_, (first_block + max_blocks) * width_);
    return BlockRange{first, end - first};
  }
  std::size_t block_count() const { return blocks_; }
  std::size_t block_width() const { return width_; }

 private:
  const std::size_t targets_, width_, blocks_;
  std::atomic<std::size_t> next_{0};
};

}  // namespace hyalign::sched

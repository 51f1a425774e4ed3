#pragma once
// The work of a run as a grid of tiles (targets × queries) in one queue that every device pulls
// from. Target blocks are one CPU vector width each; query chunks are small, so a CPU tile is
// short and the run ends evenly. A CPU worker takes one tile at a time, a GPU worker many at once
// as one rectangle; each tile is handed out exactly once, so faster devices simply take more.
#include <algorithm>
#include <cstddef>
#include <mutex>
#include <optional>

namespace hyalign::engine {

// A rectangle of work: queries [first_query, first_query + query_count) against targets
// [first_target, first_target + target_count).
struct WorkTile {
  std::size_t first_target = 0, target_count = 0;
  std::size_t first_query = 0, query_count = 0;
};

class TileQueue {
 public:
  TileQueue(std::size_t targets, std::size_t block_width, std::size_t queries, std::size_t query_chunk)
      : targets_(targets), width_(block_width), queries_(queries), chunk_(std::max<std::size_t>(1, query_chunk)),
        blocks_((targets + block_width - 1) / block_width), chunks_((queries + chunk_ - 1) / chunk_) {}

  // Up to `max_tiles` tiles as one rectangle, or nothing once drained: the rest of the current
  // query chunk, or, from the start of a chunk, whole chunks (every target of several chunks).
  std::optional<WorkTile> take(std::size_t max_tiles = 1) {
    std::lock_guard lock(mutex_);
    if (next_ >= blocks_ * chunks_) return std::nullopt;
    max_tiles = std::max<std::size_t>(1, max_tiles);
    const std::size_t chunk = next_ / blocks_, block = next_ % blocks_;
    std::size_t block_count = std::min(max_tiles, blocks_ - block), chunk_count = 1;
    if (block == 0 && max_tiles >= 2 * blocks_) {
      chunk_count = std::min(max_tiles / blocks_, chunks_ - chunk);
      block_count = blocks_;
    }
    next_ += block_count * chunk_count;
    WorkTile tile;
    tile.first_target = block * width_;
    tile.target_count = std::min(targets_, (block + block_count) * width_) - tile.first_target;
    tile.first_query = chunk * chunk_;
    tile.query_count = std::min(queries_, (chunk + chunk_count) * chunk_) - tile.first_query;
    return tile;
  }
  std::size_t remaining() {
    std::lock_guard lock(mutex_);
    return blocks_ * chunks_ - std::min(next_, blocks_ * chunks_);
  }
  std::size_t tile_count() const { return blocks_ * chunks_; }
  std::size_t block_width() const { return width_; }
  std::size_t query_chunk() const { return chunk_; }
  // Tiles a rectangle covers (what a progress line counts).
  std::size_t tiles_in(const WorkTile& tile) const {
    return (tile.target_count + width_ - 1) / width_ * ((tile.query_count + chunk_ - 1) / chunk_);
  }

 private:
  const std::size_t targets_, width_, queries_, chunk_, blocks_, chunks_;
  std::mutex mutex_;
  std::size_t next_ = 0;
};

}  // namespace hyalign::engine

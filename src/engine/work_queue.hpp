#pragma once
// The work of a run as a grid of tiles (targets × queries) in one queue that every device pulls
// from. Target blocks are one CPU vector width each; query chunks are small, so a CPU tile is
// short and the run ends evenly. A CPU worker takes one tile at a time, a GPU worker many at once
// as one rectangle; each tile is handed out exactly once, so faster devices simply take more. Work
// is counted in cost: each tile costs 1, or its target block's cost where blocks differ (a
// database sorted by length), so that a share of what is left is a share of the time it takes.
#include <algorithm>
#include <cstddef>
#include <mutex>
#include <optional>
#include <vector>

namespace hyalign::engine {

// A rectangle of work: queries [first_query, first_query + query_count) against targets
// [first_target, first_target + target_count).
struct WorkTile {
  std::size_t first_target = 0, target_count = 0;
  std::size_t first_query = 0, query_count = 0;
};

// Which way the queue walks the grid. Query chunks outer: a GPU take is whole query chunks against
// every target (PaPaRa: a few branch blocks, many reads). Target blocks outer: a GPU take is whole
// target blocks against every query, so one launch holds all of a search's queries, which share
// each database sequence's profile on the GPU.
enum class TileOrder { query_chunks_outer, target_blocks_outer };

class TileQueue {
 public:
  TileQueue(std::size_t targets, std::size_t block_width, std::size_t queries, std::size_t query_chunk,
            TileOrder order = TileOrder::query_chunks_outer)
      : targets_(targets), width_(block_width), queries_(queries), chunk_(std::max<std::size_t>(1, query_chunk)),
        blocks_((targets + block_width - 1) / block_width), chunks_((queries + chunk_ - 1) / chunk_),
        targets_outer_(order == TileOrder::target_blocks_outer) {}

  // Each target block's cost per query chunk (block_costs.size() == the blocks), instead of 1.
  void set_block_costs(const std::vector<double>& block_costs) {
    block_cost_prefix_.assign(1, 0.0);
    for (double c : block_costs) block_cost_prefix_.push_back(block_cost_prefix_.back() + c);
  }

  // Up to `max_tiles` tiles as one rectangle, or nothing once drained: the rest of the current
  // outer row, or, from the start of a row, whole rows (e.g. every target of several query chunks).
  std::optional<WorkTile> take(std::size_t max_tiles = 1) {
    std::lock_guard lock(mutex_);
    return take_locked(max_tiles);
  }
  // The last tile not handed out, or nothing once drained. A database sorted longest first has
  // its cheapest tiles there: CPU workers that must soon hand over to GPUs take those.
  std::optional<WorkTile> take_last() {
    std::lock_guard lock(mutex_);
    if (next_ >= end_) return std::nullopt;
    --end_;
    const std::size_t inner = targets_outer_ ? chunks_ : blocks_;
    return rectangle(end_ / inner, end_ % inner, 1, 1);
  }
  // As take(), the tiles that cost at most `budget` from here (at least one).
  std::optional<WorkTile> take_cost(double budget, std::size_t max_tiles) {
    std::lock_guard lock(mutex_);
    std::size_t low = 1, high = std::min(max_tiles, end_ - std::min(next_, end_));
    const double done = cost_before(next_);
    while (low < high) {  // the most tiles within the budget
      const std::size_t mid = (low + high + 1) / 2;
      if (cost_before(next_ + mid) - done <= budget) low = mid;
      else high = mid - 1;
    }
    return take_locked(low);
  }
  double remaining_cost() {
    std::lock_guard lock(mutex_);
    return cost_before(end_) - cost_before(std::min(next_, end_));
  }
  double total_cost() const { return cost_before(tile_count()); }
  double next_tile_cost() {
    std::lock_guard lock(mutex_);
    return next_ < end_ ? cost_before(next_ + 1) - cost_before(next_) : 0.0;
  }
  double cost_of(const WorkTile& tile) const {
    const std::size_t first = tile.first_target / width_, end = (tile.first_target + tile.target_count + width_ - 1) / width_;
    return blocks_cost(first, end) * static_cast<double>(chunks_in(tile));
  }

  std::size_t tile_count() const { return blocks_ * chunks_; }
  std::size_t block_width() const { return width_; }
  std::size_t query_chunk() const { return chunk_; }
  // Tiles a rectangle covers (what a progress line counts).
  std::size_t tiles_in(const WorkTile& tile) const {
    return (tile.target_count + width_ - 1) / width_ * chunks_in(tile);
  }

 private:
  std::size_t chunks_in(const WorkTile& tile) const { return (tile.query_count + chunk_ - 1) / chunk_; }
  double blocks_cost(std::size_t first, std::size_t end) const {
    if (block_cost_prefix_.empty()) return static_cast<double>(end - first);
    return block_cost_prefix_[end] - block_cost_prefix_[first];
  }
  // The cost of the first `tiles` tiles in the queue's order.
  double cost_before(std::size_t tiles) const {
    const std::size_t inner = targets_outer_ ? chunks_ : blocks_;
    if (inner == 0) return 0;  // no queries or no targets
    const std::size_t rows = tiles / inner, rest = tiles % inner;
    if (targets_outer_)  // whole blocks against every chunk, then `rest` chunks of the next block
      return blocks_cost(0, rows) * static_cast<double>(chunks_) +
             blocks_cost(rows, rows + (rest > 0)) * static_cast<double>(rest);
    return blocks_cost(0, blocks_) * static_cast<double>(rows) + blocks_cost(0, rest);
  }
  std::optional<WorkTile> take_locked(std::size_t max_tiles) {
    if (next_ >= end_) return std::nullopt;
    max_tiles = std::min(std::max<std::size_t>(1, max_tiles), end_ - next_);
    const std::size_t inner = targets_outer_ ? chunks_ : blocks_;
    const std::size_t row = next_ / inner, column = next_ % inner;
    std::size_t columns = std::min(max_tiles, inner - column), rows = 1;
    if (column == 0 && max_tiles >= 2 * inner) {
      rows = max_tiles / inner;  // whole rows before end_ (tiles taken from the end leave a row's end)
      columns = inner;
    }
    next_ += columns * rows;
    return rectangle(row, column, rows, columns);
  }
  // The tiles of `rows` rows from `row` by `columns` columns from `column`, in the queue's order.
  WorkTile rectangle(std::size_t row, std::size_t column, std::size_t rows, std::size_t columns) const {
    const std::size_t block = targets_outer_ ? row : column, block_count = targets_outer_ ? rows : columns;
    const std::size_t chunk = targets_outer_ ? column : row, chunk_count = targets_outer_ ? columns : rows;
    WorkTile tile;
    tile.first_target = block * width_;
    tile.target_count = std::min(targets_, (block + block_count) * width_) - tile.first_target;
    tile.first_query = chunk * chunk_;
    tile.query_count = std::min(queries_, (chunk + chunk_count) * chunk_) - tile.first_query;
    return tile;
  }

  const std::size_t targets_, width_, queries_, chunk_, blocks_, chunks_;
  const bool targets_outer_;
  std::vector<double> block_cost_prefix_;  // empty: every block costs 1
  std::mutex mutex_;
  std::size_t next_ = 0, end_ = blocks_ * chunks_;  // tiles [next_, end_) are still to hand out
};

}  // namespace hyalign::engine

#pragma once
// A batch's output cut into blocks of about the same number of lines, formatted in parallel. A
// block may begin or end inside a section (a query strand's header line and its match lines), so
// that a few queries with millions of matches (-maxmatch, genomes against genomes) are formatted
// on every thread, not on one: blocks of 2,048 queries put 400 queries of 100 kb with 510 M
// matches on one thread for 17-22 s (docs/performance.md).
#include <algorithm>
#include <cstddef>
#include <vector>

namespace hyalign::mem {

class TextBlocks {
 public:
  static constexpr std::size_t kLinesPerBlock = std::size_t{1} << 15;

  // `sections` sections, section i with matches_of(i) match lines below its header line.
  template <typename MatchesOf>
  void lay_out(std::size_t sections, MatchesOf&& matches_of, std::size_t lines_per_block = kLinesPerBlock) {
    line_start_.resize(sections + 1);
    line_start_[0] = 0;
    for (std::size_t i = 0; i < sections; ++i) line_start_[i + 1] = line_start_[i] + 1 + matches_of(i);
    lines_per_block_ = lines_per_block;
  }

  std::size_t blocks() const {
    return line_start_.empty() ? 0 : (line_start_.back() + lines_per_block_ - 1) / lines_per_block_;
  }

  // Calls part(section, header, first_match, end_match) for block b's parts in print order: the
  // section's header line when `header`, then its match lines [first_match, end_match).
  template <typename Part>
  void for_each_part(std::size_t b, Part&& part) const {
    std::size_t line = b * lines_per_block_;
    const std::size_t end = std::min(line_start_.back(), line + lines_per_block_);
    auto section = static_cast<std::size_t>(std::upper_bound(line_start_.begin(), line_start_.end(), line) -
                                            line_start_.begin() - 1);
    for (; line < end; ++section) {
      const std::size_t at = line - line_start_[section];  // 0: the header line
      const std::size_t stop = std::min(end, line_start_[section + 1]) - line_start_[section];
      part(section, at == 0, at == 0 ? 0 : at - 1, stop - 1);
      line = line_start_[section] + stop;
    }
  }

 private:
  std::vector<std::size_t> line_start_;  // per section and one more: its header's line in the batch
  std::size_t lines_per_block_ = kLinesPerBlock;
};

}  // namespace hyalign::mem

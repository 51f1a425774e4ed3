#include "index/sa_pieces.hpp"

#include <algorithm>
#include <string>

namespace hyalign::index {
namespace {

// The first `length` letters of the suffix at `pos`, the separator standing for letters past the
// text's end (as the searches compare them).
std::string prefix_of_suffix(std::string_view text, std::size_t pos, unsigned length) {
  std::string prefix(length, kSeparator);
  const std::size_t available = std::min<std::size_t>(length, text.size() - pos);
  std::copy_n(text.begin() + static_cast<std::ptrdiff_t>(pos), available, prefix.begin());
  return prefix;
}

}  // namespace

std::vector<SaInterval> split_suffix_array(const SuffixIndex& index, std::size_t most_rows, unsigned prefix_length) {
  const auto sa = index.suffix_array();
  const auto rows = static_cast<std::uint32_t>(sa.size());
  most_rows = std::max<std::size_t>(most_rows, 1);
  std::vector<SaInterval> pieces;
  for (std::uint32_t start = 0; start < rows;) {
    if (rows - start <= most_rows) {
      pieces.push_back({start, rows});
      break;
    }
    const auto target = static_cast<std::uint32_t>(start + most_rows);
    const std::string prefix = prefix_of_suffix(index.text(), sa[target], prefix_length);
    // Cut before the suffixes that start with the prefix at the target row; if they begin at
    // `start` already, after them (a piece larger than asked).
    std::uint32_t cut = index.insertion_row({start, rows}, prefix, 0);
    if (cut == start) cut = index.narrow({start, rows}, prefix, 0).hi;
    pieces.push_back({start, cut});
    start = cut;
  }
  return pieces;
}

}  // namespace hyalign::index

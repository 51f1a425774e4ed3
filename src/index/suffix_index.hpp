#pragma once
// The index `mem` (and later `map`) searches: the reference text, its suffix array (built with
// libdivsufsort), and a table of the suffix-array interval of every K-letter a/c/g/t prefix, so a
// search starts K letters deep instead of at the root. 5 bytes per reference letter plus the table.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <vector>

#include "core/host_device.hpp"
#include "core/large_memory.hpp"
#include "index/periodic_runs.hpp"
#include "index/reference_text.hpp"
#include "index/row_search.hpp"

namespace hyalign::index {

// Suffix-array rows lo .. hi-1.
struct SaInterval {
  std::uint32_t lo = 0, hi = 0;
  std::uint32_t size() const { return hi - lo; }
  bool empty() const { return hi <= lo; }
};


class SuffixIndex {
 public:
  static SuffixIndex build(ReferenceText reference, unsigned threads);
  // From the parts read back from an index file.
  SuffixIndex(ReferenceText reference, LargeArray<std::uint32_t> suffix_array, unsigned prefix_letters,
              LargeArray<SaInterval> buckets);

  const ReferenceText& reference() const { return ref_; }
  std::string_view text() const { return ref_.text; }
  std::span<const std::uint32_t> suffix_array() const { return sa_; }
  unsigned prefix_letters() const { return prefix_letters_; }
  std::span<const SaInterval> buckets() const { return buckets_; }

  // The K-letter code of pattern[0, K) (K = prefix_letters()), -1 if one is not a/c/g/t.
  long prefix_code(std::string_view pattern) const;
  // The suffixes that start with `pattern` (lower-case letters).
  SaInterval find(std::string_view pattern) const;
  // The same, with prefix_code(pattern) already known (>= 0).
  SaInterval find(std::string_view pattern, long code) const;
  // Narrows `within`, whose suffixes all start with pattern[0, depth), to those that start with
  // pattern[0, pattern.size()).
  SaInterval narrow(SaInterval within, std::string_view pattern, std::size_t depth) const;

  // The first row of `within` (whose suffixes all start with pattern[0, depth)) whose suffix is not
  // below `pattern`: where the pattern would sort.
  std::uint32_t insertion_row(SaInterval within, std::string_view pattern, std::size_t depth) const;
  // The first row of `within` (as above) whose suffix is not below `pattern` (`past_prefix`: not
  // below it nor starting with it). shared(pos, from) gives how many first letters the pattern and
  // the suffix at text offset pos have in common, the first `from` being known equal: the caller's
  // comparison (through periodic stretches, or from lengths it already knows).
  // No letter that the rows around the search share with the pattern is compared twice.
  template <class Shared>
  std::uint32_t bound_row(SaInterval within, std::string_view pattern, std::size_t depth, bool past_prefix,
                          Shared shared) const;

  // The text's periodic stretches, found on first use (a pass over the text).
  const PeriodicRuns& text_runs() const;

  // Bytes of memory the index uses.
  std::size_t bytes() const;

 private:
  SuffixIndex() = default;
  void build_prefix_table(unsigned threads);
  // How many first letters the pattern and the suffix at `pos` share, the first `from` known equal.
  std::size_t shared_letters(std::string_view pattern, std::uint64_t pos, std::size_t from) const;
  struct LazyRuns {
    std::once_flag found;
    PeriodicRuns runs;
  };
  ReferenceText ref_;
  LargeArray<std::uint32_t> sa_;
  unsigned prefix_letters_ = 0;
  LargeArray<SaInterval> buckets_;  // per K-letter code (a=0 c=1 g=2 t=3): one cache line read
  std::shared_ptr<LazyRuns> text_runs_ = std::make_shared<LazyRuns>();
};

template <class Shared>
std::uint32_t SuffixIndex::bound_row(SaInterval within, std::string_view pattern, std::size_t depth, bool past_prefix,
                                     Shared shared) const {
  return bound_row_by(within.lo, within.hi, static_cast<std::uint32_t>(depth), past_prefix,
                      [&](std::uint32_t row, std::uint32_t from, std::uint32_t& same) {
                        const std::uint64_t pos = sa_[row];
                        const std::size_t common = shared(pos, from);
                        same = static_cast<std::uint32_t>(std::min(common, pattern.size()));
                        if (common >= pattern.size()) return 0;
                        const auto t = static_cast<unsigned char>(pos + common < ref_.text.size() ? ref_.text[pos + common]
                                                                                                   : kSeparator);
                        return t < static_cast<unsigned char>(pattern[common]) ? -1 : 1;
                      });
}

// log4 of a text's length (at least 1): the letters a random text needs before a string of them
// occurs about once.
inline double log4_of_length(std::size_t length) {
  return std::log(static_cast<double>(std::max<std::size_t>(length, 4))) / std::log(4.0);
}

// 2-bit code of an a/c/g/t letter, -1 for any other byte.
HYALIGN_HOST_DEVICE constexpr int base_code(char c) {
  switch (c) {
    case 'a': return 0;
    case 'c': return 1;
    case 'g': return 2;
    case 't': return 3;
    default: return -1;
  }
}

}  // namespace hyalign::index

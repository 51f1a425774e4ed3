#pragma once
// Stretches of a string with a short period (N gaps, homopolymers, microsatellites), so that a
// comparison of two strings crosses a stretch they share in one step instead of letter by letter:
// without it, the matches at every position of a long shared stretch take time quadratic in its
// length.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace hyalign::index {

class PeriodicRuns {
 public:
  static constexpr unsigned kMostPeriod = 8;
  // Stretches shorter than this are compared letter by letter.
  static constexpr std::size_t kLeastLength = 64;

  // The stretches of `letters` with each period from 1 to kMostPeriod (periods in parallel on up to
  // `threads` threads), replacing what this held.
  void find(std::string_view letters, unsigned threads = 1);
  // One past the end of the stretch of period `period` that holds `pos`, or `pos` if none does.
  std::uint64_t end_of_stretch(std::uint64_t pos, unsigned period) const;
  // Letters of the longest stretch (0 if none).
  std::uint64_t longest() const;

 private:
  struct Stretch {
    std::uint64_t start, end;  // letters[i] == letters[i + period] for start <= i < end - period
  };
  std::array<std::vector<Stretch>, kMostPeriod> by_period_;
};

// A string and its periodic stretches (none known: `runs` null).
struct RunString {
  std::string_view letters;
  const PeriodicRuns* runs = nullptr;
};

// The letters a.letters[i..] and b.letters[j..] have in common, at most `most`; with `bases_only`
// only a/c/g/t letters count as equal. A stretch of one period that both strings hold from the
// same letters on is crossed at once.
std::size_t common_length(RunString a, std::size_t i, RunString b, std::size_t j, std::size_t most,
                          bool bases_only = false);
// Bytes a[0..] and b[0..] have in common, at most `most`, eight at a time.
inline std::size_t equal_bytes(const char* a, const char* b, std::size_t most) {
  std::size_t n = 0;
  for (; n + 8 <= most; n += 8) {
    std::uint64_t x, y;
    std::memcpy(&x, a + n, 8);
    std::memcpy(&y, b + n, 8);
    if (x != y) return n + static_cast<std::size_t>(std::countr_zero(x ^ y)) / 8;
  }
  while (n < most && a[n] == b[n]) ++n;
  return n;
}

// Bytes that a_end[-1], a_end[-2], ... and b_end[-1], ... have in common going back, at most
// `most`, eight at a time.
inline std::size_t equal_bytes_before(const char* a_end, const char* b_end, std::size_t most) {
  std::size_t n = 0;
  for (; n + 8 <= most; n += 8) {
    std::uint64_t x, y;
    std::memcpy(&x, a_end - n - 8, 8);
    std::memcpy(&y, b_end - n - 8, 8);
    if (x != y) return n + static_cast<std::size_t>(std::countl_zero(x ^ y)) / 8;
  }
  while (n < most && a_end[-1 - static_cast<std::ptrdiff_t>(n)] == b_end[-1 - static_cast<std::ptrdiff_t>(n)]) ++n;
  return n;
}

// common_length, with the first letters compared here (most comparisons end within them) and the
// rest, if they are all equal, by common_length.
inline std::size_t common_length_inline(RunString a, std::size_t i, RunString b, std::size_t j, std::size_t most,
                                        bool bases_only = false) {
  if (bases_only) return common_length(a, i, b, j, most, bases_only);
  const std::size_t first = std::min<std::size_t>({most, 32, a.letters.size() - std::min(i, a.letters.size()),
                                                   b.letters.size() - std::min(j, b.letters.size())});
  const std::size_t n = equal_bytes(a.letters.data() + i, b.letters.data() + j, first);
  return n < first ? n : n + common_length(a, i + n, b, j + n, most - n, bases_only);
}

}  // namespace hyalign::index

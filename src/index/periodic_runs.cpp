#include "index/periodic_runs.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "core/parallel.hpp"
#include "index/suffix_index.hpp"

namespace hyalign::index {
namespace {

std::uint64_t load8(const char* p) {
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  return x;
}

// Letters a[0..] and b[0..] have in common, at most `most` (with -n, a/c/g/t only).
std::size_t plain_common(const char* a, const char* b, std::size_t most, bool bases_only) {
  if (!bases_only) return equal_bytes(a, b, most);
  std::size_t n = 0;
  while (n < most && a[n] == b[n] && base_code(a[n]) >= 0) ++n;
  return n;
}

// Letters from a.letters[i] and b.letters[j] on that both strings' stretches of one period hold,
// when they start with the same period of letters (0 if no such stretch).
std::size_t shared_stretch(RunString a, std::size_t i, RunString b, std::size_t j, bool bases_only) {
  if (!a.runs || !b.runs) return 0;
  for (unsigned period = 1; period <= PeriodicRuns::kMostPeriod; ++period) {
    // A stretch needs the next letters to repeat: a cheap test before the two look-ups.
    if (i + period + 8 > a.letters.size() || load8(a.letters.data() + i) != load8(a.letters.data() + i + period))
      continue;
    const std::uint64_t a_end = a.runs->end_of_stretch(i, period), b_end = b.runs->end_of_stretch(j, period);
    if (a_end < i + period || b_end < j + period) continue;
    const std::string_view unit = a.letters.substr(i, period);
    if (unit != b.letters.substr(j, period)) continue;
    if (bases_only && std::any_of(unit.begin(), unit.end(), [](char c) { return base_code(c) < 0; })) continue;
    return std::min(a_end - i, b_end - j);
  }
  return 0;
}

}  // namespace

void PeriodicRuns::find(std::string_view letters, unsigned threads) {
  const std::size_t n = letters.size();
  const char* x = letters.data();
  parallel_for(kMostPeriod, threads, [&](std::size_t p, unsigned) {
    const std::size_t period = p + 1;
    auto& stretches = by_period_[p];
    stretches.clear();
    // Positions i with x[i] == x[i + period], eight at a time: a stretch of kLeastLength letters
    // holds eight such positions from one of the tested offsets.
    for (std::size_t i = 0; i + period + 8 <= n;) {
      if (load8(x + i) != load8(x + i + period)) {
        i += 8;
        continue;
      }
      std::size_t start = i, end = i + 8;
      while (start > 0 && x[start - 1] == x[start - 1 + period]) --start;
      while (end + period + 8 <= n && load8(x + end) == load8(x + end + period)) end += 8;
      while (end + period < n && x[end] == x[end + period]) ++end;
      if (end + period - start >= kLeastLength) stretches.push_back({start, end + period});
      i = end + 1;
    }
  });
}

std::uint64_t PeriodicRuns::end_of_stretch(std::uint64_t pos, unsigned period) const {
  const auto& stretches = by_period_[period - 1];
  // The last stretch that starts at or before pos (stretches of one period overlap by less than a
  // period, so an earlier one cannot reach past it).
  auto after = std::upper_bound(stretches.begin(), stretches.end(), pos,
                                [](std::uint64_t p, const Stretch& s) { return p < s.start; });
  if (after == stretches.begin()) return pos;
  const Stretch& s = *std::prev(after);
  return pos < s.end ? s.end : pos;
}

std::uint64_t PeriodicRuns::longest() const {
  std::uint64_t most = 0;
  for (const auto& stretches : by_period_)
    for (const Stretch& s : stretches) most = std::max(most, s.end - s.start);
  return most;
}

std::size_t common_length(RunString a, std::size_t i, RunString b, std::size_t j, std::size_t most, bool bases_only) {
  // Stretches are looked for only after this many equal letters, so short comparisons pay nothing.
  constexpr std::size_t kPlainLetters = 64;
  most = std::min({most, a.letters.size() - std::min(i, a.letters.size()), b.letters.size() - std::min(j, b.letters.size())});
  std::size_t n = 0;
  for (;;) {
    const std::size_t stop = std::min(most, n + kPlainLetters);
    n += plain_common(a.letters.data() + i + n, b.letters.data() + j + n, stop - n, bases_only);
    if (n < stop || n == most) return n;
    n = std::min(most, n + shared_stretch(a, i + n, b, j + n, bases_only));
    if (n == most) return n;
  }
}

}  // namespace hyalign::index

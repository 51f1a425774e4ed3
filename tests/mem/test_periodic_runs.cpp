// Comparisons that cross periodic stretches at once against letter-by-letter comparison.
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "index/periodic_runs.hpp"
#include "index/suffix_index.hpp"

namespace hyalign {
namespace {

// Random letters, tandem repeats of units of 1 to 10 letters (some a little longer than a stretch
// must be, some far longer, some with a changed letter), and N runs.
std::string periodic_rich(std::mt19937& rng, std::size_t length) {
  std::string s;
  while (s.size() < length) {
    const std::size_t period = 1 + rng() % 10, copies = 1 + rng() % (rng() % 2 ? 12 : 80);
    std::string unit;
    for (std::size_t i = 0; i < period; ++i) unit += "acgtn"[rng() % (rng() % 8 ? 4 : 5)];
    switch (rng() % 4) {
      case 0:
        s += unit;
        break;
      case 1:
        s += std::string(rng() % 200, 'n');
        break;
      default:
        for (std::size_t c = 0; c < copies; ++c) s += unit;
        if (rng() % 3 == 0 && !s.empty()) s[s.size() - 1 - rng() % std::min<std::size_t>(s.size(), 40)] = 'g';
    }
  }
  return s;
}

std::size_t common_by_letters(const std::string& a, std::size_t i, const std::string& b, std::size_t j, std::size_t most,
                              bool bases_only) {
  std::size_t n = 0;
  while (n < most && i + n < a.size() && j + n < b.size() && a[i + n] == b[j + n] &&
         (!bases_only || index::base_code(a[i + n]) >= 0))
    ++n;
  return n;
}

TEST(PeriodicRuns, CommonLengthEqualsLetterByLetterComparison) {
  std::mt19937 rng(20261128);
  std::size_t crossed = 0;  // comparisons longer than a stretch must be: the skips were exercised
  for (int round = 0; round < 40; ++round) {
    const std::string a = periodic_rich(rng, 1 + rng() % 3000);
    // b shares pieces of a (so long equal stretches meet at many offsets) and has its own letters.
    std::string b(1, 'c');
    b += periodic_rich(rng, rng() % 500);
    for (int piece = 0; piece < 4; ++piece) {
      const std::size_t from = rng() % a.size();
      b += a.substr(from, rng() % 1500) + periodic_rich(rng, rng() % 100);
    }
    index::PeriodicRuns a_runs, b_runs;
    a_runs.find(a, 1 + round % 3);
    b_runs.find(b);
    for (int probe = 0; probe < 2000; ++probe) {
      std::size_t i = rng() % (a.size() + 1), j = rng() % (b.size() + 1);
      if (probe % 2 == 0) {  // the same letters: where a and b share a stretch
        const std::size_t k = rng() % std::min<std::size_t>(b.size(), 400);
        const auto found = a.find(b.substr(j < b.size() - k ? j : b.size() - k, 12));
        if (found != std::string::npos) {
          i = found;
          j = j < b.size() - k ? j : b.size() - k;
          if (rng() % 2 && i > 0 && j > 0) --i, --j;
        }
      }
      const std::size_t most = rng() % 4 ? SIZE_MAX : rng() % 500;
      const bool bases_only = rng() % 3 == 0;
      const std::size_t expected = common_by_letters(a, i, b, j, most, bases_only);
      crossed += expected > index::PeriodicRuns::kLeastLength * 2;
      ASSERT_EQ(index::common_length({a, &a_runs}, i, {b, &b_runs}, j, most, bases_only), expected)
          << "round " << round << " i " << i << " j " << j << " most " << most << (bases_only ? " -n" : "");
      ASSERT_EQ(index::common_length({a, nullptr}, i, {b, &b_runs}, j, most, bases_only), expected);
    }
  }
  EXPECT_GT(crossed, 1000u);
}

TEST(PeriodicRuns, AStretchEndsWhereItsPeriodBreaks) {
  const std::string s = "gc" + std::string(100, 'a') + "t" + std::string(30, 'c') + "acgtacgtacgt" + std::string(90, 'n');
  index::PeriodicRuns runs;
  runs.find(s);
  EXPECT_EQ(runs.end_of_stretch(2, 1), 102u);
  EXPECT_EQ(runs.end_of_stretch(101, 1), 102u);
  EXPECT_EQ(runs.end_of_stretch(102, 1), 102u);  // the t: no stretch
  EXPECT_EQ(runs.end_of_stretch(110, 1), 110u);  // 30 c's: too short
  EXPECT_EQ(runs.end_of_stretch(2, 2), 102u);    // a homopolymer has every period
  EXPECT_EQ(runs.end_of_stretch(s.size() - 1, 1), s.size());
  EXPECT_EQ(runs.end_of_stretch(0, 1), 0u);
}

}  // namespace
}  // namespace hyalign

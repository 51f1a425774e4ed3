// The batch's output cut into blocks by lines: every section's header once, every match line once,
// in print order, and no block over its lines, whatever the sections' sizes.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "mem/text_blocks.hpp"

namespace hyalign::mem {
namespace {

TEST(TextBlocks, EveryLineOnceInOrderAndNoBlockOverItsLines) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::size_t> matches(rng() % 40);
    for (auto& m : matches) m = rng() % 4 == 0 ? rng() % 200 : rng() % 3;  // a few large sections
    const std::size_t per_block = 1 + rng() % 50;
    TextBlocks blocks;
    blocks.lay_out(matches.size(), [&](std::size_t i) { return matches[i]; }, per_block);
    std::string expected, found;
    for (std::size_t i = 0; i < matches.size(); ++i) {
      expected += "h" + std::to_string(i) + ";";
      for (std::size_t m = 0; m < matches[i]; ++m) expected += std::to_string(i) + "." + std::to_string(m) + ";";
    }
    for (std::size_t b = 0; b < blocks.blocks(); ++b) {
      std::size_t lines = 0;
      blocks.for_each_part(b, [&](std::size_t i, bool header, std::size_t first, std::size_t end) {
        ASSERT_LE(first, end);
        ASSERT_LE(end, matches[i]);
        if (header) found += "h" + std::to_string(i) + ";";
        for (std::size_t m = first; m < end; ++m) found += std::to_string(i) + "." + std::to_string(m) + ";";
        lines += (header ? 1 : 0) + end - first;
      });
      ASSERT_GE(lines, 1u) << "trial " << trial << " block " << b;
      ASSERT_LE(lines, per_block) << "trial " << trial << " block " << b;
    }
    ASSERT_EQ(found, expected) << "trial " << trial << ", " << per_block << " lines a block";
  }
}

}  // namespace
}  // namespace hyalign::mem

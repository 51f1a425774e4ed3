#include <gtest/gtest.h>

#include "core/alphabet.hpp"
#include "core/sequence_batch.hpp"

using hyalign::Alphabet;

TEST(Alphabet, DnaBasesAndIupacCodesAreUnions) {
  const Alphabet& dna = Alphabet::dna();
  EXPECT_EQ(dna.encode('A'), 1u);
  EXPECT_EQ(dna.encode('C'), 2u);
  EXPECT_EQ(dna.encode('G'), 4u);
  EXPECT_EQ(dna.encode('T'), 8u);
  EXPECT_EQ(dna.encode('U'), 8u);
  EXPECT_EQ(dna.encode('R'), 5u);
  EXPECT_EQ(dna.encode('Y'), 10u);
  EXPECT_EQ(dna.encode('B'), 14u);
  EXPECT_EQ(dna.encode('a'), 1u);
  for (char gap : {'-', 'N', 'n', '?', '.'}) EXPECT_TRUE(dna.is_gap(dna.encode(gap))) << gap;
  EXPECT_EQ(dna.encode('J'), 0u);
  EXPECT_EQ(dna.encode('*'), 0u);
}

TEST(Alphabet, DnaDecodeRoundTripsEverySet) {
  const Alphabet& dna = Alphabet::dna();
  for (char c : std::string("ACGTMRWSYKVHDB")) EXPECT_EQ(dna.decode(dna.encode(c)), c);
  EXPECT_EQ(dna.decode(dna.encode('u')), 'T');
  EXPECT_EQ(dna.decode(dna.encode('N')), '-');
}

TEST(Alphabet, ProteinSetsAndAmbiguity) {
  const Alphabet& protein = Alphabet::protein();
  std::string letters = "ARNDCQEGHILKMFPSTWYV";
  hyalign::StateSet all = 0;
  for (char c : letters) {
    hyalign::StateSet s = protein.encode(c);
    EXPECT_EQ(__builtin_popcount(s), 1) << c;
    EXPECT_EQ(all & s, 0u) << c;
    all |= s;
    EXPECT_EQ(protein.decode(s), c);
  }
  EXPECT_EQ(protein.encode('B'), protein.encode('D') | protein.encode('N'));
  EXPECT_EQ(protein.encode('Z'), protein.encode('E') | protein.encode('Q'));
  EXPECT_EQ(protein.decode(protein.encode('b')), 'B');
  for (char gap : {'-', 'X', '?'}) EXPECT_TRUE(protein.is_gap(protein.encode(gap))) << gap;
  EXPECT_EQ(protein.gap_set(), all);
  EXPECT_EQ(protein.encode('1'), 0u);
}

TEST(StateSequences, StoresNamesAndResiduesContiguously) {
  hyalign::StateSequences arena;
  EXPECT_TRUE(arena.empty());
  std::vector<hyalign::StateSet> a{1, 2, 4}, b{};
  arena.add("first", a);
  arena.add("", b);
  arena.add("third", std::vector<hyalign::StateSet>{8});
  ASSERT_EQ(arena.size(), 3u);
  EXPECT_EQ(arena.name(0), "first");
  EXPECT_EQ(arena.name(1), "");
  EXPECT_EQ(arena.length(1), 0u);
  EXPECT_EQ(arena.sequence(2)[0], 8u);
  EXPECT_EQ(arena.total_residues(), 4u);
}

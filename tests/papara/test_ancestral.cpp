// Invariants of the ancestral state vectors and gap signals (spec §5).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "papara/ancestral.hpp"
#include "papara/inputs.hpp"
#include "test_support.hpp"

using namespace hyalign;
using namespace hyalign::papara;

namespace {

// Writes a tree and an alignment to a scratch folder and loads them as PaPaRa inputs.
struct Case {
  test::TempDir dir;
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir.file(name)) << text;
    return dir.file(name);
  }
  PaparaInputs load(const std::string& tree, const std::string& phylip) {
    InputPaths paths{write("t.nwk", tree), write("a.phy", phylip), write("q.fa", ">q\nACGT\n")};
    return load_inputs(paths, Alphabet::dna(), true);
  }
};

std::string random_phylip(std::mt19937& rng, const std::vector<std::string>& names, std::size_t columns) {
  std::string text = std::to_string(names.size()) + " " + std::to_string(columns) + "\n";
  for (const auto& n : names) {
    text += n + " ";
    for (std::size_t c = 0; c < columns; ++c) text += "ACGT--RN"[rng() % 8];
    text += "\n";
  }
  return text;
}

// The split a branch induces, written as the sorted leaf names on the side without leaf "A".
std::string split_of(const PaparaInputs& in, std::size_t b) {
  const auto& nodes = in.tree.nodes();
  std::vector<std::string> below;
  std::vector<int> stack{in.tree.branch_node(b)};
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    if (nodes[n].is_leaf()) below.push_back(nodes[n].name);
    for (int c : nodes[n].children) stack.push_back(c);
  }
  std::set<std::string> side(below.begin(), below.end());
  if (side.count("A")) {
    std::set<std::string> other;
    for (int n : in.tree.postorder())
      if (nodes[n].is_leaf() && !side.count(nodes[n].name)) other.insert(nodes[n].name);
    side = other;
  }
  std::string key;
  for (const auto& s : side) key += s + ",";
  return key;
}

}  // namespace

// A virtual root on a branch sees the same two subtrees however the Newick text is rooted, so the
// state sets and the gap flags of a branch must not depend on the tree's written form.
TEST(Ancestral, VectorsDoNotDependOnHowTheTreeIsWritten) {
  std::mt19937 rng(11);
  Case c;
  const std::string phylip = random_phylip(rng, {"A", "B", "C", "D", "E", "F", "G"}, 300);
  PaparaInputs one = c.load("(A:0.1,(B:0.2,C:0.3):0.05,((D:0.4,E:0.1):0.2,(F:0.3,G:0.2):0.1):0.15);", phylip);
  PaparaInputs two = c.load("((D:0.4,E:0.1):0.2,(F:0.3,G:0.2):0.1,(A:0.1,(B:0.2,C:0.3):0.05):0.15);", phylip);
  for (GapModel model : {GapModel::probabilistic}) {
    BranchVectors v1 = compute_branch_vectors(one, Alphabet::dna(), model, 1);
    BranchVectors v2 = compute_branch_vectors(two, Alphabet::dna(), model, 1);
    ASSERT_EQ(v1.branches, 11u);
    std::map<std::string, std::size_t> branch_of_split;
    for (std::size_t b = 0; b < v2.branches; ++b) branch_of_split[split_of(two, b)] = b;
    for (std::size_t b = 0; b < v1.branches; ++b) {
      const std::size_t b2 = branch_of_split.at(split_of(one, b));
      for (std::size_t col = 0; col < v1.columns; ++col) {
        EXPECT_EQ(v1.branch_states(b)[col], v2.branch_states(b2)[col]) << "branch " << b << " col " << col;
        EXPECT_EQ(v1.branch_cgap(b)[col], v2.branch_cgap(b2)[col]) << "branch " << b << " col " << col;
      }
    }
  }
}

TEST(Ancestral, ConstantColumnsAndStateSubsets) {
  Case c;
  // Column 1: all A. Column 2: all gaps but B (masking keeps it). Column 3: A, C, G, T, R.
  PaparaInputs in = c.load("(A:0.1,(B:0.2,C:0.3):0.2,(D:0.1,E:0.2):0.3);",
                           "5 3\nA A-A\nB AGC\nC A-G\nD A-T\nE A-R\n");
  for (GapModel model : {GapModel::probabilistic, GapModel::rule_based}) {
    BranchVectors v = compute_branch_vectors(in, Alphabet::dna(), model, 2);
    ASSERT_EQ(v.columns, 3u);
    for (std::size_t b = 0; b < v.branches; ++b) {
      EXPECT_EQ(v.branch_states(b)[0], 1u);
      EXPECT_EQ(v.branch_cgap(b)[0], 0);
      // Fitch sets are non-empty and only hold states some leaf has.
      EXPECT_NE(v.branch_states(b)[2], 0u);
      EXPECT_EQ(v.branch_states(b)[2] & ~15u, 0u);
    }
    // Column 2 is a gap in four of five leaves: every branch away from B carries the gap signal
    // in the probabilistic model.
    if (model == GapModel::probabilistic)
      for (std::size_t b = 0; b < v.branches; ++b)
        if (in.tree.nodes()[in.tree.branch_node(b)].name == "D") {
          EXPECT_EQ(v.branch_cgap(b)[1], 1);
        }
  }
}

// Rule-based flags by hand on (A,B,(C,D)) with A and B gaps, C and D present. Branch order:
// (C,D), C, D, A, B. Only the branches to A and B end up exactly {CGAP}.
TEST(Ancestral, RuleBasedFlagsByHand) {
  Case c;
  PaparaInputs in = c.load("(A:1,B:1,(C:1,D:1):1);", "4 2\nA -A\nB -A\nC AA\nD AA\n");
  BranchVectors v = compute_branch_vectors(in, Alphabet::dna(), GapModel::rule_based, 1);
  std::vector<int> flags;
  for (std::size_t b = 0; b < v.branches; ++b) flags.push_back(v.branch_cgap(b)[0]);
  EXPECT_EQ(flags, (std::vector<int>{0, 0, 0, 1, 1}));
}

TEST(Ancestral, ThreadCountDoesNotChangeVectors) {
  std::mt19937 rng(5);
  Case c;
  PaparaInputs in = c.load("(A:0.1,(B:0.2,C:0.3):0.05,((D:0.4,E:0.1):0.2,(F:0.3,G:0.2):0.1):0.15);",
                           random_phylip(rng, {"A", "B", "C", "D", "E", "F", "G"}, 1000));
  for (GapModel model : {GapModel::probabilistic, GapModel::rule_based}) {
    BranchVectors one = compute_branch_vectors(in, Alphabet::dna(), model, 1);
    BranchVectors three = compute_branch_vectors(in, Alphabet::dna(), model, 3);
    EXPECT_EQ(one.states, three.states);
    EXPECT_EQ(one.cgap, three.cgap);
  }
}

TEST(Ancestral, GapFractionCountsOnlyLiteralDashes) {
  Case c;
  PaparaInputs in = c.load("(A:1,B:1,C:1);", "3 4\nA A-NA\nB ACGA\nC A-.A\n");
  EXPECT_DOUBLE_EQ(in.reference.gap_fraction, 2.0 / 12.0);
}

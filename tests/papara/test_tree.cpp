#include <gtest/gtest.h>

#include "core/error.hpp"
#include "io/newick.hpp"
#include "papara/tree.hpp"

using namespace hyalign;
using hyalign::papara::PaparaTree;

namespace {
PaparaTree tree_of(std::string_view newick, bool need_lengths = true) {
  return PaparaTree(parse_newick(newick, "test.nwk"), "test.nwk", need_lengths);
}
// Names of the nodes owning each branch, in branch order ("" for inner nodes).
std::vector<std::string> branch_names(const PaparaTree& t) {
  std::vector<std::string> names;
  for (std::size_t b = 0; b < t.branch_count(); ++b) names.push_back(t.nodes()[t.branch_node(b)].name);
  return names;
}
}  // namespace

// Spec §5: walk the third top-level subtree, then the first, then the second; pre-order inside.
TEST(PaparaTree, BranchOrderOfEpaTinyTree) {
  auto t = tree_of("(A:1,(B:1,(C:1,(D:1,(E:1,(F:1,G:1):1):1):1):1):1,H:1);");
  EXPECT_EQ(t.branch_count(), 13u);
  EXPECT_EQ(branch_names(t), (std::vector<std::string>{"H", "A", "", "B", "", "C", "", "D", "", "E", "", "F", "G"}));
}

TEST(PaparaTree, RootedTreeMergesRootBranchesIntoFirstInnerChild) {
  auto t = tree_of("((A:1,B:2):0.5,(C:1,D:1):0.25);");
  EXPECT_EQ(t.branch_count(), 5u);
  // New top: (A, B, (C,D)) with the (C,D) branch 0.5 + 0.25 long.
  EXPECT_EQ(branch_names(t), (std::vector<std::string>{"", "C", "D", "A", "B"}));
  EXPECT_DOUBLE_EQ(t.nodes()[t.branch_node(0)].length, 0.75);
}

TEST(PaparaTree, RootedTreeWithLeafFirst) {
  auto t = tree_of("(A:1,(B:1,C:1):2);");
  EXPECT_EQ(branch_names(t), (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_DOUBLE_EQ(t.nodes()[t.branch_node(0)].length, 3.0);
}

TEST(PaparaTree, PostorderVisitsChildrenFirst) {
  auto t = tree_of("(A:1,(B:1,(C:1,D:1):1):1,E:1);");
  std::vector<bool> seen(t.nodes().size(), false);
  for (int n : t.postorder()) {
    for (int c : t.nodes()[n].children) EXPECT_TRUE(seen[c]);
    seen[n] = true;
  }
  EXPECT_EQ(t.postorder().back(), t.top());
}

TEST(PaparaTree, Rejections) {
  EXPECT_THROW(tree_of("(A:1,B:1);"), InputError);                      // fewer than 3 leaves
  EXPECT_THROW(tree_of("(A:1,B:1,C:1,D:1);"), InputError);              // 4-way top
  EXPECT_THROW(tree_of("(A:1,(B:1,C:1,D:1):1,E:1);"), InputError);      // multifurcation
  EXPECT_THROW(tree_of("(A:1,(B:1,C:1):1,A:1);"), InputError);          // duplicate leaf
  EXPECT_THROW(tree_of("(A,(B,C),D);"), InputError);                    // no lengths
  EXPECT_NO_THROW(tree_of("(A,(B,C),D);", false));                      // fine for -c
}

TEST(PaparaTree, ErrorNamesTheProblem) {
  try {
    tree_of("(A:1,(B:1,C:1,D:1):1,E:1);");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("test.nwk"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("not binary"), std::string::npos);
  }
}

#pragma once
// The reference tree as PaPaRa sees it: unrooted and binary, stored with a trifurcating top node.
// Every non-top node owns the branch to its parent; branches are numbered in PaPaRa's order, which
// decides ties between equally good branches and so is part of the output.
#include <array>
#include <string>
#include <vector>

#include "io/newick.hpp"

namespace hyalign::papara {

struct TreeNode {
  std::string name;            // leaves only
  double length = 0.0;         // length of the branch to the parent
  int parent = -1;
  std::vector<int> children;   // 2 for inner nodes, 3 for the top node, 0 for leaves
  bool is_leaf() const { return children.empty(); }
};

class PaparaTree {
 public:
  // Validates (binary, >= 3 leaves, unique leaf names, branch lengths present when required) and
  // unroots a rooted tree as spec §3 describes. `source` names the tree in error messages.
  PaparaTree(const NewickTree& newick, const std::string& source, bool need_lengths);

  const std::vector<TreeNode>& nodes() const { return nodes_; }
  int top() const { return top_; }
  std::size_t leaf_count() const { return leaf_count_; }
  // branch b is the edge from node branch_node(b) to its parent.
  std::size_t branch_count() const { return branch_nodes_.size(); }
  int branch_node(std::size_t b) const { return branch_nodes_[b]; }
  // Nodes with every child before its parent (top node last).
  const std::vector<int>& postorder() const { return postorder_; }

 private:
  // The constructor's steps, in order (`source` names the file in errors).
  void copy_nodes(const NewickTree& newick, const std::string& source, bool need_lengths);
  void merge_root_branches(const std::string& source);  // a rooted top made a three-way one
  void number_branches(const std::string& source);      // branch_nodes_, checking the tree is binary
  void count_leaves(const std::string& source);         // leaf_count_, checking names are unique
  void make_postorder();
  std::vector<TreeNode> nodes_;
  int top_ = -1;
  std::size_t leaf_count_ = 0;
  std::vector<int> branch_nodes_;
  std::vector<int> postorder_;
};

}  // namespace hyalign::papara

#include "papara/tree.hpp"

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"

namespace hyalign::papara {
namespace {

// The gap model takes a negative length as given (as PaPaRa does), but its transition
// probabilities then leave [0, 1]: almost always an error in the tree, so say where.
void warn_negative_lengths(const NewickTree& newick, const std::string& source) {
  std::size_t count = 0;
  const NewickNode* first = nullptr;
  for (const NewickNode& n : newick.nodes)
    if (n.has_length && n.length < 0 && count++ == 0) first = &n;
  if (!first) return;
  log_warning("{}:{}:{}: negative branch length {} above {}{}; the gap model uses it as given", source,
              first->length_line, first->length_column, first->length,
              first->label.empty() ? std::string("an inner node") : fmt::format("'{}'", first->label),
              count > 1 ? fmt::format(" (the first of {} negative lengths)", count) : "");
}

}  // namespace

PaparaTree::PaparaTree(const NewickTree& newick, const std::string& source, bool need_lengths) {
  if (newick.root < 0) throw InputError(source, "empty tree");
  copy_nodes(newick, source, need_lengths);
  if (need_lengths) warn_negative_lengths(newick, source);
  merge_root_branches(source);
  number_branches(source);
  count_leaves(source);
  make_postorder();
}

void PaparaTree::copy_nodes(const NewickTree& newick, const std::string& source, bool need_lengths) {
  nodes_.resize(newick.nodes.size());
  for (std::size_t i = 0; i < newick.nodes.size(); ++i) {
    const NewickNode& from = newick.nodes[i];
    TreeNode& to = nodes_[i];
    to.parent = from.parent;
    to.children = from.children;
    to.length = from.length;
    if (from.is_leaf()) {
      to.name = from.label;
      if (to.name.empty()) throw InputError(source, "tree has a leaf without a name");
    }
    if (need_lengths && static_cast<int>(i) != newick.root && !from.has_length)
      throw InputError(source, fmt::format("branch above '{}' has no length (the default gap model needs branch "
                                           "lengths; use -c for the rule-based model)",
                                           from.is_leaf() ? from.label : std::string("an inner node")));
  }
  top_ = newick.root;
}

void PaparaTree::merge_root_branches(const std::string& source) {
  // A rooted (bifurcating) top: merge the root's two branches into one (spec §3).
  if (nodes_[top_].children.size() == 2) {
    int x = nodes_[top_].children[0], y = nodes_[top_].children[1];
    int in = !nodes_[x].is_leaf() ? x : y;
    int out = in == x ? y : x;
    if (nodes_[in].is_leaf()) throw InputError(source, "tree has fewer than 3 leaves");
    nodes_[out].length = nodes_[x].length + nodes_[y].length;
    std::vector<int> top_children = nodes_[in].children;
    top_children.push_back(out);
    nodes_[top_].children.clear();
    nodes_[in].children.clear();
    nodes_[in].parent = -1;  // detached; never visited again
    top_ = in;
    nodes_[top_].children = top_children;
    for (int c : top_children) nodes_[c].parent = top_;
  }
  if (nodes_[top_].children.size() != 3)
    throw InputError(source, fmt::format("the top node of the tree has {} children; expected 2 (rooted) or 3 "
                                         "(unrooted)", nodes_[top_].children.size()));
}

void PaparaTree::number_branches(const std::string& source) {
  // Walk the subtrees of the third, first, second top-level child; number each branch when first
  // entered (pre-order), children in Newick order.
  std::vector<int> stack;
  for (int c : {nodes_[top_].children[2], nodes_[top_].children[0], nodes_[top_].children[1]}) {
    stack.push_back(c);
    while (!stack.empty()) {
      int n = stack.back();
      stack.pop_back();
      branch_nodes_.push_back(n);
      const auto& ch = nodes_[n].children;
      if (!ch.empty() && ch.size() != 2)
        throw InputError(source, fmt::format("tree is not binary: an inner node has {} children", ch.size()));
      for (auto it = ch.rbegin(); it != ch.rend(); ++it) stack.push_back(*it);
    }
  }
}

void PaparaTree::count_leaves(const std::string& source) {
  std::unordered_set<std::string> names;
  for (int n : branch_nodes_) {
    if (!nodes_[n].is_leaf()) continue;
    ++leaf_count_;
    if (!names.insert(nodes_[n].name).second)
      throw InputError(source, fmt::format("leaf name '{}' appears more than once in the tree", nodes_[n].name));
  }
  if (leaf_count_ < 3) throw InputError(source, "tree has fewer than 3 leaves");
}

void PaparaTree::make_postorder() {
  // The reverse of a pre-order that visits children after the parent.
  postorder_.reserve(branch_nodes_.size() + 1);
  std::vector<int> stack(1, top_);
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    postorder_.push_back(n);
    for (int c : nodes_[n].children) stack.push_back(c);
  }
  std::reverse(postorder_.begin(), postorder_.end());
}

}  // namespace hyalign::papara

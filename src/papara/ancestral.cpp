#include "papara/ancestral.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel.hpp"

namespace hyalign::papara {
namespace {

StateSet fitch(StateSet x, StateSet y) { return (x & y) ? (x & y) : (x | y); }

// §5.1: two-state (present, gap) model with rate g for present→gap and 1−g for gap→present.
struct Likelihood {
  double present = 0.0, gap = 0.0;
};

struct Transition {
  double p00, p01, p10, p11;
  Transition(double g, double t) {
    const double e = std::exp(-t);
    p00 = (1.0 - g) + g * e;
    p01 = g - g * e;
    p10 = (1.0 - g) - (1.0 - g) * e;
    p11 = g + (1.0 - g) * e;
  }
  Likelihood apply(Likelihood l) const { return {p00 * l.present + p01 * l.gap, p10 * l.present + p11 * l.gap}; }
};

Likelihood product(Likelihood a, Likelihood b) {
  static const double kTiny = std::ldexp(1.0, -256);
  Likelihood r{a.present * b.present, a.gap * b.gap};
  if (r.present < kTiny && r.gap < kTiny) {
    r.present = std::ldexp(r.present, 256);
    r.gap = std::ldexp(r.gap, 256);
  }
  return r;
}

// §5.2 flags.
constexpr std::uint8_t kCgap = 1, kOpen = 2;
struct GapFlags {
  std::uint8_t flags = 0;
  bool tip = false;
};
GapFlags combine_flags(GapFlags a, GapFlags b) {
  const bool exact = !a.tip && !b.tip;
  auto is_gap = [exact](GapFlags f) { return exact ? f.flags == kCgap : (f.flags & kCgap) != 0; };
  const bool ga = is_gap(a), gb = is_gap(b);
  return {static_cast<std::uint8_t>(ga && gb ? kCgap : (ga || gb) ? (kCgap | kOpen) : 0), false};
}

// Per-thread scratch for one column: values seen from below (down) and from above (up) per node.
struct ColumnScratch {
  std::vector<StateSet> down_state, up_state;
  std::vector<Likelihood> down_lk, up_lk;
  std::vector<GapFlags> down_flags, up_flags;
  explicit ColumnScratch(std::size_t nodes)
      : down_state(nodes), up_state(nodes), down_lk(nodes), up_lk(nodes), down_flags(nodes), up_flags(nodes) {}
};

// The passes over the tree for one column of the reference alignment (§5): each branch's Fitch
// state set and whether its ancestral column is a gap.
class ColumnPasses {
 public:
  ColumnPasses(const PaparaInputs& inputs, const Alphabet& alphabet, GapModel model)
      : inputs_(inputs), alphabet_(alphabet), probabilistic_(model == GapModel::probabilistic),
        pre_(inputs.tree.postorder().rbegin(), inputs.tree.postorder().rend()) {
    for (const TreeNode& n : inputs.tree.nodes()) transition_.emplace_back(inputs.reference.gap_fraction, n.length);
  }

  void run(std::size_t col, ColumnScratch& s, BranchVectors& out) const {
    down(col, s);
    up(s);
    write_branches(col, s, out);
  }

 private:
  // Post-order: each node's subtree seen from above it.
  void down(std::size_t col, ColumnScratch& s) const {
    const PaparaTree& tree = inputs_.tree;
    for (int n : tree.postorder()) {
      const TreeNode& node = tree.nodes()[n];
      if (node.is_leaf()) {
        const StateSet st = inputs_.reference.row_states(static_cast<std::size_t>(inputs_.leaf_row[n]))[col];
        const bool gap = alphabet_.is_gap(st);
        s.down_state[n] = st;
        s.down_lk[n] = gap ? Likelihood{0.0, 1.0} : Likelihood{1.0, 0.0};
        s.down_flags[n] = {gap ? kCgap : std::uint8_t{0}, true};
      } else if (n != tree.top()) {
        const int a = node.children[0], b = node.children[1];
        s.down_state[n] = fitch(s.down_state[a], s.down_state[b]);
        if (probabilistic_)
          s.down_lk[n] = product(transition_[a].apply(s.down_lk[a]), transition_[b].apply(s.down_lk[b]));
        else
          s.down_flags[n] = combine_flags(s.down_flags[a], s.down_flags[b]);
      }
    }
  }

  // Pre-order: up[u], the node above u (its parent) seen from everything except u's subtree.
  void up(ColumnScratch& s) const {
    const PaparaTree& tree = inputs_.tree;
    for (int p : pre_) {
      const auto& ch = tree.nodes()[p].children;
      for (int u : ch) {
        // The parent's two other neighbours: at the top its other children, else a sibling and above.
        const int x = ch[0] == u ? ch[1] : ch[0];
        const bool y_is_up = p != tree.top();
        const int y = y_is_up ? p : (ch[2] == u ? ch[1] : ch[2]);
        s.up_state[u] = fitch(s.down_state[x], y_is_up ? s.up_state[y] : s.down_state[y]);
        if (probabilistic_) {
          const Likelihood y_lk = y_is_up ? s.up_lk[y] : s.down_lk[y];
          s.up_lk[u] = product(transition_[x].apply(s.down_lk[x]), transition_[y].apply(y_lk));
        } else {
          s.up_flags[u] = combine_flags(s.down_flags[x], y_is_up ? s.up_flags[y] : s.down_flags[y]);
        }
      }
    }
  }

  void write_branches(std::size_t col, const ColumnScratch& s, BranchVectors& out) const {
    for (std::size_t b = 0; b < out.branches; ++b) {
      const int u = inputs_.tree.branch_node(b);
      out.states[b * out.columns + col] = fitch(s.down_state[u], s.up_state[u]);
      bool cgap;
      if (probabilistic_) {
        const Likelihood l = product(transition_[u].apply(s.down_lk[u]), transition_[u].apply(s.up_lk[u]));
        cgap = l.present < l.gap;
      } else {
        cgap = combine_flags(s.down_flags[u], s.up_flags[u]).flags == kCgap;
      }
      out.cgap[b * out.columns + col] = cgap ? 1 : 0;
    }
  }

  const PaparaInputs& inputs_;
  const Alphabet& alphabet_;
  const bool probabilistic_;
  const std::vector<int> pre_;          // pre-order (parents before children), for the up pass
  std::vector<Transition> transition_;  // per node: over the branch to its parent
};

}  // namespace

BranchVectors compute_branch_vectors(const PaparaInputs& inputs, const Alphabet& alphabet, GapModel model,
                                     unsigned threads) {
  BranchVectors out;
  out.branches = inputs.tree.branch_count();
  out.columns = inputs.reference.columns;
  out.states.resize(out.branches * out.columns);
  out.cgap.resize(out.branches * out.columns);
  const ColumnPasses passes(inputs, alphabet, model);
  constexpr std::size_t kColumnsPerTask = 32;
  const std::size_t tasks = (out.columns + kColumnsPerTask - 1) / kColumnsPerTask;
  std::vector<ColumnScratch> scratch(std::max(1u, threads), ColumnScratch(inputs.tree.nodes().size()));
  parallel_for(tasks, threads, [&](std::size_t task, unsigned worker) {
    const std::size_t end = std::min(out.columns, (task + 1) * kColumnsPerTask);
    for (std::size_t col = task * kColumnsPerTask; col < end; ++col) passes.run(col, scratch[worker], out);
  });
  return out;
}

}  // namespace hyalign::papara

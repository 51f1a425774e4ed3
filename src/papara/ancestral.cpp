#include "papara/ancestral.hpp"

#include <cmath>

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
};

}  // namespace

BranchVectors compute_branch_vectors(const PaparaInputs& inputs, const Alphabet& alphabet, GapModel model,
                                     unsigned threads) {
  const PaparaTree& tree = inputs.tree;
  const auto& nodes = tree.nodes();
  const ReferenceAlignment& ref = inputs.reference;
  const std::size_t columns = ref.columns;
  const double g = ref.gap_fraction;

  BranchVectors out;
  out.branches = tree.branch_count();
  out.columns = columns;
  out.states.resize(out.branches * columns);
  out.cgap.resize(out.branches * columns);

  std::vector<Transition> transition;  // per node: over the branch to its parent
  transition.reserve(nodes.size());
  for (const TreeNode& n : nodes) transition.emplace_back(g, n.length);
  const bool probabilistic = model == GapModel::probabilistic;

  // Pre-order (parents before children) for the up pass.
  const std::vector<int>& post = tree.postorder();
  std::vector<int> pre(post.rbegin(), post.rend());

  constexpr std::size_t kColumnsPerTask = 32;
  const std::size_t tasks = (columns + kColumnsPerTask - 1) / kColumnsPerTask;
  std::vector<ColumnScratch> scratch(std::max(1u, threads));
  for (auto& s : scratch) {
    s.down_state.resize(nodes.size());
    s.up_state.resize(nodes.size());
    s.down_lk.resize(nodes.size());
    s.up_lk.resize(nodes.size());
    s.down_flags.resize(nodes.size());
    s.up_flags.resize(nodes.size());
  }

  parallel_for(tasks, threads, [&](std::size_t task, unsigned worker) {
    ColumnScratch& s = scratch[worker];
    const std::size_t end = std::min(columns, (task + 1) * kColumnsPerTask);
    for (std::size_t col = task * kColumnsPerTask; col < end; ++col) {
      for (int n : post) {
        const TreeNode& node = nodes[n];
        if (node.is_leaf()) {
          const StateSet st = ref.row_states(static_cast<std::size_t>(inputs.leaf_row[n]))[col];
          const bool gap = alphabet.is_gap(st);
          s.down_state[n] = st;
          s.down_lk[n] = gap ? Likelihood{0.0, 1.0} : Likelihood{1.0, 0.0};
          s.down_flags[n] = {gap ? kCgap : std::uint8_t{0}, true};
        } else if (n != tree.top()) {
          const int a = node.children[0], b = node.children[1];
          s.down_state[n] = fitch(s.down_state[a], s.down_state[b]);
          if (probabilistic)
            s.down_lk[n] = product(transition[a].apply(s.down_lk[a]), transition[b].apply(s.down_lk[b]));
          else
            s.down_flags[n] = combine_flags(s.down_flags[a], s.down_flags[b]);
        }
      }
      // up[u]: the node above u (its parent) seen from everything except u's subtree.
      for (int p : pre) {
        const auto& ch = nodes[p].children;
        for (int u : ch) {
          int x, y;  // the parent's two other neighbours
          bool y_is_up = false;
          if (p == tree.top()) {
            x = ch[0] == u ? ch[1] : ch[0];
            y = ch[2] == u ? ch[1] : ch[2];
          } else {
            x = ch[0] == u ? ch[1] : ch[0];
            y = p;
            y_is_up = true;
          }
          const StateSet y_state = y_is_up ? s.up_state[y] : s.down_state[y];
          s.up_state[u] = fitch(s.down_state[x], y_state);
          if (probabilistic) {
            const Likelihood y_lk = y_is_up ? s.up_lk[y] : s.down_lk[y];
            s.up_lk[u] = product(transition[x].apply(s.down_lk[x]), transition[y].apply(y_lk));
          } else {
            const GapFlags y_flags = y_is_up ? s.up_flags[y] : s.down_flags[y];
            s.up_flags[u] = combine_flags(s.down_flags[x], y_flags);
          }
        }
      }
      for (std::size_t b = 0; b < out.branches; ++b) {
        const int u = tree.branch_node(b);
        out.states[b * columns + col] = fitch(s.down_state[u], s.up_state[u]);
        bool cgap;
        if (probabilistic) {
          const Likelihood l = product(transition[u].apply(s.down_lk[u]), transition[u].apply(s.up_lk[u]));
          cgap = l.present < l.gap;
        } else {
          cgap = combine_flags(s.down_flags[u], s.up_flags[u]).flags == kCgap;
        }
        out.cgap[b * columns + col] = cgap ? 1 : 0;
      }
    }
  });
  return out;
}

}  // namespace hyalign::papara

#include "kernels/papara_encoding.hpp"

#include <algorithm>
#include <array>
#include <bit>

#include "core/parallel.hpp"

namespace hyalign::kernels {

EncodedQueries encode_queries(const PaparaProblem& problem) {
  const auto& sets = problem.alphabet->residue_sets();
  EncodedQueries out;
  out.symbol_count = sets.size();
  // Queries hold only residue sets of the alphabet; anything else is matched like a gap would be
  // (symbol K). Plain residues, one state each, are looked up by their bit.
  const auto symbol_of_set = [&sets](StateSet s) {
    return static_cast<std::uint8_t>(std::find(sets.begin(), sets.end(), s) - sets.begin());
  };
  std::array<std::uint8_t, 8 * sizeof(StateSet)> symbol_of_state{};
  for (std::size_t bit = 0; bit < symbol_of_state.size(); ++bit) symbol_of_state[bit] = symbol_of_set(StateSet{1} << bit);
  // Same offsets as the queries, no names: one pass over all residues.
  const StateSequences& queries = *problem.queries;
  out.symbols.offsets = queries.offsets;
  out.symbols.ids = queries.ids;
  out.symbols.name_offsets.assign(queries.size() + 1, 0);
  // In slices on every core: at 10^5 to 10^6 reads this pass is otherwise a visible part of the run.
  const std::size_t total = queries.total_residues(), slice = std::size_t{1} << 20;
  out.symbols.residues.resize(total);
  parallel_for((total + slice - 1) / slice, std::max(1u, problem.threads), [&](std::size_t k, unsigned) {
    const auto first = queries.residues.begin() + static_cast<std::ptrdiff_t>(k * slice);
    const auto last = queries.residues.begin() + static_cast<std::ptrdiff_t>(std::min(total, (k + 1) * slice));
    std::transform(first, last, out.symbols.residues.begin() + static_cast<std::ptrdiff_t>(k * slice), [&](StateSet s) {
      const bool one_state = s != 0 && (s & (s - 1)) == 0;  // not std::has_single_bit: no popcount call
      return one_state ? symbol_of_state[std::countr_zero(s)] : symbol_of_set(s);
    });
  });
  out.fits_int16.resize(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q)
    out.fits_int16[q] = fits_int16(queries.length(q), problem.targets.columns, problem.scoring) ? 1 : 0;
  return out;
}

bool fits_int16(std::size_t m, std::size_t columns, const PaparaScoring& sc, long long limit) {
  const long long steps = static_cast<long long>(m) + static_cast<long long>(columns);
  const long long diagonal_gain = std::max(0, sc.match) + std::max(0, sc.match_cgap);
  const long long gap_gain = std::max({0, sc.gap_open, sc.gap_extend});
  const long long upper = static_cast<long long>(m) * diagonal_gain + steps * gap_gain;
  // Lower bound: from the free boundary S = 0, S(i,j) >= S(i,j-1) + min(0, open) (through I) and
  // S(i,j) >= S(i-1,j-1) + min(0, match) + min(0, match_cgap) (the diagonal), so S >= -m times the
  // cheaper step. D, I and every sum formed before a max lie at most one of each term below an S.
  const auto cost = [](int v) { return -static_cast<long long>(std::min(0, v)); };
  const long long step = std::min(cost(sc.gap_open), cost(sc.match) + cost(sc.match_cgap));
  const long long margin = cost(sc.gap_open) + cost(sc.gap_extend) + cost(sc.match) + cost(sc.match_cgap);
  const long long lower = -(static_cast<long long>(m) * step + margin);
  return upper < limit && lower > -limit;
}

void BlockMasks::interleave(const PaparaProblem& problem, std::size_t first, std::size_t count, std::size_t lanes) {
  const std::size_t columns = problem.targets.columns;
  match.resize(columns * problem.alphabet->residue_sets().size());
  cgap.assign(columns, 0);
  interleaved.assign(columns * lanes, 0);
  for (std::size_t lane = 0; lane < count; ++lane) {
    const BranchView branch = problem.targets.branch(first + lane);
    const std::uint32_t bit = std::uint32_t{1} << lane;
    for (std::size_t col = 0; col < columns; ++col) {
      interleaved[col * lanes + lane] = branch.states[col];
      if (branch.cgap[col]) cgap[col] |= bit;
    }
  }
}

}  // namespace hyalign::kernels

#pragma once
// Inter-query SIMD traceback for PaPaRa (spec §7), written once over a traits class that wraps one
// instruction set (included only by the per-ISA translation units, which compile it with their -m
// flags; every instantiation uses a traits type with internal linkage).
//
// W queries at once, one per 16-bit lane, each against its OWN branch and with its own length. The
// lanes' branch columns are interleaved (per column: the lanes' state sets and a gap-signal lane
// mask), and so are the queries (per row: the lanes' residue sets, 0 past a lane's end, which never
// matches and never feeds rows above it). The recurrence runs over rows 1..m_max and columns 1..n
// exactly as papara_align_scalar does it (I(i,0) = 0, D(0,j) = -inf, same tie rules), a few columns
// per pass so the line along the query is read and written once per pass. Per cell it keeps four lane
// masks of traceback bits:
//   not_m  = max(D, I) > M       (S did not come from M: M wins every tie with it)
//   i_wins = I > D               (given not_m: I if strictly above D, else D)
//   d_ext  = D extended strictly better than it opened
//   i_ext  = I extended strictly better than it opened
// which decide exactly what the scalar code's from_d / from_i / extend bits decide. On rows where some
// lane's query ends, the lane's S(i, m_lane) is blended into its last-row vector; after the last
// column the line holds every lane's last column. Then, per lane, the end-cell scan and the walk back
// are the scalar code's, reading that lane's bits.
//
// Values are exact: the caller only sends queries with fits_int16(m, columns, scoring), and the
// saturating -inf of D(0, j) never survives one step.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "kernels/simd/papara_simd.hpp"
#include "kernels/papara_encoding.hpp"
#include "kernels/simd/papara_cell.hpp"
#include "kernels/simd/scratch_buffer.hpp"

namespace hyalign::kernels::simd {

template <typename T>
class SimdPaparaAligner final : public PaparaBatchAligner {
  using V = typename T::V;
  using Mask = typename T::Mask;
  using Cmp = typename T::Cmp;
  static constexpr std::size_t W = T::kLanes;
  static constexpr std::size_t COLS = T::kTraceColumnsPerPass;
  static constexpr std::size_t WORDS = T::kTraceWords;  // 32-bit words of traceback bits per cell

  enum : unsigned { kNotM = 1, kIWins = 2, kDExtend = 4, kIExtend = 8 };

 public:
  explicit SimdPaparaAligner(const PaparaProblem& problem) : problem_(problem) {}

  std::size_t lanes() const override { return W; }
  std::size_t trace_bytes(std::size_t m_max) const override {
    return problem_.targets.columns * m_max * WORDS * sizeof(std::uint32_t);
  }

  void align(std::span<const std::size_t> queries, std::span<const std::size_t> branches,
             PaparaAlignment* out) override {
    const std::size_t count = queries.size();
    if (count == 0) return;
    const std::size_t n = problem_.targets.columns;
    const StateSequences& arena = *problem_.queries;
    if (count > W || branches.size() != count || n == 0)
      throw std::invalid_argument("SimdPaparaAligner: batch does not fit the lanes");
    std::size_t m_max = 0;
    StateSet query_bits = 0;
    for (std::size_t lane = 0; lane < count; ++lane) {
      if (arena.length(queries[lane]) == 0) throw std::invalid_argument("SimdPaparaAligner: empty query");
      m_max = std::max(m_max, arena.length(queries[lane]));
      for (StateSet s : arena.sequence(queries[lane])) query_bits |= s;
    }
    // Only the query's bits can make a test true: when they all fit in 16 bits, one test per cell.
    if (query_bits >> 16)
      run<true>(queries, branches, m_max);
    else
      run<false>(queries, branches, m_max);
    for (std::size_t lane = 0; lane < count; ++lane)
      walk(lane, arena.length(queries[lane]), n, m_max, out[lane]);
  }

 private:
  // Interleaves the batch, runs the recurrence, leaves traceback bits, last rows and last column.
  template <bool Wide>
  void run(std::span<const std::size_t> queries, std::span<const std::size_t> branches, std::size_t m_max) {
    const std::size_t count = queries.size();
    const std::size_t n = problem_.targets.columns;
    const StateSequences& arena = *problem_.queries;

    // Rows: the lanes' residue sets, low and high 16 bits; 0 past a lane's end.
    lanes16_.assign(m_max * W * (Wide ? 2 : 1), 0);
    row_end_.assign(m_max + 1, 0);
    for (std::size_t lane = 0; lane < count; ++lane) {
      const auto residues = arena.sequence(queries[lane]);
      for (std::size_t j = 0; j < residues.size(); ++j) {
        lanes16_[j * W + lane] = static_cast<std::uint16_t>(residues[j]);
        if constexpr (Wide) lanes16_[(m_max + j) * W + lane] = static_cast<std::uint16_t>(residues[j] >> 16);
      }
      row_end_[residues.size()] |= Mask{1} << lane;
    }
    V* q_lo = q_rows_.template reserve<V>(m_max * (Wide ? 2 : 1));
    std::memcpy(static_cast<void*>(q_lo), lanes16_.data(), lanes16_.size() * sizeof(std::uint16_t));
    const V* q_hi = q_lo + (Wide ? m_max : 0);

    // Columns: the lanes' branch state sets, low and high 16 bits, and the gap-signal lane mask.
    lanes16_.assign(n * W * (Wide ? 2 : 1), 0);
    col_cgap_.assign(n, 0);
    for (std::size_t lane = 0; lane < count; ++lane) {
      const BranchView branch = problem_.targets.branch(branches[lane]);
      for (std::size_t i = 0; i < n; ++i) {
        lanes16_[i * W + lane] = static_cast<std::uint16_t>(branch.states[i]);
        if constexpr (Wide) lanes16_[(n + i) * W + lane] = static_cast<std::uint16_t>(branch.states[i] >> 16);
        if (branch.cgap[i]) col_cgap_[i] |= Mask{1} << lane;
      }
    }
    V* a_lo = a_cols_.template reserve<V>(n * (Wide ? 2 : 1));
    std::memcpy(static_cast<void*>(a_lo), lanes16_.data(), lanes16_.size() * sizeof(std::uint16_t));
    const V* a_hi = a_lo + (Wide ? n : 0);

    V* s_line = s_line_.template reserve<V>(m_max + 1);
    V* d_line = d_line_.template reserve<V>(m_max + 1);
    V* last_row = last_row_.template reserve<V>(n);
    std::uint32_t* trace = trace_.template reserve<std::uint32_t>(n * m_max * WORDS);
    const V zero = T::set1(0), minus_inf = T::set1(T::kMinusInfinity);
    for (std::size_t j = 0; j <= m_max; ++j) s_line[j] = zero, d_line[j] = minus_inf;
    for (std::size_t i = 0; i < n; ++i) last_row[i] = minus_inf;

    const Rows rows{q_lo, q_hi, m_max};
    std::size_t col = 0;
    for (; col + COLS <= n; col += COLS) pass<Wide, COLS>(rows, a_lo, a_hi, col, s_line, d_line, last_row, trace);
    for (; col < n; ++col) pass<Wide, 1>(rows, a_lo, a_hi, col, s_line, d_line, last_row, trace);

    // Lane values of the last row and the last column, for the per-lane end-cell scans.
    last_row16_.resize(n * W);
    std::memcpy(last_row16_.data(), static_cast<const void*>(last_row), n * W * sizeof(std::int16_t));
    last_col16_.resize((m_max + 1) * W);
    std::memcpy(last_col16_.data(), static_cast<const void*>(s_line), (m_max + 1) * W * sizeof(std::int16_t));
  }

  struct Rows {
    const V* lo;
    const V* hi;
    std::size_t m_max;
  };

  // Columns [col, col + N) over all rows; leaves S and D of column col+N-1 in the line.
  template <bool Wide, std::size_t N>
  void pass(const Rows& rows, const V* a_lo, const V* a_hi, std::size_t col, V* __restrict s_line,
            V* __restrict d_line, V* __restrict last_row, std::uint32_t* __restrict trace) {
    const PaparaScoring& sc = problem_.scoring;
    const std::size_t m_max = rows.m_max;
    const std::size_t column_stride = m_max * WORDS;
    const V open = T::set1(sc.gap_open), extend = T::set1(sc.gap_extend), match = T::set1(sc.match);
    const V zero = T::set1(0);
    V state_lo[N], state_hi[N], base[N], open_d[N], extend_d[N], s_up[N], ins[N];
    for (std::size_t c = 0; c < N; ++c) {
      const Mask cg = col_cgap_[col + c];
      state_lo[c] = a_lo[col + c];
      if constexpr (Wide) state_hi[c] = a_hi[col + c];
      base[c] = T::select(cg, zero, T::set1(sc.match_cgap));
      open_d[c] = T::select(cg, open, zero);
      extend_d[c] = T::select(cg, extend, zero);
      s_up[c] = zero;  // S(i, 0) = 0
      ins[c] = zero;   // the traceback pass starts I(i, 0) at 0
    }
    std::uint32_t* tr_col = trace + col * column_stride;
    V diag_first = zero;  // S(col-1, j-1) for the first column of the pass
    for (std::size_t j = 1; j <= m_max; ++j) {
      const V q_lo = rows.lo[j - 1];
      V q_hi;
      if constexpr (Wide) q_hi = rows.hi[j - 1];
      V left_s = s_line[j], left_d = d_line[j];
      V diag = diag_first;
      diag_first = left_s;
      std::uint32_t* tr = tr_col + (j - 1) * WORDS;
#pragma GCC unroll 8
      for (std::size_t c = 0; c < N; ++c) {
        V mat;
        if constexpr (Wide)
          mat = T::add_if_shared2(T::add(diag, base[c]), state_lo[c], q_lo, state_hi[c], q_hi, match);
        else
          mat = T::add_if_shared(T::add(diag, base[c]), state_lo[c], q_lo, match);
        const V d_open = T::add(left_s, open_d[c]), d_ext = T::add(left_d, extend_d[c]);
        const V del = T::max(d_open, d_ext);
        const V i_open = T::add(s_up[c], open), i_ext = T::add(ins[c], extend);
        ins[c] = T::max(i_open, i_ext);
        const V gap = T::max(del, ins[c]);
        const V s = T::max(mat, gap);
        T::store_trace(tr + c * column_stride, T::gt(gap, mat), T::gt(ins[c], del), T::gt(d_ext, d_open),
                       T::gt(i_ext, i_open));
        advance_cell(diag, s_up[c], left_s, left_d, s, del);
      }
      s_line[j] = left_s;
      d_line[j] = left_d;
      if (const Mask ending = row_end_[j]) [[unlikely]]
        for (std::size_t c = 0; c < N; ++c) last_row[col + c] = T::select(ending, last_row[col + c], s_up[c]);
    }
  }

  // The shared end-cell scan and walk back (papara_walk_back), for one lane.
  void walk(std::size_t lane, std::size_t m, std::size_t n, std::size_t m_max, PaparaAlignment& result) const {
    const std::uint32_t* trace = trace_.template get<std::uint32_t>();
    papara_walk_back(
        m, n, [&](std::size_t j) { return int{last_col16_[j * W + lane]}; },
        [&](std::size_t i) { return int{last_row16_[(i - 1) * W + lane]}; },
        [&](std::size_t i, std::size_t j) {
          const unsigned bits = T::trace_bits(trace + ((i - 1) * m_max + (j - 1)) * WORDS, lane);
          using From = PaparaTraceCell::From;
          return PaparaTraceCell{!(bits & kNotM) ? From::m : (bits & kIWins) ? From::ins : From::d,
                                 (bits & kDExtend) != 0, (bits & kIExtend) != 0};
        },
        result);
  }

  const PaparaProblem& problem_;
  std::vector<std::uint16_t> lanes16_;
  std::vector<Mask> row_end_, col_cgap_;
  std::vector<std::int16_t> last_row16_, last_col16_;
  ScratchBuffer q_rows_, a_cols_, s_line_, d_line_, last_row_, trace_;
};

}  // namespace hyalign::kernels::simd

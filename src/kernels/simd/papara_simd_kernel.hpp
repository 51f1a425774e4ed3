#pragma once
// Inter-branch SIMD kernel for the PaPaRa recurrence, written once over a traits class that wraps one
// instruction set (included only by the per-ISA translation units, which compile it with their -m
// flags; every instantiation uses a traits type with internal linkage, so no ISA code leaks out).
//
// One query against W branches at once, one branch per 16-bit lane. The DP line runs along the query
// (arrays S and D of m+1 vectors); the reference is consumed COLS columns per pass, so each pass
// reads and writes the line once for COLS columns and keeps the inner columns in registers. Per
// column, a score table indexed by query symbol (match + gap-signal term, built from lane masks)
// replaces all bit tests in the inner loop. Memory use depends on the query length only, so long
// references run at the same speed as short ones.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/papara_encoding.hpp"
#include "kernels/simd/papara_cell.hpp"
#include "kernels/simd/scratch_buffer.hpp"

namespace hyalign::kernels::simd {

template <typename T>
class SimdPaparaScorer final : public PaparaBlockScorer {
  using V = typename T::V;
  using Mask = typename T::Mask;
  static constexpr std::size_t W = T::kLanes;
  static constexpr std::size_t COLS = T::kColumnsPerPass;

 public:
  SimdPaparaScorer(const PaparaProblem& problem, const EncodedQueries& queries)
      : problem_(problem), queries_(queries), k_(queries.symbol_count) {
    profile_.reserve<V>(COLS * k_);
  }

  void score_tile(const engine::WorkTile& tile, engine::ScoreSink& sink) override {
    // Wider tiles are scored one vector-wide block at a time.
    for (std::size_t first = tile.first_target; first < tile.first_target + tile.target_count; first += W) {
      const std::size_t count = std::min(W, tile.first_target + tile.target_count - first);
      score_block(first, count, tile.first_query, tile.query_count, sink);
    }
  }

 private:
  void score_block(std::size_t first, std::size_t count, std::size_t first_query, std::size_t query_count,
                   engine::ScoreSink& sink) {
    build_masks(first, count);
    alignas(64) std::int16_t lanes[W];
    for (std::size_t q = first_query; q < first_query + query_count; ++q) {
      const std::size_t m = queries_.length(q);
      if (!queries_.fits_int16[q] || m == 0) {
        // Too long for provably exact 16-bit lanes (or empty): the 32-bit reference kernel.
        for (std::size_t lane = 0; lane < count; ++lane)
          sink.offer(q, papara_score_scalar(problem_.queries->sequence(q), problem_.targets.branch(first + lane),
                                            problem_.scoring),
                     first + lane);
        continue;
      }
      T::store(lanes, score_query(queries_.query(q), m));
      for (std::size_t lane = 0; lane < count; ++lane) sink.offer(q, lanes[lane], first + lane);
    }
  }

  void build_masks(std::size_t first, std::size_t count) {
    masks_.interleave(problem_, first, count, W);
    const auto& sets = problem_.alphabet->residue_sets();
    for (std::size_t col = 0; col < problem_.targets.columns; ++col)
      for (std::size_t s = 0; s < k_; ++s)
        masks_.match[col * k_ + s] = T::lanes_sharing(masks_.interleaved.data() + col * W, sets[s]);
  }

  V score_query(const std::uint8_t* query, std::size_t m) {
    const std::size_t columns = problem_.targets.columns;
    V* s_line = s_line_.reserve<V>(m + 1);
    V* d_line = d_line_.reserve<V>(m + 1);
    const V zero = T::set1(0), minus_inf = T::set1(T::kMinusInfinity);
    for (std::size_t j = 0; j <= m; ++j) s_line[j] = zero, d_line[j] = minus_inf;
    V best = minus_inf;
    std::size_t col = 0;
    for (; col + COLS <= columns; col += COLS) best = T::max(best, pass<COLS>(query, m, col, s_line, d_line));
    for (; col < columns; ++col) best = T::max(best, pass<1>(query, m, col, s_line, d_line));
    for (std::size_t j = 1; j <= m; ++j) best = T::max(best, s_line[j]);  // last column
    return best;
  }

  // Columns [col, col + N): returns the max of their last-row cells; leaves column col+N-1 in the line.
  template <std::size_t N>
  V pass(const std::uint8_t* query, std::size_t m, std::size_t col, V* s_line, V* d_line) {
    const PaparaScoring& sc = problem_.scoring;
    const std::size_t k = k_;
    V* profile = profile_.get<V>();
    V open_d[N], extend_d[N], s_up[N], ins[N];
    const V open = T::set1(sc.gap_open), extend = T::set1(sc.gap_extend);
    const V zero = T::set1(0), minus_inf = T::set1(T::kMinusInfinity);
    for (std::size_t c = 0; c < N; ++c) {
      const Mask cg = static_cast<Mask>(masks_.cgap[col + c]);
      const V base = T::select(cg, zero, T::set1(sc.match_cgap));
      const V with_match = T::add(base, T::set1(sc.match));
      const std::uint32_t* match = masks_.match.data() + (col + c) * k;
      for (std::size_t s = 0; s < k; ++s) profile[c * k + s] = T::select(static_cast<Mask>(match[s]), base, with_match);
      open_d[c] = T::select(cg, open, zero);
      extend_d[c] = T::select(cg, extend, zero);
      s_up[c] = zero;      // S(i, 0) = 0
      ins[c] = minus_inf;  // I(i, 0) = -inf
    }
    V diag_first = zero;  // S(col-1, j-1) for the first column of the pass
    for (std::size_t j = 1; j <= m; ++j) {
      const V* row_profile = profile + query[j - 1];
      V left_s = s_line[j], left_d = d_line[j];
      V diag = diag_first;
      diag_first = left_s;
#pragma GCC unroll 8
      for (std::size_t c = 0; c < N; ++c) {
        const V mat = T::add(diag, row_profile[c * k]);
        const V del = T::max(T::add(left_s, open_d[c]), T::add(left_d, extend_d[c]));
        ins[c] = T::max(T::add(s_up[c], open), T::add(ins[c], extend));
        const V s = T::max(mat, T::max(del, ins[c]));
        advance_cell(diag, s_up[c], left_s, left_d, s, del);
      }
      s_line[j] = left_s;
      d_line[j] = left_d;
    }
    V last_row = s_up[0];
    for (std::size_t c = 1; c < N; ++c) last_row = T::max(last_row, s_up[c]);
    return last_row;
  }

  const PaparaProblem& problem_;
  const EncodedQueries& queries_;
  const std::size_t k_;
  BlockMasks masks_;
  ScratchBuffer profile_, s_line_, d_line_;
};

template <typename T>
class SimdPaparaKernel final : public PaparaKernel {
 public:
  SimdPaparaKernel(const PaparaProblem& problem, std::string_view name)
      : problem_(problem), queries_(encode_queries(problem)), name_(name) {}
  std::size_t block_width() const override { return T::kLanes; }
  std::string_view name() const override { return name_; }
  std::unique_ptr<PaparaBlockScorer> make_scorer() const override {
    return std::make_unique<SimdPaparaScorer<T>>(problem_, queries_);
  }

 private:
  const PaparaProblem& problem_;
  EncodedQueries queries_;
  std::string_view name_;
};

}  // namespace hyalign::kernels::simd

#pragma once
// Inter-task extension kernel: one (read, locus) task per lane, the band of
// kernels/scalar/extend_scalar.hpp computed for all lanes at once, cell (i, d) of every lane in one
// step. Written once over traits classes that wrap one instruction set and one lane width (included
// only by the per-ISA translation units, each compiled for its instruction set); tasks whose every
// value fits 8 bits run in 8-bit lanes, the others in 16-bit lanes or the scalar kernel
// (extend_lane_bits).
//
// Lanes are unsigned and saturating, everything floored at 0, which is exact: H = max(0, ...), and
// storing max(E, 0) and max(F, 0) changes no H (the 0 they stand for only meets max(0, ...)). A
// penalty beyond the lane (a wall's 1000) subtracts to 0 as the true value floors to 0; a score is
// added when the letters match and subtracted otherwise. No sum exceeds the task's max_score, which
// fits the lane: nothing saturates upwards.
//
// Lanes may differ in read length and band width: tasks are grouped by band width and length so
// lanes finish together. A lane's cells beyond its band are held at 0 (they feed only F at the
// band's edge, where 0 is what -infinity floors to). Its rows beyond its read, whose query code
// matches no letter, reach no more than the cells above them and so never beat its best. Row 0 is
// computed from a row above holding the start bonus clip5 (its diagonal predecessor and, one
// diagonal to the right, its insertion's). Target letters are laid out lane by lane per position
// k = i + d, with each position's penalty for a letter that differs (mismatch, ambiguous or wall).
//
// The best cell's column d can exceed the lane (mate rescue bands of 500 diagonals in 8 bits): the
// band is cut into chunks of 2^bits columns, each with its own best cell; the first best in (i, d)
// order is the best of the chunks, the lowest row winning ties, then the leftmost chunk.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/extend_kernel.hpp"
#include "kernels/simd/scratch_buffer.hpp"

namespace hyalign::kernels::simd {

inline constexpr std::uint8_t kQueryAmbiguous = 7;  // a query N (and a row past the read): equal to no target code

// One lane width of one instruction set (unsigned, saturating):
//   Isa::V, Isa::Mask, Isa::Lane (uint8_t or uint16_t), Isa::kLanes
//   set1, adds, subs, max, bit_and, eq -> Mask, blend(m, if_set, if_clear),
//   adds_where(m, src, a, b): adds(a, b) in the lanes of m, src in the others.
template <typename Isa>
class ExtendLanes {
 public:
  using V = typename Isa::V;
  using M = typename Isa::Mask;
  using Lane = typename Isa::Lane;
  static constexpr std::size_t kLanes = Isa::kLanes;
  static constexpr int kLaneMax = std::numeric_limits<Lane>::max();
  static constexpr std::size_t kChunk = std::size_t{kLaneMax} + 1;  // columns one lane counts

  explicit ExtendLanes(const ExtendScoring& s) : s_(s) {}

  // Scores tasks[lane_task[0..count)] (count <= kLanes; each one extend_lane_bits assigns these
  // lanes or narrower) into results.
  void run(std::span<const ExtendTask> tasks, const std::size_t* lane_task, std::size_t count,
           std::span<ExtendScore> results) {
    rows_ = cols_ = 0;
    for (std::size_t l = 0; l < count; ++l) {
      rows_ = std::max(rows_, tasks[lane_task[l]].query.size());
      cols_ = std::max<std::size_t>(cols_, tasks[lane_task[l]].band_width);
    }
    lay_out(tasks, lane_task, count);
    compute();
    for (std::size_t l = 0; l < count; ++l) results[lane_task[l]] = best_of(l);
  }

 private:
  // The values that stay fixed along a row.
  struct Row {
    V query, bonus, match, extend, open_extend, one, zero;
    M query_n;
  };
  // The values carried along a row, cell to cell, within one chunk.
  struct Sweep {
    V e, h_left, best, best_d, column;
  };

  static Lane* lanes_of(V* v) { return reinterpret_cast<Lane*>(v); }
  static Lane cost(int penalty) { return static_cast<Lane>(std::min(penalty, kLaneMax)); }

  // Per position k: target codes and the penalties for a letter that differs; per row: query codes
  // and the bonus of the reads that end there; per column beyond the narrowest band: which lanes
  // have it; the row above row 0; each chunk's best cell.
  void lay_out(std::span<const ExtendTask> tasks, const std::size_t* lane_task, std::size_t count) {
    const std::size_t positions = rows_ + cols_ - 1;
    chunks_ = (cols_ + kChunk - 1) / kChunk;
    V* v = vectors_.reserve<V>(3 * positions + 2 * rows_ + cols_ + 2 * (cols_ + 1) + 3 * chunks_);
    target_codes_ = v, mismatch_ = v + positions, ambiguous_ = v + 2 * positions;
    query_codes_ = v + 3 * positions, bonus_ = query_codes_ + rows_, valid_ = bonus_ + rows_;
    h_ = valid_ + cols_, f_ = h_ + cols_ + 1;
    best_ = f_ + cols_ + 1, best_i_ = best_ + chunks_, best_d_ = best_i_ + chunks_;
    min_band_ = cols_;
    for (std::size_t l = 0; l < count; ++l)
      min_band_ = std::min<std::size_t>(min_band_, tasks[lane_task[l]].band_width);
    std::fill(lanes_of(target_codes_), lanes_of(mismatch_), Lane{kWallCode});
    std::fill(lanes_of(query_codes_), lanes_of(bonus_), Lane{kQueryAmbiguous});
    std::fill(lanes_of(bonus_), lanes_of(best_d_ + chunks_), Lane{0});
    // The row above row 0 holds clip5 in column d <= band: up to min_band_ in every lane (lanes
    // without a task compute from it too, harmlessly: no lane reads another).
    std::fill(h_, h_ + min_band_ + 1, Isa::set1(s_.clip5));
    row_n_.assign(rows_, 0);
    row_last_.assign(rows_, 0);
    auto task = [&](std::size_t l) -> const ExtendTask& { return tasks[lane_task[l]]; };
    by_blocks(rows_, count, [&](std::size_t l, std::size_t begin, std::size_t end) {
      const std::uint8_t* in = task(l).query.data();
      Lane* out = lanes_of(query_codes_) + l;
      char* row_n = row_n_.data();
      for (std::size_t i = begin, stop = std::min(end, task(l).query.size()); i < stop; ++i) {
        if (in[i] < kAmbiguousCode) out[i * kLanes] = in[i];
        else row_n[i] = 1;  // the code stays kQueryAmbiguous
      }
    });
    by_blocks(positions, count, [&](std::size_t l, std::size_t begin, std::size_t end) {
      const std::uint8_t* in = task(l).target;
      Lane* out = lanes_of(target_codes_) + l;
      for (std::size_t k = begin, stop = std::min(end, task(l).target_length()); k < stop; ++k)
        out[k * kLanes] = in[k];
    });
    for (std::size_t l = 0; l < count; ++l) lay_out_edges(task(l), l);
    // Each position's penalty for a query base that differs from its letter, and for a query N.
    const V wall = Isa::set1(kWallCode), target_n = Isa::set1(kAmbiguousCode);
    const V wall_cost = Isa::set1(cost(kWallPenalty)), mismatch = Isa::set1(cost(s_.mismatch));
    const V ambiguous = Isa::set1(cost(s_.ambiguous));
    for (std::size_t k = 0; k < positions; ++k) {
      const V t = target_codes_[k];
      const M is_wall = Isa::eq(t, wall);
      mismatch_[k] = Isa::blend(is_wall, wall_cost, Isa::blend(Isa::eq(t, target_n), ambiguous, mismatch));
      ambiguous_[k] = Isa::blend(is_wall, wall_cost, ambiguous);
    }
  }

  // put(l, begin, end) for every lane l < count and block [begin, end) of positions < n, block by
  // block: the lanes' letters are interleaved while the block's vectors stay in the L1 cache.
  template <typename Put>
  static void by_blocks(std::size_t n, std::size_t count, Put&& put) {
    constexpr std::size_t kBlock = 64;
    for (std::size_t begin = 0; begin < n; begin += kBlock)
      for (std::size_t l = 0; l < count; ++l) put(l, begin, std::min(n, begin + kBlock));
  }

  // Lane l's last row's bonus, the columns of its band that need a mask, and the rest of its part
  // of the row above row 0.
  void lay_out_edges(const ExtendTask& t, std::size_t l) {
    const std::size_t last = t.query.size() - 1, band = t.band_width;
    if (s_.clip3 > 0) lanes_of(bonus_)[last * kLanes + l] = static_cast<Lane>(s_.clip3), row_last_[last] = 1;
    for (std::size_t d = min_band_; d < band; ++d) lanes_of(valid_)[d * kLanes + l] = static_cast<Lane>(kLaneMax);
    for (std::size_t d = min_band_ + 1; d <= band; ++d) lanes_of(h_)[d * kLanes + l] = static_cast<Lane>(s_.clip5);
  }

  void compute() {
    Row r{};
    r.match = Isa::set1(s_.match), r.extend = Isa::set1(cost(s_.gap_extend));
    r.open_extend = Isa::set1(cost(s_.gap_open + s_.gap_extend)), r.one = Isa::set1(1), r.zero = Isa::set1(0);
    const V query_n = Isa::set1(kQueryAmbiguous);
    for (std::size_t i = 0; i < rows_; ++i) {
      r.query = query_codes_[i], r.bonus = bonus_[i], r.query_n = Isa::eq(r.query, query_n);
      if (row_n_[i]) row_last_[i] ? sweep_row<true, true>(i, r) : sweep_row<true, false>(i, r);
      else row_last_[i] ? sweep_row<false, true>(i, r) : sweep_row<false, false>(i, r);
      if (i == 0) h_[cols_] = r.zero;  // beyond every band from row 0 on
    }
  }

  // Row i, chunk by chunk; the columns every lane's band holds need no mask. kQueryN: some lane's
  // query letter is an N; kLastRow: some lane's read ends here (its bonus).
  template <bool kQueryN, bool kLastRow>
  void sweep_row(std::size_t i, const Row& r) {
    const V row = Isa::set1(static_cast<int>(i));
    Sweep s{r.zero, r.zero, r.zero, r.zero, r.zero};
    for (std::size_t c = 0; c < chunks_; ++c) {
      const std::size_t begin = c * kChunk, end = std::min(cols_, begin + kChunk);
      const std::size_t unmasked = std::clamp(min_band_, begin, end);
      s.best = best_[c], s.best_d = best_d_[c], s.column = r.zero;
      const V before = s.best;
      sweep<kQueryN, kLastRow, false>(i, begin, unmasked, r, s);
      sweep<kQueryN, kLastRow, true>(i, unmasked, end, r, s);
      best_[c] = s.best, best_d_[c] = s.best_d;
      best_i_[c] = Isa::blend(Isa::eq(before, s.best), best_i_[c], row);  // improved in this row
    }
  }

  template <bool kQueryN, bool kLastRow, bool kMasked>
  void sweep(std::size_t i, std::size_t d, std::size_t end, const Row& row, Sweep& carried) {
    // Locals, not members: the vector stores below may alias anything reached through `this`.
    const Row r = row;
    Sweep s = carried;
    const V *t = target_codes_ + i, *mismatch = mismatch_ + i, *ambiguous = ambiguous_ + i, *valid = valid_;
    V *h_line = h_, *f_line = f_;
    for (; d < end; ++d) {
      // h_line[d], f_line[d + 1], h_line[d + 1] still hold the row above.
      V loss = mismatch[d];
      if constexpr (kQueryN) loss = Isa::blend(r.query_n, ambiguous[d], loss);
      const V diagonal = Isa::adds_where(Isa::eq(r.query, t[d]), Isa::subs(h_line[d], loss), h_line[d], r.match);
      s.e = Isa::max(Isa::subs(s.e, r.extend), Isa::subs(s.h_left, r.open_extend));
      const V f = Isa::max(Isa::subs(f_line[d + 1], r.extend), Isa::subs(h_line[d + 1], r.open_extend));
      V h = Isa::max(Isa::max(diagonal, s.e), f);
      if constexpr (kMasked) h = Isa::bit_and(h, valid[d]);
      h_line[d] = h, f_line[d] = f, s.h_left = h;
      // The first best cell in (i, d) order; a cell whose H is 0 scores nothing, bonus or not.
      V score = h;
      if constexpr (kLastRow) score = Isa::blend(Isa::eq(h, r.zero), r.zero, Isa::adds(h, r.bonus));
      const V best = Isa::max(s.best, score);
      s.best_d = Isa::blend(Isa::eq(best, s.best), s.best_d, s.column);
      s.best = best;
      s.column = Isa::adds(s.column, r.one);
    }
    carried = s;
  }

  ExtendScore best_of(std::size_t l) const {
    ExtendScore out;
    int out_row = 0;
    for (std::size_t c = 0; c < chunks_; ++c) {
      const int score = lanes_of(best_ + c)[l], row = lanes_of(best_i_ + c)[l];
      if (score > out.score || (score > 0 && score == out.score && row < out_row)) {
        const int d = static_cast<int>(c * kChunk) + lanes_of(best_d_ + c)[l];
        out = {score, row + 1, row + d + 1};
        out_row = row;
      }
    }
    return out;
  }

  ExtendScoring s_;
  std::size_t rows_ = 0, cols_ = 0, chunks_ = 0, min_band_ = 0;
  std::vector<char> row_n_, row_last_;
  ScratchBuffer vectors_;
  V *target_codes_ = nullptr, *mismatch_ = nullptr, *ambiguous_ = nullptr, *query_codes_ = nullptr,
    *bonus_ = nullptr, *valid_ = nullptr, *h_ = nullptr, *f_ = nullptr, *best_ = nullptr, *best_i_ = nullptr,
    *best_d_ = nullptr;
};

// Routes each task to the narrowest lanes that score it exactly (extend_lane_bits): 8-bit lanes,
// 16-bit lanes, or the scalar kernel; each width's tasks sorted by (band, length), widest first, so
// each vector's lanes are alike.
template <typename Narrow, typename Wide>
class SimdExtendScorer final : public ExtendScorer {
 public:
  explicit SimdExtendScorer(const ExtendScoring& s) : s_(s), narrow_(s), wide_(s) {}
  void score(std::span<const ExtendTask> tasks, std::span<ExtendScore> results) override {
    narrow_order_.clear(), wide_order_.clear();
    for (std::size_t k = 0; k < tasks.size(); ++k) {
      if (tasks[k].query.empty()) {
        results[k] = {};
        continue;
      }
      switch (extend_lane_bits(tasks[k], s_)) {
        case 8: narrow_order_.push_back(k); break;
        case 16: wide_order_.push_back(k); break;
        default: results[k] = extend_score_scalar(tasks[k], s_);
      }
    }
    run(narrow_, narrow_order_, tasks, results);
    run(wide_, wide_order_, tasks, results);
  }

 private:
  template <typename Lanes>
  static void run(Lanes& lanes, std::vector<std::size_t>& order, std::span<const ExtendTask> tasks,
                  std::span<ExtendScore> results) {
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return std::pair(tasks[a].band_width, tasks[a].query.size()) > std::pair(tasks[b].band_width, tasks[b].query.size());
    });
    for (std::size_t first = 0; first < order.size(); first += Lanes::kLanes)
      lanes.run(tasks, order.data() + first, std::min(Lanes::kLanes, order.size() - first), results);
  }

  ExtendScoring s_;
  ExtendLanes<Narrow> narrow_;
  ExtendLanes<Wide> wide_;
  std::vector<std::size_t> narrow_order_, wide_order_;
};

template <typename Narrow, typename Wide>
class SimdExtendKernel final : public ExtendKernel {
 public:
  SimdExtendKernel(const ExtendScoring& s, std::string_view name) : s_(s), name_(name) {}
  std::string_view name() const override { return name_; }
  std::size_t lanes() const override { return Narrow::kLanes; }
  std::unique_ptr<ExtendScorer> make_scorer() const override {
    return std::make_unique<SimdExtendScorer<Narrow, Wide>>(s_);
  }

 private:
  ExtendScoring s_;
  std::string_view name_;
};

}  // namespace hyalign::kernels::simd

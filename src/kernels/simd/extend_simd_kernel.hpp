#pragma once
// Inter-task extension kernel: one (read, locus) task per 16-bit lane, the band of
// kernels/scalar/extend_scalar.hpp computed for all lanes at once, cell (i, d) of every lane in one
// step. Written once over an instruction-set traits class (included only by the per-ISA
// translation units, each compiled for its instruction set).
//
// Lanes may differ in read length and band width: tasks are grouped by band width and length so
// lanes finish together; a lane's cells beyond its own band are held at -infinity (they feed
// nothing), its rows beyond its read never count, and its last row gets the clip3 bonus. Target
// letters are laid out lane by lane per position k = i + d, with each position's penalty for a
// mismatch precomputed (mismatch, ambiguous or wall), so a cell's score is one compare and two
// blends. A task whose best possible score does not fit 16 bits is computed by the scalar kernel.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "kernels/extend_kernel.hpp"
#include "kernels/simd/scratch_buffer.hpp"

namespace hyalign::kernels::simd {

inline constexpr int kExtendNegative = -30000;       // -infinity that survives a few subtractions
inline constexpr long long kExtendMaxScore = 30000;  // larger best scores run in 32 bits
inline constexpr std::uint8_t kQueryAmbiguous = 7;   // a query N: equal to no target code

template <typename Isa>
class ExtendLanes {
 public:
  using V = typename Isa::V;
  using M = typename Isa::Mask;
  static constexpr std::size_t kLanes = Isa::kLanes;

  explicit ExtendLanes(const ExtendScoring& s) : s_(s) {}

  // Scores tasks[lane_task[0..count)] (count <= kLanes) into results.
  void run(std::span<const ExtendTask> tasks, const std::size_t* lane_task, std::size_t count,
           std::span<ExtendScore> results) {
    rows_ = cols_ = 0;
    for (std::size_t l = 0; l < count; ++l) {
      const ExtendTask& t = tasks[lane_task[l]];
      rows_ = std::max(rows_, t.query.size());
      cols_ = std::max<std::size_t>(cols_, t.band_width);
    }
    lay_out(tasks, lane_task, count);
    compute();
    for (std::size_t l = 0; l < count; ++l) {
      const std::int16_t score = lane(best_, l);
      ExtendScore& r = results[lane_task[l]];
      if (score <= 0) {
        r = {};
      } else {
        const int i = lane(best_i_, l), d = lane(best_d_, l);
        r = {score, i + 1, i + d + 1};
      }
    }
  }

 private:
  static std::int16_t lane(V v, std::size_t l) {
    alignas(64) std::int16_t out[kLanes];
    Isa::store(out, v);
    return out[l];
  }

  // Per position k: target codes, the score of a base query letter that differs, and of a query N;
  // per row: query codes and the row's bonus; per band column: which lanes have it.
  void lay_out(std::span<const ExtendTask> tasks, const std::size_t* lane_task, std::size_t count) {
    const std::size_t positions = rows_ + cols_ - 1;
    target_.assign(positions * kLanes, kWallCode);
    query_.assign(rows_ * kLanes, kQueryAmbiguous);
    last_row_.assign(kLanes, -1);
    band_.assign(kLanes, 0);
    for (std::size_t l = 0; l < count; ++l) {
      const ExtendTask& t = tasks[lane_task[l]];
      for (std::size_t i = 0; i < t.query.size(); ++i)
        query_[i * kLanes + l] = t.query[i] < 4 ? t.query[i] : kQueryAmbiguous;
      for (std::size_t k = 0; k < t.target_length(); ++k) target_[k * kLanes + l] = t.target[k];
      last_row_[l] = static_cast<std::int16_t>(t.query.size()) - 1;
      band_[l] = static_cast<std::int16_t>(t.band_width);
    }
    V* v = vectors_.reserve<V>(3 * positions + 2 * rows_ + 3 * (cols_ + 1));
    target_codes_ = v, mismatch_ = v + positions, ambiguous_ = v + 2 * positions;
    query_codes_ = v + 3 * positions, bonus_ = query_codes_ + rows_;
    h_ = bonus_ + rows_, f_ = h_ + cols_ + 1, valid_ = f_ + cols_ + 1;
    alignas(64) std::int16_t lanes[3][kLanes];
    for (std::size_t k = 0; k < positions; ++k) {
      for (std::size_t l = 0; l < kLanes; ++l) {
        const std::uint8_t c = target_[k * kLanes + l];
        lanes[0][l] = c;
        lanes[1][l] = static_cast<std::int16_t>(c == kWallCode ? -kWallPenalty : c >= 4 ? -s_.ambiguous : -s_.mismatch);
        lanes[2][l] = static_cast<std::int16_t>(c == kWallCode ? -kWallPenalty : -s_.ambiguous);
      }
      target_codes_[k] = Isa::load(lanes[0]);
      mismatch_[k] = Isa::load(lanes[1]);
      ambiguous_[k] = Isa::load(lanes[2]);
    }
    for (std::size_t i = 0; i < rows_; ++i) {
      for (std::size_t l = 0; l < kLanes; ++l) {
        lanes[0][l] = query_[i * kLanes + l];
        const auto row = static_cast<std::int16_t>(i);
        lanes[1][l] = static_cast<std::int16_t>(row > last_row_[l] ? std::numeric_limits<std::int16_t>::min()
                                                : row == last_row_[l] ? s_.clip3 : 0);
      }
      query_codes_[i] = Isa::load(lanes[0]);
      bonus_[i] = Isa::load(lanes[1]);
    }
    for (std::size_t d = 0; d <= cols_; ++d) {
      for (std::size_t l = 0; l < kLanes; ++l) lanes[0][l] = static_cast<std::int16_t>(static_cast<int>(d) < band_[l] ? -1 : 0);
      valid_[d] = Isa::load(lanes[0]);
    }
  }

  void compute() {
    const V negative = Isa::set1(kExtendNegative), zero = Isa::set1(0);
    const V match = Isa::set1(s_.match), extend = Isa::set1(s_.gap_extend);
    const V open_extend = Isa::set1(s_.gap_open + s_.gap_extend), start = Isa::set1(s_.clip5);
    const V ambiguous_query = Isa::set1(kQueryAmbiguous);
    for (std::size_t d = 0; d <= cols_; ++d) h_[d] = f_[d] = negative;
    best_ = zero, best_i_ = zero, best_d_ = zero;
    for (std::size_t i = 0; i < rows_; ++i) {
      const V q = query_codes_[i], bonus = bonus_[i], row = Isa::set1(static_cast<int>(i));
      const M query_n = Isa::eq(q, ambiguous_query);
      const V* t = target_codes_ + i;
      const V* mismatch = mismatch_ + i;
      const V* ambiguous = ambiguous_ + i;
      V e = negative, h_left = negative;
      const V f_first = Isa::subs(start, open_extend);
      for (std::size_t d = 0; d < cols_; ++d) {
        // h_[d], f_[d + 1], h_[d + 1] still hold the row above.
        const V score = Isa::blend(query_n, ambiguous[d], Isa::blend(Isa::eq(q, t[d]), match, mismatch[d]));
        if (d > 0) e = Isa::max(Isa::subs(e, extend), Isa::subs(h_left, open_extend));
        const V f = i == 0 ? f_first : Isa::max(Isa::subs(f_[d + 1], extend), Isa::subs(h_[d + 1], open_extend));
        const V diagonal = Isa::adds(i == 0 ? start : h_[d], score);
        V h = Isa::max(Isa::max(diagonal, e), Isa::max(f, zero));
        const M inside = Isa::nonzero(valid_[d]);
        h = Isa::blend(inside, h, negative);
        // The first best cell in (i, d) order; a cell whose H is 0 scores nothing.
        const V candidate = Isa::adds(h, bonus);
        const M better = Isa::both(Isa::gt(candidate, best_), Isa::gt(h, zero));
        best_ = Isa::blend(better, candidate, best_);
        best_i_ = Isa::blend(better, row, best_i_);
        best_d_ = Isa::blend(better, Isa::set1(static_cast<int>(d)), best_d_);
        h_[d] = h;
        f_[d] = Isa::blend(inside, f, negative);
        h_left = h;
      }
    }
  }

  ExtendScoring s_;
  std::size_t rows_ = 0, cols_ = 0;
  std::vector<std::uint8_t> target_, query_;
  std::vector<std::int16_t> last_row_, band_;
  ScratchBuffer vectors_;
  V *target_codes_ = nullptr, *mismatch_ = nullptr, *ambiguous_ = nullptr, *query_codes_ = nullptr,
    *bonus_ = nullptr, *h_ = nullptr, *f_ = nullptr, *valid_ = nullptr;
  V best_{}, best_i_{}, best_d_{};
};

template <typename Isa>
class SimdExtendScorer final : public ExtendScorer {
 public:
  explicit SimdExtendScorer(const ExtendScoring& s) : s_(s), lanes_(s) {}
  void score(std::span<const ExtendTask> tasks, std::span<ExtendScore> results) override {
    // Widest bands and longest reads first, so each vector's lanes are alike.
    order_.clear();
    for (std::size_t k = 0; k < tasks.size(); ++k) {
      if (tasks[k].query.empty()) results[k] = {};
      else if (s_.max_score(tasks[k].query.size()) > kExtendMaxScore || tasks[k].band_width > kExtendMaxScore)
        results[k] = extend_score_scalar(tasks[k], s_);  // beyond 16 bits
      else order_.push_back(k);
    }
    std::sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
      return std::pair(tasks[a].band_width, tasks[a].query.size()) > std::pair(tasks[b].band_width, tasks[b].query.size());
    });
    for (std::size_t first = 0; first < order_.size(); first += Isa::kLanes)
      lanes_.run(tasks, order_.data() + first, std::min(Isa::kLanes, order_.size() - first), results);
  }

 private:
  ExtendScoring s_;
  ExtendLanes<Isa> lanes_;
  std::vector<std::size_t> order_;
};

template <typename Isa>
class SimdExtendKernel final : public ExtendKernel {
 public:
  SimdExtendKernel(const ExtendScoring& s, std::string_view name) : s_(s), name_(name) {}
  std::string_view name() const override { return name_; }
  std::size_t lanes() const override { return Isa::kLanes; }
  std::unique_ptr<ExtendScorer> make_scorer() const override { return std::make_unique<SimdExtendScorer<Isa>>(s_); }

 private:
  ExtendScoring s_;
  std::string_view name_;
};

}  // namespace hyalign::kernels::simd

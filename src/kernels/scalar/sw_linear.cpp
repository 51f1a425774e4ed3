// sw_align_scalar's alignment without its matrix.
//
// Pruning, exact. With a floor L <= S (the best score), a cell c can matter only when
//   H(c) + bound(c) >= L,  bound(c) = min(most the query residues after c can add,
//                                         most the target residues after c can add),
// a residue adding at most its best score against the other sequence's letters (0 if negative: it
// can lie in a gap, and gaps cost >= 0). A step from c to c' gains at most bound(c) - bound(c'), so
// every cell an alignment scoring >= L passes through can matter, its start (H = 0) included, and
// so can every cell a value tied in one of its traceback decisions comes from. The sweep keeps, per
// column, the rows from the first to the last cell that can matter; every other cell reads as
// -infinity. Each value it computes is some path's score, never
// above the true one, and the cells that can matter only come from cells that can matter, so they
// are exact: the first maximum, the end cell, and every value a traceback decision compares are
// those of the full matrix, so the traceback takes the same steps. If the given score is above S,
// the sweep finds a best M < L, a real score and so a floor that holds: one more sweep with L = M.
//
// Linear space. The sweep keeps one column of H and E, and a checkpoint of its kept rows every
// `stride` (about sqrt(8n)) columns; the traceback recomputes the columns between two checkpoints
// at a time, from the end cell's block back, with one traceback byte per kept cell. The checkpoints
// may come from another sweep (sw_align_located): one that keeps every row holds every value
// exactly, so the cells that can matter in the columns recomputed from it are exact all the same.
// The traceback recomputes the problem cut after the end cell (no path to it passes a later row or
// column; the values before the cut are the same, and the end cell is still the first maximum):
// with shorter suffixes its bounds are tighter, so each cell that can matter there can matter in
// the whole problem too, and lies in a checkpoint's kept rows.
#include "kernels/scalar/sw_linear.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "kernels/scalar/sw_traceback.hpp"

namespace hyalign::kernels {
namespace {

using namespace sw_detail;

using Rows = SwRows;
using Checkpoint = SwCheckpoint;

// bounds[k]: the most the residues after position k (1-based) can add, each its best score
// `against` any letter of the other sequence or 0. Capped where a sum would leave int: no score
// reaches the cap.
template <typename Against>
std::vector<int> gain_bounds(std::span<const std::uint8_t> seq, Against against) {
  std::array<int, ScoreMatrix::kMaxCodes> gain{};
  for (int c = 0; c < ScoreMatrix::kMaxCodes; ++c) gain[c] = std::max(0, against(static_cast<std::uint8_t>(c)));
  std::vector<int> bounds(seq.size() + 1, 0);
  long long sum = 0;
  for (std::size_t k = seq.size(); k-- > 0;) {
    sum = std::min<long long>(sum + gain[seq[k]], std::numeric_limits<int>::max() / 4);
    bounds[k] = static_cast<int>(sum);
  }
  return bounds;
}

std::array<bool, ScoreMatrix::kMaxCodes> letters_of(std::span<const std::uint8_t> seq) {
  std::array<bool, ScoreMatrix::kMaxCodes> present{};
  for (const std::uint8_t c : seq) present[c] = true;
  return present;
}

// A cell of row i and column j can matter for the floor when H >= row[i] and H >= column[j]
// (H + bound >= floor).
struct Needs {
  std::vector<int> row, column;
};

Needs needs_for(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target, const ScoreMatrix& matrix,
                int floor) {
  const auto in_query = letters_of(query), in_target = letters_of(target);
  const auto best_against = [&](const std::array<bool, ScoreMatrix::kMaxCodes>& present, auto score) {
    return [&present, score](std::uint8_t c) {
      int best = std::numeric_limits<int>::min();
      for (int o = 0; o < ScoreMatrix::kMaxCodes; ++o)
        if (present[o]) best = std::max(best, score(c, static_cast<std::uint8_t>(o)));
      return best;
    };
  };
  Needs needs{gain_bounds(query, best_against(in_target, [&](std::uint8_t q, std::uint8_t t) {
                            return matrix.score(q, t);
                          })),
              gain_bounds(target, best_against(in_query, [&](std::uint8_t t, std::uint8_t q) {
                            return matrix.score(q, t);
                          }))};
  for (int& need : needs.row) need = floor - need;
  for (int& need : needs.column) need = floor - need;
  return needs;
}

// One sweep over the target's columns with floor L, keeping the rows that can matter.
class ColumnSweep {
 public:
  ColumnSweep(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target, const SwScoring& scoring,
              int floor)
      : query_(query), target_(target), matrix_(*scoring.matrix), extend_(scoring.gap_extend),
        open_extend_(scoring.gap_open + scoring.gap_extend), h_(query.size() + 1, 0),
        e_(query.size() + 1, kMinusInfinity), kept_{1, query.size()} {
    Needs needs = needs_for(query, target, matrix_, floor);
    need_row_ = std::move(needs.row);
    need_column_ = std::move(needs.column);
  }

  // Nothing can matter in column j or after it.
  bool finished(std::size_t j) const { return kept_.empty() && !starts_in(j); }

  // Column j from column j - 1 (not finished(j)); visit(i, h, bits) for each row computed.
  template <typename Visit>
  void advance(std::size_t j, Visit&& visit) {
    const Rows from = kept_;
    const std::size_t m = query_.size(), first = starts_in(j) ? 1 : from.first;
    const std::uint8_t t = target_[j - 1];
    const int need_column = need_column_[j];
    int diag = h_[first - 1], up = diag, f = kMinusInfinity;
    Rows kept;
    std::size_t last = first;
    for (std::size_t i = first; i <= m; ++i) {
      const int left = h_[i];
      const Cell cell = sw_cell(diag, left, up, e_[i], f, matrix_.score(query_[i - 1], t), extend_, open_extend_);
      visit(i, cell.h, cell.bits);
      diag = left;
      h_[i] = up = cell.h;
      last = i;
      if (cell.h >= need_row_[i] && cell.h >= need_column) {
        if (kept.empty()) kept.first = i;
        kept.last = i;
      } else if (from.empty() || i >= from.last + 1) {
        break;  // this cell, which cannot matter, is all that feeds the rows below (F)
      } else if (i + 1 < from.first) {
        // The same down to the first row column j - 1 feeds: F only falls, and the bound too.
        i = from.first - 1;
        diag = up = f = kMinusInfinity;
      }
    }
    if (kept.empty()) kept = {last + 1, last};
    clear({first, kept.first - 1});
    clear({kept.last + 1, last});
    kept_ = kept;
  }

  Checkpoint checkpoint() const {
    Checkpoint c{kept_, {}, {}};
    if (!kept_.empty()) {
      c.h.assign(h_.begin() + static_cast<std::ptrdiff_t>(kept_.first), h_.begin() + static_cast<std::ptrdiff_t>(kept_.last) + 1);
      c.e.assign(e_.begin() + static_cast<std::ptrdiff_t>(kept_.first), e_.begin() + static_cast<std::ptrdiff_t>(kept_.last) + 1);
    }
    return c;
  }

  // Rows of the checkpoint past this sweep's last row (a sweep of the problem cut at the end cell)
  // are left out.
  void restore(const Checkpoint& c) {
    clear(kept_);
    kept_ = {c.kept.first, std::min(c.kept.last, query_.size())};
    if (kept_.empty()) return;
    const auto rows = static_cast<std::ptrdiff_t>(kept_.last - kept_.first + 1);
    std::copy(c.h.begin(), c.h.begin() + rows, h_.begin() + static_cast<std::ptrdiff_t>(kept_.first));
    std::copy(c.e.begin(), c.e.begin() + rows, e_.begin() + static_cast<std::ptrdiff_t>(kept_.first));
  }

  const Rows& kept() const { return kept_; }

 private:
  // An alignment that can matter can start in column j: after H(0, j-1) = 0 at row 1 (a start lower
  // in the column, or at column j itself, meets this condition too: the bounds only fall).
  bool starts_in(std::size_t j) const { return need_row_[0] <= 0 && need_column_[j - 1] <= 0; }

  // Rows outside the kept ones read as -infinity in the next column.
  void clear(Rows rows) {
    for (std::size_t i = rows.first; i <= rows.last; ++i) h_[i] = e_[i] = kMinusInfinity;
  }

  std::span<const std::uint8_t> query_, target_;
  const ScoreMatrix& matrix_;
  int extend_, open_extend_;
  std::vector<int> need_row_, need_column_;
  std::vector<int> h_, e_;  // H and E of the last column computed, -infinity outside kept_ (row 0: H = 0)
  Rows kept_;
};

// The first maximum of a sweep with `floor`, and its checkpoints.
SwLocated locate(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target, const SwScoring& scoring,
                 int floor, std::size_t stride) {
  ColumnSweep sweep(query, target, scoring, floor);
  SwLocated out;
  out.floor = floor;
  out.stride = stride;
  out.checkpoints.push_back(sweep.checkpoint());
  for (std::size_t j = 1; j <= target.size() && !sweep.finished(j); ++j) {
    sweep.advance(j, [&](std::size_t i, int h, std::uint8_t) {
      if (h > out.best) out.best = h, out.best_i = i, out.best_j = j;  // the first maximum, column by column
    });
    if (j % stride == 0) out.checkpoints.push_back(sweep.checkpoint());
  }
  return out;
}

// Traceback bytes of the kept rows, recomputed one block of columns (checkpoint, next checkpoint]
// at a time, from the end cell's block back as the walk asks for earlier columns.
class BlockTrace {
 public:
  BlockTrace(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target, const SwScoring& scoring,
             const SwLocated& located)
      : sweep_(query, target, scoring, located.floor), located_(located), stride_(located.stride),
        column_bits_(query.size() + 1) {
    load((located.best_j - 1) / stride_, located.best_j);
  }

  std::uint8_t at(std::size_t i, std::size_t j) {
    if (j <= first_column_) load(first_column_ / stride_ - 1, first_column_);
    const std::size_t column = j - first_column_ - 1;
    const Rows& rows = rows_[column];
    if (i < rows.first || i > rows.last) throw std::logic_error("sw_align_linear: the traceback left the kept cells");
    return bits_[offsets_[column] + i - rows.first];
  }

 private:
  // Columns (block * stride, last].
  void load(std::size_t block, std::size_t last) {
    first_column_ = block * stride_;
    sweep_.restore(located_.checkpoints[block]);
    rows_.clear(), offsets_.clear(), bits_.clear();
    for (std::size_t j = first_column_ + 1; j <= last; ++j) {
      sweep_.advance(j, [&](std::size_t i, int, std::uint8_t bits) { column_bits_[i] = bits; });
      const Rows& kept = sweep_.kept();
      rows_.push_back(kept);
      offsets_.push_back(bits_.size());
      if (!kept.empty())
        bits_.insert(bits_.end(), column_bits_.begin() + static_cast<std::ptrdiff_t>(kept.first),
                     column_bits_.begin() + static_cast<std::ptrdiff_t>(kept.last) + 1);
    }
  }

  ColumnSweep sweep_;
  const SwLocated& located_;
  std::size_t stride_, first_column_ = 0;
  std::vector<std::uint8_t> column_bits_;  // the column being computed, by row
  std::vector<Rows> rows_;                  // kept rows of each column of the block
  std::vector<std::size_t> offsets_;        // where each column's bytes start in bits_
  std::vector<std::uint8_t> bits_;
};

}  // namespace

std::size_t sw_checkpoint_stride(std::size_t target_length) {
  return static_cast<std::size_t>(std::max(1.0, std::sqrt(8.0 * static_cast<double>(target_length))));
}

SwAlignment sw_align_linear(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target,
                            const SwScoring& scoring, int score) {
  if (query.empty() || target.empty()) return {};
  const std::size_t stride = sw_checkpoint_stride(target.size());
  SwLocated located = locate(query, target, scoring, std::max(score, 0), stride);
  if (located.best < located.floor) located = locate(query, target, scoring, located.best, stride);
  return sw_align_located(query, target, scoring, located);
}

SwAlignment sw_align_located(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target,
                             const SwScoring& scoring, const SwLocated& located) {
  if (located.best == 0) return {};
  // No path to the end cell passes a row or column after it: trace back in the problem cut there,
  // whose values before the cut are the same and whose pruning is tighter (shorter suffixes).
  const auto cut_query = query.first(located.best_i), cut_target = target.first(located.best_j);
  BlockTrace trace(cut_query, cut_target, scoring, located);
  return trace_back(cut_query, cut_target, located.best, located.best_i, located.best_j,
                    [&](std::size_t i, std::size_t j) { return trace.at(i, j); });
}

double sw_unprunable_share(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target,
                           const SwScoring& scoring, int score) {
  if (query.empty() || target.empty()) return 0.0;
  const Needs needs = needs_for(query, target, *scoring.matrix, std::max(score, 0));
  // Needs rise along the sequences (the bounds of shorter suffixes fall): count the leading ones <= 0.
  const auto count_free = [](const std::vector<int>& need) {
    return static_cast<double>(std::partition_point(need.begin() + 1, need.end(), [](int n) { return n <= 0; }) -
                               (need.begin() + 1));
  };
  return count_free(needs.row) / static_cast<double>(query.size()) *
         (count_free(needs.column) / static_cast<double>(target.size()));
}

}  // namespace hyalign::kernels

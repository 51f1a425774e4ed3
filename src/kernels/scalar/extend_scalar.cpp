// The banded local alignment of extend_scalar.hpp, written as the recurrences read.
#include "kernels/scalar/extend_scalar.hpp"

#include <algorithm>

namespace hyalign::kernels {
namespace {

using namespace extend_sources;

// One row of the band at a time; `visit(i, d, h)` sees every cell's H after it is final, and
// `record(i, d, bits)` its sources.
template <typename Visit, typename Record>
void run_band(const ExtendTask& task, const ExtendScoring& s, Visit&& visit, Record&& record) {
  const int m = static_cast<int>(task.query.size()), w = static_cast<int>(task.band_width);
  const int open_extend = s.gap_open + s.gap_extend;
  std::vector<int> h_prev(w + 1, kExtendMinusInfinity), f_prev(w + 1, kExtendMinusInfinity);
  std::vector<int> h_row(w + 1, kExtendMinusInfinity), f_row(w + 1, kExtendMinusInfinity);
  for (int i = 0; i < m; ++i) {
    int e = kExtendMinusInfinity;
    for (int d = 0; d < w; ++d) {
      std::uint8_t bits = 0;
      // Deletion: from the cell to the left in this row.
      if (d > 0) {
        const int extend = e - s.gap_extend, open = h_row[d - 1] - open_extend;
        if (extend >= open) bits |= kDeletionExtends;
        e = std::max(extend, open);
      }
      // Insertion: from the row above, one diagonal to the right (the read's start: the bonus).
      int f;
      if (i == 0) {
        f = s.clip5 - open_extend;
      } else {
        const int extend = f_prev[d + 1] - s.gap_extend, open = h_prev[d + 1] - open_extend;
        if (extend >= open) bits |= kInsertionExtends;
        f = std::max(extend, open);
      }
      const int diagonal = (i == 0 ? s.clip5 : h_prev[d]) + s.letter_score(task.query[i], task.target[i + d]);
      int h = diagonal;
      std::uint8_t source = kDiagonal;
      if (e > h) h = e, source = kDeletion;
      if (f > h) h = f, source = kInsertion;
      if (h <= 0) h = 0, source = kEmpty;
      h_row[d] = h;
      f_row[d] = f;
      record(i, d, static_cast<std::uint8_t>(bits | source));
      visit(i, d, h);
    }
    std::swap(h_prev, h_row);
    std::swap(f_prev, f_row);
  }
}

// Tracks the first best cell in (i, d) order.
struct BestCell {
  const ExtendTask& task;
  const ExtendScoring& scoring;
  ExtendScore best;
  void operator()(int i, int d, int h) {
    const int last = static_cast<int>(task.query.size()) - 1;
    const int score = h > 0 ? h + (i == last ? scoring.clip3 : 0) : 0;
    if (score > best.score) best = {score, i + 1, i + d + 1};
  }
};

void push_run(std::vector<CigarRun>& cigar, CigarOp op, std::uint32_t length) {
  if (length == 0) return;
  if (!cigar.empty() && cigar.back().op == op) {
    cigar.back().length += length;
  } else {
    cigar.push_back({op, length});
  }
}

}  // namespace

ExtendScore extend_score_scalar(const ExtendTask& task, const ExtendScoring& scoring) {
  BestCell best{task, scoring, {}};
  run_band(task, scoring, best, [](int, int, std::uint8_t) {});
  return best.best;
}

ExtendAlignment extend_align_scalar(const ExtendTask& task, const ExtendScoring& scoring) {
  const int m = static_cast<int>(task.query.size()), w = static_cast<int>(task.band_width);
  std::vector<std::uint8_t> sources(static_cast<std::size_t>(m) * w);
  BestCell best{task, scoring, {}};
  run_band(task, scoring, best, [&](int i, int d, std::uint8_t bits) { sources[std::size_t(i) * w + d] = bits; });
  return extend_walk_back(task, sources, best.best);
}

ExtendAlignment extend_walk_back(const ExtendTask& task, std::span<const std::uint8_t> sources, const ExtendScore& best) {
  const int m = static_cast<int>(task.query.size()), w = static_cast<int>(task.band_width);
  ExtendAlignment out;
  out.best = best;
  if (out.best.score == 0) {
    out.cigar.push_back({CigarOp::soft_clip, static_cast<std::uint32_t>(m)});
    return out;
  }
  // Walk back from the best cell in state H, E or F, collecting runs in reverse.
  std::vector<CigarRun> reversed;
  push_run(reversed, CigarOp::soft_clip, static_cast<std::uint32_t>(m - out.best.query_end));
  int i = out.best.query_end - 1, d = out.best.target_end - 1 - i;
  enum { kH, kE, kF } state = kH;
  int first_target = 0;  // the target letter of the first column that consumes one
  while (true) {
    const std::uint8_t bits = sources[std::size_t(i) * w + d];
    if (state == kH) {
      const std::uint8_t source = bits & kHSourceMask;
      if (source == kDeletion) {
        state = kE;
      } else if (source == kInsertion) {
        state = kF;
      } else {
        push_run(reversed, CigarOp::match, 1);
        first_target = i + d;
        if (i == 0 || (sources[std::size_t(i - 1) * w + d] & kHSourceMask) == kEmpty) break;
        --i;
      }
    } else if (state == kE) {  // target letter i + d deleted; the cell to the left
      push_run(reversed, CigarOp::deletion, 1);
      state = (bits & kDeletionExtends) ? kE : kH;
      --d;
    } else {  // query letter i inserted; the row above, one diagonal to the right
      push_run(reversed, CigarOp::insertion, 1);
      first_target = i + d + 1;
      if (i == 0) break;  // started at the read's first letter with an insertion
      state = (bits & kInsertionExtends) ? kF : kH;
      --i;
      ++d;
    }
  }
  out.query_begin = i;
  out.target_begin = first_target;
  push_run(reversed, CigarOp::soft_clip, static_cast<std::uint32_t>(i));
  out.cigar.assign(reversed.rbegin(), reversed.rend());
  return out;
}

ExtendAlignment extend_align_near(const ExtendTask& task, const ExtendScoring& scoring, const ExtendScore& best,
                                  ExtendAligner align) {
  const long long m = static_cast<long long>(task.query.size()), w = task.band_width;
  if (best.score <= 0 || scoring.gap_extend <= 0) return align(task, scoring);
  // A path scoring `best` loses at most `slack` to its gaps. Each deleted letter costs gap_extend
  // and moves the path's earlier cells a diagonal down; each inserted one costs gap_extend and the
  // match it forgoes, and moves them a diagonal up.
  const long long slack = std::max(0LL, m * scoring.match + scoring.clip5 + scoring.clip3 - scoring.gap_open - best.score);
  const long long most_deleted = slack / scoring.gap_extend;
  const long long most_inserted = slack / (scoring.gap_extend + std::max(0, scoring.match));
  const long long last_diagonal = best.target_end - best.query_end;
  const long long lo = std::max(0LL, last_diagonal - most_deleted);
  const long long hi = std::min(w - 1, last_diagonal + most_inserted);
  if (lo == 0 && hi == w - 1) return align(task, scoring);
  const ExtendTask near{task.query, task.target + lo, static_cast<std::uint32_t>(hi - lo + 1)};
  ExtendAlignment out = align(near, scoring);
  out.best.target_end += static_cast<std::int32_t>(lo);
  out.target_begin += static_cast<std::int32_t>(lo);
  return out;
}

long long rescore_alignment(const ExtendTask& task, const ExtendScoring& scoring, std::int32_t target_begin,
                            std::span<const CigarRun> cigar) {
  long long score = 0;
  std::size_t q = 0, t = static_cast<std::size_t>(target_begin);
  std::size_t first_aligned = task.query.size(), end_aligned = 0;
  for (const CigarRun& run : cigar) {
    switch (run.op) {
      case CigarOp::soft_clip: q += run.length; break;
      case CigarOp::match:
        first_aligned = std::min(first_aligned, q);
        for (std::uint32_t k = 0; k < run.length; ++k) score += scoring.letter_score(task.query[q++], task.target[t++]);
        end_aligned = q;
        break;
      case CigarOp::insertion:
        first_aligned = std::min(first_aligned, q);
        score -= scoring.gap_open + static_cast<long long>(run.length) * scoring.gap_extend;
        q += run.length;
        end_aligned = q;
        break;
      case CigarOp::deletion:
        score -= scoring.gap_open + static_cast<long long>(run.length) * scoring.gap_extend;
        t += run.length;
        break;
    }
  }
  if (first_aligned == 0) score += scoring.clip5;
  if (end_aligned == task.query.size() && end_aligned > 0) score += scoring.clip3;
  return score;
}

}  // namespace hyalign::kernels

#include "kernels/mem_strand_work.hpp"

#include <algorithm>

#include "core/parallel.hpp"

namespace hyalign::kernels {

StrandWork::StrandWork(const StrandSet& set, std::size_t first, std::size_t count, std::size_t most_strands,
                       const MemFinder* pieces, unsigned threads)
    : set_(set), finder_(pieces),
      unit_letters_(std::clamp<std::size_t>(count > 0 ? (set.starts[first + count] - set.starts[first]) /
                                                            (std::max(1u, threads) * kUnitsPerThread)
                                                      : 0,
                                            kLeastLetters, kLettersPerUnit)) {
  std::vector<std::size_t> split;  // strands cut into pieces
  std::size_t unit_letters = 0;
  for (std::size_t s = first; s < first + count; ++s) {
    const std::size_t length = set.starts[s + 1] - set.starts[s];
    if (pieces && length > unit_letters_) {
      add_pieces(s, length, split.size());
      split.push_back(s);
    } else {
      add_whole(s, length, most_strands, unit_letters);
    }
  }
  runs_.resize(split.size());
  const auto per_strand = static_cast<unsigned>(std::max<std::size_t>(1, threads / std::max<std::size_t>(1, split.size())));
  parallel_for(split.size(), threads,
               [&](std::size_t i, unsigned) { runs_[i].find(set.strand(split[i]), per_strand); });
  piece_matches_.resize(units_.size());
}

// Strand `strand` in the last unit if that holds whole strands with room for it, else in a new one.
void StrandWork::add_whole(std::size_t strand, std::size_t letters, std::size_t most_strands,
                           std::size_t& unit_letters) {
  if (units_.empty() || units_.back().piece() || units_.back().strands >= most_strands ||
      unit_letters + letters > unit_letters_) {
    units_.push_back({strand, 0, {}, 0});
    unit_letters = 0;
  }
  ++units_.back().strands;
  unit_letters += letters;
}

// Strand `strand` as pieces of seeds that span about unit_letters_ letters each.
void StrandWork::add_pieces(std::size_t strand, std::size_t length, std::size_t runs) {
  const std::size_t seeds = finder_->seeds_in(length);
  const std::size_t per_piece = std::max<std::size_t>(1, unit_letters_ / finder_->seed_step());
  for (std::size_t first = 0; first < seeds; first += per_piece)
    units_.push_back({strand, 0, {first, std::min(seeds, first + per_piece)}, runs});
}

double StrandWork::find_pieces(std::size_t first, std::size_t end, unsigned threads) {
  parallel_for(end - first, threads, [&](std::size_t i, unsigned) {
    if (units_[first + i].piece()) find_piece(first + i);
  });
  double letters = 0;
  for (std::size_t u = first; u < end; ++u)
    if (units_[u].piece())
      letters += static_cast<double>((units_[u].seeds.end - units_[u].seeds.first) * finder_->seed_step());
  return letters;
}

void StrandWork::find_piece(std::size_t unit) {
  thread_local MemFinder::Scratch scratch;
  const Unit& u = units_[unit];
  finder_->find_piece({set_.strand(u.first_strand), &runs_[u.runs]}, u.seeds, piece_matches_[unit], scratch);
}

// The matches of the pieces from `unit` on that belong to its strand, into `out`; `unit` then
// is the first unit after them.
void StrandWork::gather_strand(std::size_t& unit, StrandMatches& out) {
  const std::size_t strand = units_[unit].first_strand;
  std::vector<MemMatch> matches;
  for (; unit < units_.size() && units_[unit].piece() && units_[unit].first_strand == strand; ++unit) {
    matches.insert(matches.end(), piece_matches_[unit].begin(), piece_matches_[unit].end());
    piece_matches_[unit] = {};
  }
  append_strand(matches, finder_->params().kind, out);
}

void find_on_cpu_in_parallel(const MemFinder& finder, const StrandSet& strands, std::size_t first, std::size_t count,
                             unsigned threads, StrandMatches& out) {
  constexpr std::size_t kStrandsPerUnit = 256;
  StrandWork work(strands, first, count, kStrandsPerUnit, &finder, threads);
  std::vector<StrandMatches> found(work.size());  // the whole strands' units'
  parallel_for(work.size(), threads, [&](std::size_t u, unsigned) {
    if (work[u].piece()) {
      work.find_pieces(u, u + 1, 1);
      return;
    }
    found[u].first = work[u].first_strand;
    find_on_cpu(finder, strands, found[u].first, work[u].strands, found[u]);
  });
  std::erase_if(found, [](const StrandMatches& f) { return f.count() == 0; });
  work.gather_pieces(found, [] { return StrandMatches{}; });
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const StrandMatches& part : found) {
    const std::size_t base = out.matches.size();
    out.matches.insert(out.matches.end(), part.matches.begin(), part.matches.end());
    for (std::size_t i = 1; i < part.offsets.size(); ++i) out.offsets.push_back(base + part.offsets[i]);
  }
}

}  // namespace hyalign::kernels

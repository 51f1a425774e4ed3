#include "kernels/mem_strand_work.hpp"

#include <algorithm>
#include <utility>

#include "core/parallel.hpp"

namespace hyalign::kernels {

StrandWork::StrandWork(const StrandSet& set, std::size_t first, std::size_t count, std::size_t most_strands,
                       const MemFinder* pieces, unsigned threads)
    : set_(set), finder_(pieces), weigh_(pieces && pieces->params().kind == MemKind::maxmatch),
      unit_letters_(unit_letters(set, first, count, threads)) {
  const std::vector<std::size_t> split =
      pieces ? strands_to_cut(set, first, count, unit_letters_, weigh_) : std::vector<std::size_t>{};
  runs_.resize(split.size());
  const auto per_strand = static_cast<unsigned>(std::max<std::size_t>(1, threads / std::max<std::size_t>(1, split.size())));
  parallel_for(split.size(), threads,
               [&](std::size_t i, unsigned) { runs_[i].find(set.strand(split[i]), per_strand); });
  if (weigh_) look_up_seeds(split, threads);
  const double most_cost = most_cost_per_piece(split);
  std::size_t unit_letters = 0;
  for (std::size_t s = first, k = 0; s < first + count; ++s) {
    if (k < split.size() && split[k] == s) {
      if (weigh_) add_weighed_pieces(s, k, most_cost);
      else add_pieces(s, k);
      ++k;
    } else {
      add_whole(s, letters_of(s), most_strands, unit_letters);
    }
  }
  piece_matches_.resize(units_.size());
}

std::size_t StrandWork::unit_letters(const StrandSet& set, std::size_t first, std::size_t count, unsigned threads) {
  const std::size_t letters = count > 0 ? set.starts[first + count] - set.starts[first] : 0;
  return std::clamp<std::size_t>(letters / (std::max(1u, threads) * kUnitsPerThread), kLeastLetters, kLettersPerUnit);
}

// Strands [first, first + count) over a unit's letters, or under -maxmatch (`weigh`) over kLeastLetters.
std::vector<std::size_t> StrandWork::strands_to_cut(const StrandSet& set, std::size_t first, std::size_t count,
                                                    std::size_t unit_letters, bool weigh) {
  std::vector<std::size_t> cut;
  for (std::size_t s = first; s < first + count; ++s)
    if (set.starts[s + 1] - set.starts[s] > (weigh ? kLeastLetters : unit_letters)) cut.push_back(s);
  return cut;
}

bool StrandWork::cuts(const StrandSet& set, const MemFinder& finder, unsigned threads) {
  return !strands_to_cut(set, 0, set.size(), unit_letters(set, 0, set.size(), threads),
                         finder.params().kind == MemKind::maxmatch)
              .empty();
}

// Under -maxmatch a unit's time follows its matches, not its letters: on a repeat-rich genome one
// strand of 100 kb held 13,000 times another's matches (docs/performance.md). Each occurrence of
// a seed is extended, so each strand over kLeastLetters has its seeds looked up first (on
// `threads` threads, into seeds_), to be cut by their rows and matched from them.
void StrandWork::look_up_seeds(const std::vector<std::size_t>& split, unsigned threads) {
  constexpr std::size_t kSeedsPerTask = std::size_t{1} << 14;
  std::vector<std::pair<std::size_t, std::size_t>> tasks;  // (strand in split, its first seed)
  for (std::size_t k = 0; k < split.size(); ++k)
    for (std::size_t seed = 0; seed < finder_->seeds_in(letters_of(split[k])); seed += kSeedsPerTask)
      tasks.emplace_back(k, seed);
  std::vector<std::vector<MemFinder::Seed>> found(tasks.size());
  parallel_for(tasks.size(), threads, [&](std::size_t t, unsigned) {
    thread_local MemFinder::Scratch scratch;
    const auto [k, seed] = tasks[t];
    finder_->look_up(set_.strand(split[k]), {seed, seed + kSeedsPerTask}, found[t], scratch);
  });
  seeds_.resize(split.size());
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    std::vector<MemFinder::Seed>& strand = seeds_[tasks[t].first];
    strand.insert(strand.end(), found[t].begin(), found[t].end());
    found[t] = {};
  }
}

// Under -maxmatch, what unit_letters_ letters of the strands cut into pieces cost on average: a
// piece's most, so that light stretches are cut by their letters and heavy ones into more pieces.
double StrandWork::most_cost_per_piece(const std::vector<std::size_t>& split) const {
  double cost = 0, letters = 0;
  for (std::size_t k = 0; k < seeds_.size(); ++k) {
    for (const MemFinder::Seed& seed : seeds_[k]) cost += seed_cost(seed);
    letters += static_cast<double>(letters_of(split[k]));
  }
  return letters > 0 ? cost / letters * static_cast<double>(unit_letters_) : 0;
}

// Strand `strand` in the last unit if that holds whole strands with room for it, else in a new one.
void StrandWork::add_whole(std::size_t strand, std::size_t letters, std::size_t most_strands,
                           std::size_t& unit_letters) {
  if (units_.empty() || units_.back().piece() || units_.back().strands >= most_strands ||
      unit_letters + letters > unit_letters_) {
    units_.push_back({strand, 0, {}, 0, {}});
    unit_letters = 0;
  }
  ++units_.back().strands;
  unit_letters += letters;
}

// Strand `strand` (split[k]) as pieces of consecutive seeds that span about unit_letters_ letters.
void StrandWork::add_pieces(std::size_t strand, std::size_t k) {
  const std::size_t seeds = finder_->seeds_in(letters_of(strand));
  const std::size_t per_piece = std::max<std::size_t>(1, unit_letters_ / finder_->seed_step());
  for (std::size_t first = 0; first < seeds; first += per_piece)
    units_.push_back({strand, 0, {first, std::min(seeds, first + per_piece)}, k, {}});
}

// Strand `strand` (split[k]) as pieces of its looked-up seeds that span at most about
// unit_letters_ letters and cost at most `most_cost`, but hold one seed at least.
void StrandWork::add_weighed_pieces(std::size_t strand, std::size_t k, double most_cost) {
  const std::span<const MemFinder::Seed> found = seeds_[k];
  const std::size_t step = finder_->seed_step(), per_piece = std::max<std::size_t>(1, unit_letters_ / step);
  std::size_t first = 0, from = 0;  // the piece's first seed, and its first in `found`
  double cost = 0;
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::size_t seed = found[i].pos / step;
    if (i > from && (seed - first >= per_piece || cost + seed_cost(found[i]) > most_cost)) {
      units_.push_back({strand, 0, {first, seed}, k, found.subspan(from, i - from)});
      first = seed;
      from = i;
      cost = 0;
    }
    cost += seed_cost(found[i]);
  }
  units_.push_back({strand, 0, {first, finder_->seeds_in(letters_of(strand))}, k, found.subspan(from)});
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
  const index::RunString strand{set_.strand(u.first_strand), &runs_[u.runs]};
  if (weigh_) finder_->find_piece(strand, u.found, piece_matches_[unit], scratch);
  else finder_->find_piece(strand, u.seeds, piece_matches_[unit], scratch);
}

// The first unit of each strand cut into pieces.
std::vector<std::size_t> StrandWork::first_pieces() const {
  std::vector<std::size_t> firsts;
  for (std::size_t u = 0; u < units_.size(); ++u)
    if (units_[u].piece() && (u == 0 || !units_[u - 1].piece() || units_[u - 1].first_strand != units_[u].first_strand))
      firsts.push_back(u);
  return firsts;
}

// Each strand whose pieces begin at unit firsts[i] into out[i], on `threads` threads: under
// -maxmatch a batch's pieces hold gigabytes, and one thread copying them left the others idle.
void StrandWork::gather(const std::vector<std::size_t>& firsts, std::span<StrandMatches> out, unsigned threads) {
  parallel_for(firsts.size(), threads, [&](std::size_t i, unsigned) { gather_strand(firsts[i], out[i]); });
}

// The matches of the pieces from `unit` on that belong to its strand, appended to `out` as one
// strand's, the pieces' memory freed.
void StrandWork::gather_strand(std::size_t unit, StrandMatches& out) {
  const std::size_t strand = units_[unit].first_strand;
  std::size_t end = unit, total = 0;
  for (; end < units_.size() && units_[end].piece() && units_[end].first_strand == strand; ++end)
    total += piece_matches_[end].size();
  const auto append = [&](auto& to) {
    to.reserve(to.size() + total);
    for (std::size_t u = unit; u < end; ++u) {
      to.insert(to.end(), piece_matches_[u].begin(), piece_matches_[u].end());
      piece_matches_[u] = {};
    }
  };
  if (finder_->params().kind == MemKind::mum) {  // whose rule needs the whole strand's matches
    std::vector<MemMatch> matches;
    append(matches);
    append_strand(matches, MemKind::mum, out);
  } else {
    append(out.matches);
    out.offsets.push_back(out.matches.size());
  }
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
  work.gather_pieces(found, [] { return StrandMatches{}; }, threads);
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const StrandMatches& part : found) {
    const std::size_t base = out.matches.size();
    out.matches.insert(out.matches.end(), part.matches.begin(), part.matches.end());
    for (std::size_t i = 1; i < part.offsets.size(); ++i) out.offsets.push_back(base + part.offsets[i]);
  }
}

}  // namespace hyalign::kernels

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
  // Long strands are cut into pieces; under -maxmatch, so is any strand of more than kLeastLetters
  // whose seeds cost more than a piece may.
  const bool weigh = pieces && pieces->params().kind == MemKind::maxmatch;
  const auto letters_of = [&](std::size_t s) { return set.starts[s + 1] - set.starts[s]; };
  std::vector<std::size_t> weighed;
  for (std::size_t s = first; s < first + count; ++s)
    if (weigh && letters_of(s) > kLeastLetters) weighed.push_back(s);
  const SeedCosts costs = seed_costs(weighed, threads);
  std::vector<std::size_t> split;                 // strands cut into pieces
  std::vector<const std::uint32_t*> split_costs;  // their seeds' costs, or none
  for (std::size_t s = first, w = 0; s < first + count; ++s) {
    const bool is_weighed = w < weighed.size() && weighed[w] == s;
    const std::uint32_t* cost = is_weighed ? costs.by_strand[w].data() : nullptr;
    if (pieces && (letters_of(s) > unit_letters_ || (is_weighed && costs.total[w] > costs.most_per_piece))) {
      split.push_back(s);
      split_costs.push_back(cost);
    }
    w += is_weighed;
  }
  runs_.resize(split.size());
  const auto per_strand = static_cast<unsigned>(std::max<std::size_t>(1, threads / std::max<std::size_t>(1, split.size())));
  parallel_for(split.size(), threads,
               [&](std::size_t i, unsigned) { runs_[i].find(set.strand(split[i]), per_strand); });
  std::size_t unit_letters = 0;
  for (std::size_t s = first, k = 0; s < first + count; ++s) {
    if (k < split.size() && split[k] == s) {
      add_pieces(s, k, split_costs[k], costs.most_per_piece);
      ++k;
    } else {
      add_whole(s, letters_of(s), most_strands, unit_letters);
    }
  }
  piece_matches_.resize(units_.size());
}

// The cost of each seed of the strands `weighed`, under -maxmatch: a unit's time follows its
// matches, not its letters, and on a repeat-rich genome one strand of 100 kb held 13,000 times
// another's matches (docs/performance.md). Each occurrence of a seed is extended, so a seed costs
// its occurrences and its look-up.
StrandWork::SeedCosts StrandWork::seed_costs(const std::vector<std::size_t>& weighed, unsigned threads) const {
  SeedCosts costs;
  if (weighed.empty()) return costs;
  constexpr std::size_t kSeedsPerTask = std::size_t{1} << 14;
  std::vector<std::pair<std::size_t, std::size_t>> tasks;  // (strand in weighed, its first seed)
  costs.by_strand.resize(weighed.size());
  for (std::size_t w = 0; w < weighed.size(); ++w) {
    costs.by_strand[w].assign(finder_->seeds_in(set_.starts[weighed[w] + 1] - set_.starts[weighed[w]]), kLookUpCost);
    for (std::size_t seed = 0; seed < costs.by_strand[w].size(); seed += kSeedsPerTask) tasks.emplace_back(w, seed);
  }
  parallel_for(tasks.size(), threads, [&](std::size_t t, unsigned) {
    thread_local MemFinder::Scratch scratch;
    const auto [w, seed] = tasks[t];
    std::vector<std::uint32_t>& strand = costs.by_strand[w];
    const std::size_t end = std::min(strand.size(), seed + kSeedsPerTask);
    finder_->count_occurrences(set_.strand(weighed[w]), {seed, end},
                               std::span<std::uint32_t>(strand).subspan(seed, end - seed), scratch);
  });
  // A piece costs at most what unit_letters_ letters of these strands cost on average: light
  // stretches are cut by their letters, heavy ones into more pieces.
  double all = 0, letters = 0;
  for (std::size_t w = 0; w < weighed.size(); ++w) {
    double strand = 0;
    for (const std::uint32_t c : costs.by_strand[w]) strand += c;
    costs.total.push_back(strand);
    all += strand;
    letters += static_cast<double>(set_.starts[weighed[w] + 1] - set_.starts[weighed[w]]);
  }
  costs.most_per_piece = all / letters * static_cast<double>(unit_letters_);
  return costs;
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

// Strand `strand` (split[runs]) as pieces of consecutive seeds that span at most about
// unit_letters_ letters and, with `cost` (per seed), cost at most `most_cost`, but one seed at least.
void StrandWork::add_pieces(std::size_t strand, std::size_t runs, const std::uint32_t* cost, double most_cost) {
  const std::size_t seeds = finder_->seeds_in(set_.starts[strand + 1] - set_.starts[strand]);
  const std::size_t per_piece = std::max<std::size_t>(1, unit_letters_ / finder_->seed_step());
  double piece_cost = 0;
  for (std::size_t first = 0, seed = 0; seed < seeds; ++seed) {
    if (cost) piece_cost += cost[seed];
    if (seed + 1 == seeds || seed + 1 - first == per_piece || piece_cost >= most_cost) {
      units_.push_back({strand, 0, {first, seed + 1}, runs});
      first = seed + 1;
      piece_cost = 0;
    }
  }
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
  const bool mum = finder_->params().kind == MemKind::mum;
  std::vector<MemMatch> strand_matches;  // under -mum, whose rule needs the whole strand's
  if (mum) strand_matches.reserve(total);
  else out.matches.reserve(out.matches.size() + total);
  for (std::size_t u = unit; u < end; ++u) {
    const std::vector<MemMatch>& piece = piece_matches_[u];
    if (mum) strand_matches.insert(strand_matches.end(), piece.begin(), piece.end());
    else out.matches.insert(out.matches.end(), piece.begin(), piece.end());
    piece_matches_[u] = {};
  }
  if (mum) append_strand(strand_matches, MemKind::mum, out);
  else out.offsets.push_back(out.matches.size());
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

// Long strands cut into pieces of seeds (kernels/mem_strand_work.hpp): the pieces' matches, put together,
// are the whole strand's.
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "index/periodic_runs.hpp"
#include "index/suffix_index.hpp"
#include "kernels/mem_kernel.hpp"
#include "kernels/mem_strand_work.hpp"
#include "test_support.hpp"

namespace hyalign {
namespace {

using kernels::MemFinder;
using kernels::MemKind;
using kernels::MemMatch;
using kernels::MemParams;

// A query made of the reference's pieces, some mutated, with N runs and homopolymers between them
// (long shared stretches that run over the pieces' bounds).
std::string query_of_pieces(std::mt19937& rng, const std::string& reference, std::size_t length) {
  std::string q;
  while (q.size() < length) {
    const std::size_t start = rng() % reference.size(), n = 50 + rng() % 5000;
    std::string piece = reference.substr(start, n);
    if (rng() % 2 == 0)
      for (char& c : piece)
        if (rng() % 100 == 0) c = "acgt"[rng() % 4];
    q += piece;
    if (rng() % 8 == 0) q += std::string(rng() % 3000, "an"[rng() % 2]);
  }
  return q;
}

std::vector<MemMatch> whole_strand(const MemFinder& finder, std::string_view strand) {
  std::vector<MemMatch> found;
  finder.find(strand, found);
  if (finder.params().kind == MemKind::mum) kernels::keep_mums(found);
  return found;
}

TEST(MemFinder, PiecesOfSeedsShareOutTheMatches) {
  std::mt19937 rng(20261128);
  const std::string reference = test::random_bases(rng, 20000) + std::string(500, 'a');
  const index::SuffixIndex idx =
      index::SuffixIndex::build(test::reference_of({reference, reference.substr(3000, 900)}), 1);
  for (MemKind kind : {MemKind::maxmatch, MemKind::mumreference})
    for (std::uint32_t min_length : {5u, 20u, 31u})
      for (bool bases_only : {false, true}) {
        const MemFinder finder(idx, MemParams{kind, min_length, bases_only});
        MemFinder::Scratch scratch;
        for (int round = 0; round < 20; ++round) {
          const std::string query = query_of_pieces(rng, reference, rng() % 6000);
          index::PeriodicRuns runs;
          runs.find(query);
          const std::size_t seeds = finder.seeds_in(query.size());
          std::vector<MemMatch> together, piece;
          for (std::size_t first = 0; first < seeds;) {
            const std::size_t end = std::min(seeds, first + 1 + rng() % 200);
            finder.find_piece({query, &runs}, {first, end}, piece, scratch);
            together.insert(together.end(), piece.begin(), piece.end());
            first = end;
          }
          std::vector<MemMatch> whole;
          finder.find(query, whole);
          ASSERT_EQ(together, whole) << "kind " << static_cast<int>(kind) << " -l " << min_length
                                     << (bases_only ? " -n" : "") << " round " << round;
        }
      }
}

// Strands back to back, as a batch holds them.
struct BackToBack {
  std::string letters;
  std::vector<std::uint64_t> starts{0};
  explicit BackToBack(const std::vector<std::string>& strands) {
    for (const std::string& s : strands) {
      letters += s;
      starts.push_back(letters.size());
    }
  }
  kernels::StrandSet view() const { return {letters, starts}; }
};

// Every unit of a batch matched, the way mem's DeviceMatcher does, one strand's matches after
// another.
std::vector<std::vector<MemMatch>> match_units(kernels::StrandWork& work, const MemFinder& finder,
                                               const kernels::StrandSet& set) {
  std::vector<kernels::StrandMatches> found;
  for (std::size_t u = 0; u < work.size(); ++u) {
    if (work[u].piece()) {
      std::size_t end = u + 1;
      while (end < work.size() && work[end].piece()) ++end;
      work.find_pieces(u, end, 1 + static_cast<unsigned>(u % 3));  // one thread, or several
      u = end - 1;
      continue;
    }
    kernels::StrandMatches whole;
    whole.first = work[u].first_strand;
    kernels::find_on_cpu(finder, set, whole.first, work[u].strands, whole);
    found.push_back(std::move(whole));
  }
  work.gather_pieces(found, [] { return kernels::StrandMatches{}; }, 2);
  std::vector<std::vector<MemMatch>> by_strand(set.size());
  std::vector<bool> seen(set.size(), false);
  for (const auto& f : found)
    for (std::size_t s = f.first; s < f.first + f.count(); ++s) {
      EXPECT_FALSE(seen[s]) << "strand " << s << " in two units";
      seen[s] = true;
      const auto m = f.of(s);
      by_strand[s].assign(m.begin(), m.end());
    }
  for (std::size_t s = 0; s < set.size(); ++s) EXPECT_TRUE(seen[s]) << "strand " << s << " in no unit";
  return by_strand;
}

TEST(StrandWork, LongStrandsInPiecesMatchAsWholeOnes) {
  std::mt19937 rng(28);
  const std::string reference = test::random_bases(rng, 300000);
  const index::SuffixIndex idx = index::SuffixIndex::build(test::reference_of({reference}), 2);
  std::vector<std::string> strands = {query_of_pieces(rng, reference, 700000), "acgt", test::random_bases(rng, 300),
                                      query_of_pieces(rng, reference, kernels::StrandWork::kLettersPerUnit + 1),
                                      query_of_pieces(rng, reference, 200000), query_of_pieces(rng, reference, 100000),
                                      ""};
  const BackToBack back_to_back(strands);
  const kernels::StrandSet set = back_to_back.view();
  for (MemKind kind : {MemKind::maxmatch, MemKind::mumreference, MemKind::mum}) {
    const MemFinder finder(idx, MemParams{kind, 20, false});
    for (const unsigned threads : {1u, 2u, 64u}) {  // units of about 150, 80 and 16 Ki letters
      for (const bool pieces : {true, false}) {
        kernels::StrandWork work(set, 0, set.size(), 3, pieces ? &finder : nullptr, threads);
        std::size_t piece_units = 0;
        for (std::size_t u = 0; u < work.size(); ++u) piece_units += work[u].piece();
        EXPECT_EQ(piece_units > 0, pieces);
        const auto by_strand = match_units(work, finder, set);
        for (std::size_t s = 0; s < strands.size(); ++s)
          ASSERT_EQ(by_strand[s], whole_strand(finder, strands[s]))
              << "kind " << static_cast<int>(kind) << " strand " << s << " threads " << threads;
      }
    }
    for (const unsigned threads : {1u, 3u}) {  // a range of the strands, as a GPU kernel leaves them to the CPU
      kernels::StrandMatches out;
      out.first = 2;
      kernels::find_on_cpu_in_parallel(finder, set, 2, 4, threads, out);
      ASSERT_EQ(out.count(), 4u);
      for (std::size_t s = 2; s < 6; ++s) {
        const auto found = out.of(s);
        ASSERT_EQ(std::vector<MemMatch>(found.begin(), found.end()), whole_strand(finder, strands[s]))
            << "kind " << static_cast<int>(kind) << " strand " << s << " threads " << threads;
      }
    }
  }
}

// Under -maxmatch a strand costs its seeds' occurrences, not its letters: a strand of a repeat
// the reference holds 60 times is cut into more pieces than strands of unique letters as long.
// The other kinds cut by letters alone.
TEST(StrandWork, MaxmatchCutsStrandsByTheirSeedsOccurrences) {
  std::mt19937 rng(1129);
  const std::string repeat = test::random_bases(rng, 2000);
  std::string reference = test::random_bases(rng, 200000);
  for (int copy = 0; copy < 60; ++copy) reference += repeat + test::random_bases(rng, 300);
  const index::SuffixIndex idx = index::SuffixIndex::build(test::reference_of({reference}), 2);
  std::vector<std::string> strands;
  for (int s = 0; s < 10; ++s) strands.push_back(reference.substr(rng() % 150000, 20000));
  constexpr std::size_t kHeavy = 4;
  strands[kHeavy].clear();
  for (int copy = 0; copy < 10; ++copy) strands[kHeavy] += repeat;
  const BackToBack back_to_back(strands);
  const kernels::StrandSet set = back_to_back.view();
  for (MemKind kind : {MemKind::maxmatch, MemKind::mumreference})
    for (const unsigned threads : {1u, 3u}) {  // units of 25,000 letters, and of 16 Ki
      const MemFinder finder(idx, MemParams{kind, 20, false});
      kernels::StrandWork work(set, 0, set.size(), 1, &finder, threads);
      std::vector<std::size_t> pieces(strands.size(), 0);
      for (std::size_t u = 0; u < work.size(); ++u)
        if (work[u].piece()) ++pieces[work[u].first_strand];
      std::size_t light = 0;  // the most pieces of a strand of unique letters
      for (std::size_t s = 0; s < strands.size(); ++s)
        if (s != kHeavy) light = std::max(light, pieces[s]);
      if (kind == MemKind::maxmatch) EXPECT_GE(pieces[kHeavy], 2 * light + 1) << "threads " << threads;
      else EXPECT_EQ(pieces[kHeavy], light) << "threads " << threads;
      const auto by_strand = match_units(work, finder, set);
      for (std::size_t s = 0; s < strands.size(); ++s)
        ASSERT_EQ(by_strand[s], whole_strand(finder, strands[s]))
            << "kind " << static_cast<int>(kind) << " strand " << s << " threads " << threads;
    }
}

}  // namespace
}  // namespace hyalign

// The map's seed search on the GPU against the CPU's (map/seeds.cpp, itself checked against brute
// force in test_map.cpp): the same hits in the same order for random reads of many lengths, with
// errors, N runs and both strands, on genomes with copies, near-copies and tandem runs, for several
// seed lengths (below, at and above the index's prefix length). Skips without a GPU.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/devices.hpp"
#include "index/suffix_index.hpp"
#include "kernels/cuda/seed_cuda.hpp"
#include "map/seeds.hpp"
#include "test_support.hpp"

using namespace hyalign;

namespace {

using test::random_bases;
using test::reverse_complement;

// Random sequence with copies of elements (exact, mutated, reverse-complemented), short tandem
// runs and a low-complexity stretch, in two sequences.
index::ReferenceText genome_with_repeats(std::mt19937& rng, std::size_t length) {
  std::vector<std::string> elements;
  for (std::size_t size : {40u, 300u, 1200u}) elements.push_back(random_bases(rng, size));
  std::string chr;
  while (chr.size() < length) {
    chr += random_bases(rng, 500 + rng() % 3000);
    std::string e = elements[rng() % elements.size()];
    if (rng() % 3 == 0) e[rng() % e.size()] = "acgt"[rng() % 4];
    if (rng() % 4 == 0) e = reverse_complement(e);
    chr += e;
    if (rng() % 5 == 0)
      for (int k = 0; k < 30; ++k) chr += "acgttg";
    if (rng() % 7 == 0) chr += std::string(80, 'a');
  }
  return test::reference_of({chr, random_bases(rng, 4000)});
}

// Reads from the genome (with errors, and N runs now and then) and random ones; a strand each.
std::vector<std::string> sample_reads(std::mt19937& rng, const std::string& text, std::size_t n) {
  std::vector<std::string> reads;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t length = rng() % 5 == 0 ? rng() % 40 : 50 + rng() % 250;
    std::string read = rng() % 10 == 0 || length + 1 >= text.size() ? random_bases(rng, length)
                                                                    : text.substr(rng() % (text.size() - length), length);
    for (char& c : read) {
      if (c == index::kSeparator) c = 'n';
      if (rng() % 100 < 2) c = "acgt"[rng() % 4];
    }
    if (rng() % 8 == 0 && !read.empty()) read.replace(rng() % read.size(), 1 + rng() % 3, "nn");
    reads.push_back(rng() % 2 ? reverse_complement(read) : read);
  }
  return reads;
}

// The CPU search's hits, repetitive flags and large families' letters for each read.
struct Found {
  std::vector<std::vector<map::SeedHit>> hits;
  std::vector<char> repetitive;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> family;
  explicit Found(std::size_t reads) : hits(reads), repetitive(reads, 0), family(reads) {}
};

Found cpu_seeds(const index::SuffixIndex& index, const map::MapParams& params, const std::vector<std::string>& reads) {
  Found found(reads.size());
  std::vector<std::vector<map::LetterSpan>> repetitive(reads.size()), family(reads.size());
  std::vector<map::SeedQuery> queries;
  for (std::size_t r = 0; r < reads.size(); ++r)
    queries.push_back({reads[r], false, &found.hits[r], &repetitive[r], &family[r]});
  map::SeedFinder(index, params).find(queries);
  for (std::size_t r = 0; r < reads.size(); ++r) {
    found.repetitive[r] = !repetitive[r].empty();
    for (const map::LetterSpan& f : family[r]) found.family[r].push_back({f.begin, f.end});
  }
  return found;
}

// The GPU's matches as the CPU search turns them into hits.
Found gpu_seeds(const index::SuffixIndex& index, const map::MapParams& params, kernels::cuda::SeedGpuSearcher& searcher,
                const std::vector<std::string>& reads) {
  std::vector<std::string_view> patterns(reads.begin(), reads.end());
  std::vector<kernels::SeedMatch> matches;
  std::vector<std::uint32_t> ends;
  searcher.find(patterns, matches, ends);
  Found found(reads.size());
  const auto sa = index.suffix_array();
  for (std::size_t r = 0; r < reads.size(); ++r) {
    for (std::uint32_t m = r == 0 ? 0 : ends[r - 1]; m < ends[r]; ++m) {
      const kernels::SeedMatch& match = matches[m];
      if (match.family) found.family[r].push_back({match.begin, match.family_end()});
      // More copies than -c: flagged, and -c of them taken at even steps through the rows.
      const std::uint32_t copies = match.hi - match.lo;
      std::uint32_t step = 1;
      if (copies > params.max_occurrences) {
        found.repetitive[r] = 1;
        step = copies / params.max_occurrences;
      }
      for (std::uint32_t row = match.lo, taken = 0; row < match.hi && taken < params.max_occurrences; row += step, ++taken)
        found.hits[r].push_back({sa[row] - match.back, match.begin, match.length, false});
    }
  }
  return found;
}

void expect_same(const Found& cpu, const Found& gpu, const std::vector<std::string>& reads, const std::string& what) {
  for (std::size_t r = 0; r < reads.size(); ++r) {
    ASSERT_EQ(cpu.hits[r].size(), gpu.hits[r].size()) << what << " read " << r << " " << reads[r];
    for (std::size_t h = 0; h < cpu.hits[r].size(); ++h) {
      const map::SeedHit &a = cpu.hits[r][h], &b = gpu.hits[r][h];
      ASSERT_TRUE(a.text_pos == b.text_pos && a.query_begin == b.query_begin && a.length == b.length)
          << what << " read " << r << " hit " << h << ": cpu " << a.text_pos << "/" << a.query_begin << "/" << a.length
          << ", gpu " << b.text_pos << "/" << b.query_begin << "/" << b.length;
    }
    ASSERT_EQ(cpu.repetitive[r], gpu.repetitive[r]) << what << " read " << r;
    ASSERT_EQ(cpu.family[r], gpu.family[r]) << what << " read " << r;
  }
}

}  // namespace

TEST(SeedGpu, FindsWhatTheCpuSearchFinds) {
  const auto gpus = engine::usable_gpus();
  if (gpus.empty()) GTEST_SKIP() << "SKIPPED: no usable GPU: " << engine::gpu_unavailable_reason();
  std::mt19937 rng(61);
  std::size_t family_matches = 0;
  for (std::size_t length : {3000u, 300000u}) {
    const index::SuffixIndex index = index::SuffixIndex::build(genome_with_repeats(rng, length), 2);
    const std::vector<std::string> reads = sample_reads(rng, index.reference().text, 3000);
    for (unsigned min_seed : {4u, 11u, 19u, 30u}) {
      for (double reseed_factor : {1.0, 1.5, 3.0}) {
        map::MapParams params;
        params.min_seed = min_seed;
        params.reseed_factor = reseed_factor;
        params.max_occurrences = min_seed < 10 ? 40 : 500;
        const kernels::SeedSearchParams gpu_params{
            min_seed, static_cast<std::uint32_t>(min_seed * reseed_factor + 0.5)};
        const auto kernel = kernels::cuda::make_seed_gpu_kernel(gpus.front().index, index, gpu_params);
        const auto searcher = kernel->make_searcher();
        const std::string what = "genome " + std::to_string(length) + ", prefix " +
                                 std::to_string(index.prefix_letters()) + ", -k " + std::to_string(min_seed) +
                                 ", -r " + std::to_string(reseed_factor);
        const Found cpu = cpu_seeds(index, params, reads);
        expect_same(cpu, gpu_seeds(index, params, *searcher, reads), reads, what);
        for (const auto& f : cpu.family) family_matches += f.size();
      }
    }
  }
  EXPECT_GT(family_matches, 0u) << "no read met a large family: the test checks none of their letters";
}

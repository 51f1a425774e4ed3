// The mapper's steps against plain definitions: seeds are exact matches with all their copies and
// the first is the longest, the fast traceback equals the scalar one, MAPQ and insert sizes behave,
// and whole runs place simulated reads, the same at any thread count.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/nucleotides.hpp"
#include "engine/devices.hpp"
#include "index/suffix_index.hpp"
#include "kernels/extend_kernel.hpp"
#include "kernels/seed_search.hpp"
#include "map/chains.hpp"
#include "map/end_mapping.hpp"
#include "map/gpu_trial.hpp"
#include "map/map.hpp"
#include "map/mapq.hpp"
#include "map/pairing.hpp"
#include "map/read_input.hpp"
#include "map/seeds.hpp"
#include "test_support.hpp"

namespace hyalign::map {
namespace {

using test::random_bases;
using test::reverse_complement;

// A genome with repeats: random sequence, copies of a 600-letter element (some mutated, one
// reverse-complemented), and a tandem run.
index::ReferenceText repeat_genome(std::mt19937& rng) {
  const std::string element = random_bases(rng, 600);
  std::string chr = random_bases(rng, 20000);
  for (int copy = 0; copy < 4; ++copy) {
    std::string e = copy == 3 ? reverse_complement(element) : element;
    if (copy == 2) e[300] = e[300] == 'a' ? 'c' : 'a';
    chr += e + random_bases(rng, 3000);
  }
  for (int k = 0; k < 40; ++k) chr += "acgttg";
  chr += random_bases(rng, 5000);
  return test::reference_of({chr, random_bases(rng, 3000)});
}

std::size_t count_occurrences(const std::string& text, const std::string& s) {
  std::size_t n = 0;
  for (std::size_t at = text.find(s); at != std::string::npos; at = text.find(s, at + 1)) ++n;
  return n;
}

// The longest prefix of `pattern` that occurs in `text`, by brute force.
std::size_t longest_occurring_prefix(const std::string& text, const std::string& pattern) {
  std::size_t length = 0;
  while (length < pattern.size() && text.find(pattern.substr(0, length + 1)) != std::string::npos) ++length;
  return length;
}

// A traced placement of 100 letters at text [begin, begin + 100).
Placement placement_at(bool reverse, std::int64_t begin, int score) {
  Placement p;
  p.reverse = reverse;
  p.score = score;
  p.text_begin = begin;
  p.text_end = begin + 100;
  p.traced = true;
  return p;
}

EndLetters letters_of(const std::string& read) {
  EndLetters letters;
  letters.assign(read);
  return letters;
}

class MapSteps : public ::testing::Test {
 protected:
  std::mt19937 rng{7};
  index::SuffixIndex index = index::SuffixIndex::build(repeat_genome(rng), 2);
  MapParams params;

  std::string sample_read(std::size_t length, double error_rate, bool* reverse = nullptr) {
    const std::string& text = index.reference().text;
    const std::size_t chr_length = index.reference().lengths[0];
    std::string read = text.substr(rng() % (chr_length - length), length);
    for (char& c : read)
      if (std::uniform_real_distribution<>(0, 1)(rng) < error_rate) c = "acgt"[rng() % 4];
    const bool rc = rng() % 2;
    if (reverse) *reverse = rc;
    return rc ? reverse_complement(read) : read;
  }

  // The forward seeds of a random read of `length` letters in a genome that holds its own copy
  // (at 3000, differing at `errors`) and decoys elsewhere: for each {begin, letters}, the read's
  // letters [begin, begin + letters) and then a letter that differs.
  std::vector<SeedHit> seeds_beside_decoys(std::size_t length, std::initializer_list<int> errors,
                                           std::initializer_list<std::pair<std::size_t, std::size_t>> decoys) {
    const std::string read = random_bases(rng, length);
    auto other = [](char c) { return c == 'a' ? 'c' : 'a'; };
    std::string own = read;
    for (int at : errors) own[at] = other(own[at]);
    std::string chr = random_bases(rng, 3000) + own + random_bases(rng, 3000);
    for (const auto& [begin, letters] : decoys)
      chr += read.substr(begin, letters) + other(read[begin + letters]) + random_bases(rng, 3000);
    const index::SuffixIndex genome = index::SuffixIndex::build(test::reference_of({chr}), 2);
    std::vector<SeedHit> hits;
    const SeedQuery query{read, false, &hits};
    SeedFinder(genome, params).find({&query, 1});
    return hits;
  }
};

TEST_F(MapSteps, SeedsAreExactMatchesWithEveryCopy) {
  const SeedFinder finder(index, params);
  const std::string& text = index.reference().text;
  for (int trial = 0; trial < 200; ++trial) {
    const std::string read = sample_read(40 + rng() % 200, 0.03);
    std::vector<SeedHit> hits;
    const SeedQuery query{read, false, &hits};
    finder.find({&query, 1});
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::set<std::uint32_t>> copies;  // (begin, length): places
    for (const SeedHit& h : hits) {
      ASSERT_GE(h.length, params.min_seed);
      const std::string seed = read.substr(h.query_begin, h.length);
      ASSERT_EQ(text.compare(h.text_pos, h.length, seed), 0) << "seed is not an exact match";
      copies[{h.query_begin, h.length}].insert(h.text_pos);
    }
    for (const auto& [seed, places] : copies)
      EXPECT_EQ(places.size(), count_occurrences(text, read.substr(seed.first, seed.second))) << "a copy is missing";
    // The scan starts with the longest match of the read's first letters.
    const std::size_t first = longest_occurring_prefix(text, read);
    const bool found_first = copies.count({0u, static_cast<std::uint32_t>(first)}) > 0;
    EXPECT_EQ(found_first, first >= params.min_seed) << read;
  }
}

// BWA-MEM's third round by brute force: from the read's start on, the shortest match of more than
// k letters with fewer than 20 copies (on one strand), then on from the letter after it. Every
// copy of each such match must be a seed, and the letters of its prefix one letter shorter, when
// that has 20 copies or more, noted as a large family's. The genome is a family of 45 copies of an element, each
// with a few mutations of its own, so that short matches have 20 copies or more and longer ones
// fewer; reads come from the copies with errors, on either strand.
TEST_F(MapSteps, ThirdRoundSeedsEveryCopyOfTheShortestRareMatch) {
  const std::string element = random_bases(rng, 150);
  std::string chr = random_bases(rng, 300);
  for (int copy = 0; copy < 45; ++copy) {
    std::string e = element;
    for (int k = 0; k < 3; ++k) e[rng() % e.size()] = "acgt"[rng() % 4];
    chr += e + random_bases(rng, 200);
  }
  const index::SuffixIndex family = index::SuffixIndex::build(test::reference_of({chr}), 2);
  const std::string& text = family.reference().text;
  const SeedFinder finder(family, params);
  std::size_t rare_seeds = 0, repeated_prefixes = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::string read = text.substr(rng() % (chr.size() - 100), 100);
    for (char& c : read)
      if (rng() % 100 == 0) c = "acgt"[rng() % 4];
    if (trial % 2) read = reverse_complement(read);
    std::vector<SeedHit> hits;
    std::vector<LetterSpan> family_spans;
    const SeedQuery query{read, false, &hits, nullptr, &family_spans};
    finder.find({&query, 1});
    std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> found;
    for (const SeedHit& h : hits) found.insert({h.text_pos, h.query_begin, h.length});
    std::set<std::pair<std::uint32_t, std::uint32_t>> family_letters, want_family_letters;
    for (const LetterSpan& f : family_spans) family_letters.insert({f.begin, f.end});
    for (std::size_t x = 0; x + params.min_seed + 1 <= read.size();) {
      std::size_t length = params.min_seed + 1;
      while (x + length <= read.size() && count_occurrences(text, read.substr(x, length)) >= 20) ++length;
      if (x + length > read.size()) break;
      repeated_prefixes += length > params.min_seed + 1;
      // A prefix of more than k letters with 20 copies or more: letters of a large family.
      if (length > params.min_seed + 1)
        want_family_letters.insert({static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(x + length - 1)});
      const std::string match = read.substr(x, length);
      for (std::size_t at = text.find(match); at != std::string::npos; at = text.find(match, at + 1), ++rare_seeds)
        EXPECT_TRUE(found.count({static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(x),
                                 static_cast<std::uint32_t>(length)}))
            << "read " << read << ": no seed of " << match << " at " << at;
      x += length;
    }
    EXPECT_EQ(family_letters, want_family_letters) << "read " << read;
  }
  EXPECT_GT(rare_seeds, 500u);
  EXPECT_GT(repeated_prefixes, 50u) << "too few prefixes with 20 copies: the test checks little";
}

// A read from a family of three copies: near copy A differs from it at letter 95 only, B at 5 and
// 97, the read's own copy at 10 and 90 (its sequencing errors). The longest matches (the scan's,
// the searches inside them for one copy more, the search across their ends) all prefer A and B;
// the third round's match of letters 20-39, which all three copies hold, seeds the own copy.
TEST_F(MapSteps, ThirdRoundSeedsTheCopyLongerMatchesPassOver) {
  const std::string read = random_bases(rng, 100);
  auto changed = [&](std::initializer_list<int> at) {
    std::string copy = read;
    for (int k : at) copy[k] = copy[k] == 'a' ? 'c' : 'a';
    return copy;
  };
  const std::string chr = random_bases(rng, 2000) + changed({95}) + random_bases(rng, 2000) + changed({5, 97}) +
                          random_bases(rng, 2000) + changed({10, 90}) + random_bases(rng, 2000);
  const index::SuffixIndex family = index::SuffixIndex::build(test::reference_of({chr}), 2);
  const std::int64_t own_diagonal = 3 * 2000 + 2 * 100;
  std::vector<SeedHit> hits;
  const SeedQuery query{read, false, &hits};
  SeedFinder(family, params).find({&query, 1});
  EXPECT_TRUE(std::any_of(hits.begin(), hits.end(), [&](const SeedHit& h) { return h.diagonal() == own_diagonal; }))
      << "the read's own copy has no seed";
}

TEST_F(MapSteps, LockstepSeedingEqualsOneQueryAtATime) {
  const SeedFinder finder(index, params);
  std::vector<std::string> reads;
  for (int k = 0; k < 64; ++k) reads.push_back(sample_read(150, 0.02));
  std::vector<std::vector<SeedHit>> together(reads.size()), alone(reads.size());
  std::vector<SeedQuery> queries;
  for (std::size_t k = 0; k < reads.size(); ++k) queries.push_back({reads[k], false, &together[k]});
  finder.find(queries);
  auto key = [](const SeedHit& h) { return std::tuple(h.text_pos, h.query_begin, h.length); };
  for (std::size_t k = 0; k < reads.size(); ++k) {
    finder.find({&queries[k], 1});  // appends to together[k] again: compare halves
    ASSERT_EQ(together[k].size() % 2, 0u);
    const std::size_t half = together[k].size() / 2;
    std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> a, b;
    for (std::size_t i = 0; i < half; ++i) a.push_back(key(together[k][i]));
    for (std::size_t i = half; i < 2 * half; ++i) b.push_back(key(together[k][i]));
    EXPECT_EQ(a, b);
  }
}

// What a GPU search returns for `reads`: each match of the CPU search with its suffix-array rows,
// found by scanning the suffix array (every copy kept: the finder lets no seed drop), then its
// large families' letters.
std::vector<std::vector<kernels::SeedMatch>> matches_of(const index::SuffixIndex& index, MapParams params,
                                                        const std::vector<std::string>& reads) {
  params.max_occurrences = 1u << 30;
  const SeedFinder finder(index, params);
  const std::string& text = index.reference().text;
  const auto sa = index.suffix_array();
  std::vector<std::vector<kernels::SeedMatch>> out(reads.size());
  for (std::size_t k = 0; k < reads.size(); ++k) {
    std::vector<SeedHit> hits;
    std::vector<LetterSpan> family;
    const SeedQuery query{reads[k], false, &hits, nullptr, &family};
    finder.find({&query, 1});
    for (std::size_t h = 0; h < hits.size();) {
      const std::string seed = reads[k].substr(hits[h].query_begin, hits[h].length);
      kernels::SeedMatch m{hits[h].query_begin, hits[h].length, 0, 0};
      std::uint32_t r = 0;
      while (text.compare(sa[r], seed.size(), seed) != 0) ++r;
      m.lo = r;
      while (r < sa.size() && text.compare(sa[r], seed.size(), seed) == 0) ++r;
      m.hi = r;
      out[k].push_back(m);
      h += m.hi - m.lo;
    }
    for (const LetterSpan& f : family) out[k].push_back({f.begin, f.end - f.begin + 1, 0, 0, 0, true});  // the match
  }
  return out;
}

struct SeededReads {
  std::vector<std::vector<SeedHit>> hits;
  std::vector<char> repetitive;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> family;
};

SeededReads seed_with(StrandSeeder& seeder, const std::vector<std::string>& reads, bool reverse) {
  SeededReads out{std::vector<std::vector<SeedHit>>(reads.size()), std::vector<char>(reads.size(), 0),
                  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>>(reads.size())};
  std::vector<std::vector<LetterSpan>> repetitive(reads.size()), family(reads.size());
  std::vector<SeedQuery> queries;
  for (std::size_t k = 0; k < reads.size(); ++k)
    queries.push_back({reads[k], reverse, &out.hits[k], &repetitive[k], &family[k]});
  seeder.find(queries);
  for (std::size_t k = 0; k < reads.size(); ++k) {
    out.repetitive[k] = !repetitive[k].empty();
    for (const LetterSpan& f : family[k]) out.family[k].push_back({f.begin, f.end});
  }
  return out;
}

void expect_same_seeds(const SeededReads& a, const SeededReads& b) {
  auto key = [](const SeedHit& h) { return std::tuple(h.text_pos, h.query_begin, h.length, h.reverse); };
  ASSERT_EQ(a.hits.size(), b.hits.size());
  for (std::size_t k = 0; k < a.hits.size(); ++k) {
    ASSERT_EQ(a.hits[k].size(), b.hits[k].size()) << "read " << k;
    for (std::size_t h = 0; h < a.hits[k].size(); ++h) EXPECT_EQ(key(a.hits[k][h]), key(b.hits[k][h])) << "read " << k;
  }
  EXPECT_EQ(a.repetitive, b.repetitive);
  EXPECT_EQ(a.family, b.family);
}

// A match with more copies than -c seeds -c of them (BWA-MEM's sampling), and its letters are
// flagged repetitive: a read wholly inside a repeat of many copies still has places to go.
TEST_F(MapSteps, AMatchWithMoreCopiesThanCSeedsThatManyAndIsFlagged) {
  const std::string element = random_bases(rng, 200);
  std::string chr;
  for (int copy = 0; copy < 12; ++copy) chr += random_bases(rng, 300) + element;
  chr += random_bases(rng, 300);
  const index::SuffixIndex genome = index::SuffixIndex::build(test::reference_of({chr}), 2);
  const std::string read = element.substr(20, 150);
  for (const unsigned most : {5u, 12u}) {
    params.max_occurrences = most;
    std::vector<SeedHit> hits;
    std::vector<LetterSpan> repetitive;
    const SeedQuery query{read, false, &hits, &repetitive};
    SeedFinder(genome, params).find({&query, 1});
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::set<std::uint32_t>> copies_of_seed;
    for (const SeedHit& h : hits) copies_of_seed[{h.query_begin, h.length}].insert(h.text_pos);
    ASSERT_FALSE(copies_of_seed.empty()) << "-c " << most;
    for (const auto& [seed, copies] : copies_of_seed) {
      EXPECT_EQ(copies.size(), std::min(most, 12u)) << "-c " << most << ", seed at " << seed.first;
      for (const std::uint32_t at : copies) EXPECT_EQ(chr.compare(at, seed.second, read, seed.first, seed.second), 0);
    }
    EXPECT_EQ(repetitive.empty(), most >= 12) << "-c " << most;
  }
}

// The host side of GPU seeding: a search's matches become the CPU search's hits, in its order,
// with seeds of more than -c copies sampled and flagged.
TEST_F(MapSteps, GpuSeederTurnsMatchesIntoTheCpuSearchsHits) {
  std::vector<std::string> reads;
  for (int k = 0; k < 80; ++k) reads.push_back(sample_read(60 + rng() % 200, 0.02));
  reads.push_back(std::string(10, 'a') + std::string(60, 'N') + reads[0].substr(0, 40));  // N runs
  params.min_seed = 12;
  params.max_occurrences = 3;  // the repeat's element has 4 copies
  const auto matches = matches_of(index, params, reads);
  int calls = 0;
  GpuSeedSearch fake = [&](std::span<const std::string_view> patterns, std::vector<kernels::SeedMatch>& out,
                           std::vector<std::uint32_t>& ends) {
    ++calls;
    out.clear();
    ends.clear();
    for (std::size_t k = 0; k < patterns.size(); ++k) {
      EXPECT_EQ(patterns[k], reads[k]);
      out.insert(out.end(), matches[k].begin(), matches[k].end());
      ends.push_back(static_cast<std::uint32_t>(out.size()));
    }
  };
  const SeedFinder finder(index, params);
  const auto gpu = make_gpu_seeder(fake, finder, index, params, nullptr);
  const auto cpu = make_cpu_seeder(finder);
  for (bool reverse : {false, true}) expect_same_seeds(seed_with(*gpu, reads, reverse), seed_with(*cpu, reads, reverse));
  EXPECT_EQ(calls, 2);
  const SeededReads seeded = seed_with(*cpu, reads, false);
  EXPECT_TRUE(std::any_of(seeded.repetitive.begin(), seeded.repetitive.end(), [](char r) { return r != 0; }))
      << "no read met the repeat: the test checks no flag";
}

// A failing GPU search: that call's strands and every later call are seeded on the CPU.
TEST_F(MapSteps, GpuSeederFallsBackToTheCpuSearch) {
  std::vector<std::string> reads;
  for (int k = 0; k < 40; ++k) reads.push_back(sample_read(150, 0.02));
  int calls = 0, failures = 0;
  GpuSeedSearch failing = [&](std::span<const std::string_view>, std::vector<kernels::SeedMatch>& out,
                              std::vector<std::uint32_t>&) {
    ++calls;
    out.push_back({});  // half-written output must not reach the hits
    throw std::runtime_error("device lost");
  };
  const SeedFinder finder(index, params);
  const auto gpu = make_gpu_seeder(failing, finder, index, params, [&](const std::string& why) {
    EXPECT_EQ(why, "device lost");
    ++failures;
  });
  const auto cpu = make_cpu_seeder(finder);
  for (int round = 0; round < 2; ++round) expect_same_seeds(seed_with(*gpu, reads, false), seed_with(*cpu, reads, false));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(failures, 1);
}

// Chains are made from the hits whatever order a device's search found them in.
TEST_F(MapSteps, ChainsDoNotDependOnTheOrderOfHits) {
  const SeedFinder finder(index, params);
  for (int trial = 0; trial < 100; ++trial) {
    const std::string read = sample_read(150, 0.03);
    std::vector<SeedHit> hits;
    const std::string rc = reverse_complement(read);
    const SeedQuery queries[2] = {{read, false, &hits}, {rc, true, &hits}};
    finder.find(queries);
    std::vector<SeedHit> shuffled = hits;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    const EndLetters letters = letters_of(read);
    const std::string_view strands[2] = {letters.pattern[0], letters.pattern[1]};
    const auto a = chain_seeds(hits, index.reference(), strands, params);
    const auto b = chain_seeds(shuffled, index.reference(), strands, params);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k)
      EXPECT_TRUE(a[k].reverse == b[k].reverse && a[k].diagonal_min == b[k].diagonal_min &&
                  a[k].diagonal_max == b[k].diagonal_max && a[k].weight == b[k].weight &&
                  a[k].query_begin == b[k].query_begin && a[k].query_end == b[k].query_end);
  }
}

// Hits on other diagonals join a chain unless they claim more of its read letters than the
// diagonals differ by (a tandem repeat's shifted copy, not an indel), whichever hit they clash with:
// a long one that starts far before them too.
TEST_F(MapSteps, ChainsJoinHitsThatClaimNoMoreLettersThanAnIndel) {
  auto hit = [](std::uint32_t diagonal, std::uint32_t begin, std::uint32_t length) {
    return SeedHit{diagonal + begin, begin, length, false};
  };
  const EndLetters letters = letters_of(index.reference().text.substr(1000, 400));
  const std::string_view strands[2] = {letters.pattern[0], letters.pattern[1]};
  auto spans = [&](std::vector<SeedHit> hits) {
    std::set<std::pair<std::int64_t, std::int64_t>> out;  // (diagonal_min, diagonal_max) of each chain
    for (const Chain& c : chain_seeds(hits, index.reference(), strands, params)) out.insert({c.diagonal_min, c.diagonal_max});
    return out;
  };
  using Spans = std::set<std::pair<std::int64_t, std::int64_t>>;
  EXPECT_EQ(spans({hit(1000, 0, 50), hit(1003, 40, 60)}), (Spans{{1000, 1000}, {1003, 1003}}));  // 10 letters > 3
  EXPECT_EQ(spans({hit(1000, 0, 50), hit(1003, 47, 53)}), (Spans{{1000, 1003}}));  // 3 letters: an indel's
  // The clash is with the 200-letter hit at the read's start, not with the short one nearer.
  EXPECT_EQ(spans({hit(2000, 0, 200), hit(2000, 300, 20), hit(2005, 150, 30)}), (Spans{{2000, 2000}, {2005, 2005}}));
  EXPECT_EQ(spans({hit(2000, 0, 200), hit(2000, 300, 20), hit(2005, 197, 30)}), (Spans{{2000, 2005}}));
}

// BWA-MEM's chain filter: a chain over the best one's letters is dropped when lighter than half
// of it by two seeds' letters or more, but of those dropped, the one whose diagonal matches the
// read best is kept (the read's second place, for XS and the MAPQ), lighter or not.
TEST_F(MapSteps, LightChainsAreDroppedButTheBestOfThem) {
  auto hit = [](std::uint32_t diagonal, std::uint32_t begin, std::uint32_t length) {
    return SeedHit{diagonal + begin, begin, length, false};
  };
  const std::string& text = index.reference().text;
  auto diagonals_kept = [&](std::vector<SeedHit> hits, std::size_t read_from) {
    const EndLetters letters = letters_of(text.substr(read_from, 100));
    const std::string_view strands[2] = {letters.pattern[0], letters.pattern[1]};
    std::set<std::int64_t> kept;
    for (const Chain& c : chain_seeds(hits, index.reference(), strands, params)) kept.insert(c.diagonal_min);
    return kept;
  };
  // weights 100 (the best), 40 and 35 (light by 60 and 65 letters), 60 (not light); the read is
  // the text along diagonal 5000, then along 9000
  const std::vector<SeedHit> hits{hit(1000, 0, 100), hit(5000, 50, 40), hit(9000, 50, 35), hit(13000, 20, 60)};
  EXPECT_EQ(diagonals_kept(hits, 5000), (std::set<std::int64_t>{1000, 5000, 13000}));
  EXPECT_EQ(diagonals_kept(hits, 9000), (std::set<std::int64_t>{1000, 9000, 13000}));
  // lighter than half by fewer than 2 * k = 38 letters: kept
  const std::vector<SeedHit> close{hit(1000, 0, 60), hit(5000, 10, 29), hit(9000, 10, 28)};
  EXPECT_EQ(diagonals_kept(close, 1000), (std::set<std::int64_t>{1000, 5000, 9000}));
}

TEST_F(MapSteps, ReseedingFindsTheMutatedCopy) {
  // A read from the element's mutated copy matches the exact copies in one long seed with the
  // mutation; reseeding must still reach every copy.
  const std::string& text = index.reference().text;
  const std::size_t second_copy = 20000 + 600 + 3000;
  const std::string read = text.substr(second_copy + 250, 100);
  const SeedFinder finder(index, params);
  std::vector<SeedHit> hits;
  const SeedQuery query{read, false, &hits};
  finder.find({&query, 1});
  std::set<std::int64_t> diagonals;
  for (const SeedHit& h : hits) diagonals.insert(h.diagonal());
  EXPECT_GE(diagonals.size(), 3u);  // the forward copies, mutated one included
}

// A read whose scan starts in a near-copy: the near-copy matches the read's first 95 letters, the
// read's own copy every letter but its 21st. The scan's seed ends where the near-copy differs; the
// search across that letter must find the own copy there, which the scan passes over (and the
// searches inside the seed, for letters both copies share, cannot reach).
TEST_F(MapSteps, SeedAcrossAMismatchFindsTheCopyThatAgreesThere) {
  const std::string read = random_bases(rng, 100);
  std::string near = read, own = read;
  near[95] = near[95] == 'a' ? 'c' : 'a';
  own[20] = own[20] == 'a' ? 'c' : 'a';
  const std::string chr = random_bases(rng, 3000) + near + random_bases(rng, 3000) + own + random_bases(rng, 3000);
  const index::SuffixIndex two_copies = index::SuffixIndex::build(test::reference_of({chr}), 2);
  const std::int64_t own_diagonal = 3000 + 100 + 3000;
  std::vector<SeedHit> hits;
  const SeedQuery query{read, false, &hits};
  SeedFinder(two_copies, params).find({&query, 1});
  const bool across = std::any_of(hits.begin(), hits.end(), [&](const SeedHit& h) {
    return h.diagonal() == own_diagonal && h.query_begin <= 95 && h.query_begin + h.length > 95;
  });
  EXPECT_TRUE(across) << "no seed of the own copy covers the letter where the near-copy's seed ends";
}

// A read with three errors close together (letters 16, 25 and 48 of its own copy differ) and a
// chance match elsewhere of its letters 17-29, longer than the own copy's 8 there. The scan's jump
// past that match starts inside the own copy's 22 letters 26-47, too few of them left to seed; the
// search reaching back from their end must find them, as a read's seeds would without the decoy.
TEST_F(MapSteps, SeedThatAChanceMatchJumpedIntoIsFound) {
  const std::vector<SeedHit> hits = seeds_beside_decoys(100, {16, 25, 48}, {{17, 13}});
  const bool found = std::any_of(hits.begin(), hits.end(), [](const SeedHit& h) {
    return h.diagonal() == 3000 && h.query_begin >= 26 && h.query_begin + h.length <= 48;
  });
  EXPECT_TRUE(found) << "no seed of the own copy's letters 26-47";
}

// A 50-letter read whose own copy differs at letters 16 and 20, and a chance match elsewhere of
// its letters 17-32, longer from letter 17 than the own copy's 3. The scan's jump past that match
// leaves 16 letters, too few to seed, of the own copy's 29 letters 21-49 at the read's end; the
// search of the read's last min_seed letters must find them.
TEST_F(MapSteps, SeedAtTheReadsEndThatAChanceMatchJumpedOverIsFound) {
  const std::vector<SeedHit> hits = seeds_beside_decoys(50, {16, 20}, {{17, 16}});
  const bool found = std::any_of(hits.begin(), hits.end(), [](const SeedHit& h) {
    return h.diagonal() == 3000 && h.query_begin >= 21 && h.query_begin + h.length == 50;
  });
  EXPECT_TRUE(found) << "no seed of the own copy's letters 21-49";
}

// A 50-letter read whose own copy differs at letters 13, 15 and 38, and chance matches elsewhere of
// its letters 14-25 and 27-39. The scan jumps from letter 14 past the first to letter 27, inside
// the own copy's 22 letters 16-37, and from there the chance match (13 letters) is longer than the
// own copy's 11. The own copy, the row sharing the next most letters, must be extended back to a
// seed of letters 16-37.
TEST_F(MapSteps, SeedOfTheCopyThatSharesLessThanAChanceMatchIsFound) {
  const std::vector<SeedHit> hits = seeds_beside_decoys(50, {13, 15, 38}, {{14, 12}, {27, 13}});
  const bool found = std::any_of(hits.begin(), hits.end(), [](const SeedHit& h) {
    return h.diagonal() == 3000 && h.query_begin == 16 && h.query_begin + h.length == 38;
  });
  EXPECT_TRUE(found) << "no seed of the own copy's letters 16-37";
}

// The rows a scan match is extended back along, chosen from the rows read around where the pattern
// sorts (kScanRowsAround on each side), are those a reading of the whole interval gives: the
// longest match's one or two copies, and with one, the copy that alone shares the next most.
TEST(SeedSearch, BackCopiesFromTheRowsAroundEqualThoseOfTheWholeInterval) {
  std::mt19937 rng{5};
  const std::uint32_t min_seed = 19;
  for (int round = 0; round < 20000; ++round) {
    // Letters shared fall away from where the pattern sorts (between rows at - 1 and at).
    const std::uint32_t n = 1 + rng() % 30, at = rng() % (n + 1);
    std::vector<std::uint32_t> shared(n);
    for (std::uint32_t r = at, v = rng() % 24; r < n; ++r) shared[r] = v = v - std::min<std::uint32_t>(v, rng() % 3);
    for (std::uint32_t r = at, v = rng() % 24; r-- > 0;) shared[r] = v = v - std::min<std::uint32_t>(v, rng() % 3);
    kernels::BackCopies want;
    const std::uint32_t top = *std::max_element(shared.begin(), shared.end());
    auto rows_with = [&](std::uint32_t v) { return static_cast<std::uint32_t>(std::count(shared.begin(), shared.end(), v)); };
    if (top > 0 && top < min_seed && rows_with(top) <= 2) {
      for (std::uint32_t r = 0; r < n; ++r)
        if (shared[r] == top) want.row[want.count] = r, want.length[want.count++] = top;
      std::uint32_t next = 0;
      for (std::uint32_t v : shared) next = v < top ? std::max(next, v) : next;
      if (want.count == 1 && next > 0 && rows_with(next) == 1) {
        want.row[1] = static_cast<std::uint32_t>(std::find(shared.begin(), shared.end(), next) - shared.begin());
        want.length[1] = next;
        want.count = 2;
      }
    }
    auto same = [&](const kernels::BackCopies& got) {
      if (got.count != want.count) return false;
      for (std::uint32_t k = 0; k < got.count; ++k)
        if (got.row[k] != want.row[k] && !(got.count == 2 && got.row[k] == want.row[1 - k])) return false;
      return true;
    };
    const std::uint32_t lo = at - std::min(at, kernels::kScanRowsAround), hi = std::min(n, at + kernels::kScanRowsAround);
    ASSERT_TRUE(same(kernels::back_copies(shared.data(), n, 0, false, false, min_seed))) << "round " << round;
    ASSERT_TRUE(same(kernels::back_copies(shared.data() + lo, hi - lo, lo, lo > 0, hi < n, min_seed))) << "round " << round;
  }
}

// A mate placed among copies (here a worse one near the anchor and one elsewhere) is searched for
// near the anchor's best place even so: its seeds may have missed a better copy there. The copy
// the search finds is the pair's, with MAPQ 0 (the window may hold more copies as good). A mate
// placed once near the anchor is not searched for again.
TEST_F(MapSteps, RescueSearchesNearTheAnchorWhenTheMateIsARepeat) {
  const auto kernel = kernels::make_extend_cpu_kernel(engine::KernelChoice::scalar, params.scoring);
  const auto scorer = kernel->make_scorer();
  LocusAligner aligner(index, params.scoring, *scorer);
  const std::int64_t a = 5000;  // in the genome's unique start
  EndResult anchor;
  anchor.placements = {placement_at(false, a, 110)};
  anchor.primary = 0;
  anchor.mapq = 60;
  EndLetters mate_letters;
  mate_letters.assign(reverse_complement(index.reference().text.substr(a + 200, 100)));
  EndResult mate;
  mate.placements = {placement_at(true, a + 150, 100), placement_at(true, 12000, 100)};
  mate.primary = 0;
  const PairSizes sizes = given_fr_sizes(300, 30);
  std::vector<RescueTask> tasks;
  queue_rescues(anchor, true, 100, mate_letters, mate, sizes, index.reference(), params, aligner, tasks);
  ASSERT_EQ(tasks.size(), 1u);
  aligner.score_all();
  add_rescued(tasks, aligner, 100, 1, params, mate);
  ASSERT_TRUE(choose_pair(anchor, mate, 100, 100, sizes, params, 0));
  EXPECT_TRUE(mate.best().rescued);
  EXPECT_EQ(mate.best().text_end, a + 300);
  EXPECT_EQ(mate.mapq, 0);

  EndResult placed_once;
  placed_once.placements = {placement_at(true, a + 150, 100)};
  placed_once.primary = 0;
  tasks.clear();
  queue_rescues(anchor, true, 100, mate_letters, placed_once, sizes, index.reference(), params, aligner, tasks);
  EXPECT_TRUE(tasks.empty());
}

// An untraced placement's begins are estimated from its chain's first seed; a chain whose seeds
// start late on the read must not leave a span shorter than the letters the score counts (an
// empty span overlapped nothing, and a whole-read alternative was written as a supplementary).
TEST_F(MapSteps, EstimatedBeginsHoldTheLettersTheScoreCounts) {
  const auto kernel = kernels::make_extend_cpu_kernel(engine::KernelChoice::scalar, params.scoring);
  const auto scorer = kernel->make_scorer();
  LocusAligner aligner(index, params.scoring, *scorer);
  EndLetters letters;
  letters.assign(index.reference().text.substr(5000, 100));  // in the genome's unique start
  const std::size_t id = aligner.add(letters.codes[0], {4990, 21, 0});
  aligner.score_all();
  const Placement p = aligner.placement(id, false, 81);
  EXPECT_EQ(p.query_end, 100);
  EXPECT_EQ(p.query_begin, 0);
  EXPECT_EQ(p.text_begin, 5000);
}

// A read with a 30-letter deletion or a 25-letter insertion, seeded on one side: the chain's band
// (16 letters beyond its diagonal) cannot hold the gap, the second try's, twice as wide, can. A
// read that the first band already aligns whole keeps its task.
TEST_F(MapSteps, WiderBandAlignsThroughALongGap) {
  const auto kernel = kernels::make_extend_cpu_kernel(engine::KernelChoice::scalar, params.scoring);
  const auto scorer = kernel->make_scorer();
  LocusAligner aligner(index, params.scoring, *scorer);
  const std::string& text = index.reference().text;
  const EndLetters deletion = letters_of(text.substr(5000, 70) + text.substr(5100, 80));
  const EndLetters insertion = letters_of(text.substr(7000, 69) + random_bases(rng, 25) + text.substr(7069, 56));
  const EndLetters whole = letters_of(text.substr(9000, 150));
  const std::uint32_t margin = params.band_margin;
  const Window bands[] = {{5000 - margin, 2 * margin + 1, 0}, {7000 - margin, 2 * margin + 1, 0},
                          {9000 - margin, 2 * margin + 1, 0}};
  const std::size_t ids[] = {aligner.add(deletion.codes[0], bands[0]), aligner.add(insertion.codes[0], bands[1]),
                             aligner.add(whole.codes[0], bands[2])};
  aligner.score_all();
  EXPECT_LT(aligner.placement(ids[0], false, 0).query_end, 100);
  aligner.score_wider(margin);
  const auto traced = [&](std::size_t id, const EndLetters& letters) {
    Placement p = aligner.placement(id, false, 0);
    trace_placement(index, params, letters.codes[0], p);
    return p;
  };
  using kernels::CigarOp;
  const Placement d = traced(ids[0], deletion), i = traced(ids[1], insertion), w = traced(ids[2], whole);
  EXPECT_EQ(d.cigar, (std::vector<kernels::CigarRun>{{CigarOp::match, 70}, {CigarOp::deletion, 30}, {CigarOp::match, 80}}));
  EXPECT_EQ(d.text_begin, 5000);
  EXPECT_EQ(i.cigar.size(), 3u);
  EXPECT_EQ(i.text_begin, 7000);
  EXPECT_EQ(i.query_end, 150);
  EXPECT_EQ(w.window.band_width, bands[2].band_width);
  EXPECT_EQ(w.cigar, (std::vector<kernels::CigarRun>{{CigarOp::match, 150}}));
}

TEST_F(MapSteps, UngappedTracebackEqualsScalar) {
  const auto kernel = kernels::make_extend_cpu_kernel(engine::KernelChoice::scalar, params.scoring);
  const auto scorer = kernel->make_scorer();
  LocusAligner aligner(index, params.scoring, *scorer);
  std::vector<EndLetters> letters(300);
  std::vector<Window> windows;
  for (EndLetters& l : letters) {
    l.assign(sample_read(100 + rng() % 60, rng() % 3 == 0 ? 0.0 : 0.02));
    const std::int64_t start = static_cast<std::int64_t>(rng() % (index.reference().lengths[0] - 300));
    windows.push_back({start, 1 + static_cast<std::uint32_t>(rng() % 40), 0});
  }
  std::vector<std::size_t> ids;
  for (std::size_t k = 0; k < letters.size(); ++k) ids.push_back(aligner.add(letters[k].codes[0], windows[k]));
  aligner.score_all();
  for (std::size_t k = 0; k < letters.size(); ++k) {
    Placement p = aligner.placement(ids[k], false, 0);
    if (p.score == 0) continue;
    trace_placement(index, params, letters[k].codes[0], p);
    // The same task through the scalar traceback.
    std::vector<std::uint8_t> target;
    for (std::size_t t = 0; t < letters[k].codes[0].size() + windows[k].band_width - 1; ++t)
      target.push_back(base_code_of(index.reference().text[static_cast<std::size_t>(windows[k].start) + t]));
    const kernels::ExtendTask task{letters[k].codes[0], target.data(), windows[k].band_width};
    const kernels::ExtendAlignment a = kernels::extend_align_scalar(task, params.scoring);
    EXPECT_EQ(p.cigar, a.cigar);
    EXPECT_EQ(p.text_begin, windows[k].start + a.target_begin);
    EXPECT_EQ(p.query_begin, a.query_begin);
  }
}

// -T is compared with SAM's AS, the score without the clip bonuses, as BWA-MEM compares it: an
// alignment of a read's every letter holds both bonuses, which must not carry it over -T.
TEST(Placements, MinScoreIsComparedWithoutClipBonuses) {
  const MapParams params;
  EndResult end;
  Placement whole = placement_at(false, 1000, params.min_score - 1 + params.scoring.clip5 + params.scoring.clip3);
  whole.query_end = 100;
  end.placements = {whole};
  choose_placements(end, 100, params);
  EXPECT_FALSE(end.mapped()) << "AS " << params.min_score - 1 << " reported";
  ++end.placements[0].score;
  choose_placements(end, 100, params);
  EXPECT_TRUE(end.mapped());
}

// A traced alignment is compared by its best stretch: a 33-letter read aligned whole with its last
// letter a mismatch has AS 28 but a stretch of 32, and is reported (BWA-MEM reports it with 32).
TEST(Placements, MinScoreTakesTheBestStretchOfATracedAlignment) {
  const MapParams params;
  std::mt19937 rng{11};
  const std::string text = random_bases(rng, 33);
  std::string read = text;
  read.back() = read.back() == 'a' ? 'c' : 'a';
  const EndLetters target = letters_of(text), query = letters_of(read);
  const std::vector<kernels::CigarRun> whole = {{kernels::CigarOp::match, 33}};
  Placement p = placement_at(false, 0, 28 + params.scoring.clip5 + params.scoring.clip3);
  p.query_end = 33;
  EXPECT_FALSE(scores_enough(p, 33, params));
  p.local_score = best_stretch_score(whole, query.codes[0].data(), target.codes[0].data(), params.scoring);
  EXPECT_EQ(p.local_score, 32);
  EXPECT_TRUE(scores_enough(p, 33, params));
  // Gaps count once per run: 10 matches, a 2-letter deletion (6 + 2), 20 matches.
  const std::vector<kernels::CigarRun> gapped = {
      {kernels::CigarOp::soft_clip, 3}, {kernels::CigarOp::match, 10}, {kernels::CigarOp::deletion, 2}, {kernels::CigarOp::match, 20}};
  const std::string ref = random_bases(rng, 32), clipped_read = std::string("ttt").append(ref, 0, 10).append(ref, 12, 20);
  const EndLetters r = letters_of(clipped_read), t = letters_of(ref);
  EXPECT_EQ(best_stretch_score(gapped, r.codes[0].data() + 3, t.codes[0].data(), params.scoring), 10 - 8 + 20);
}

// -5: of a split read's parts, the one nearest the read's 5' end is primary, on either strand; the
// pair's choice (keep_first) stays primary.
TEST(Placements, Primary5PicksThePartNearestTheReadsStart) {
  MapParams params;
  params.primary5 = true;
  for (bool reverse : {false, true}) {
    EndResult end;
    Placement later = placement_at(reverse, 5000, 70), earlier = placement_at(reverse, 1000, 40);
    // Read letters 30-100 and 0-30, counted on the read as given: a reverse placement's letters
    // are counted on the reverse complement.
    later.query_begin = reverse ? 0 : 30, later.query_end = reverse ? 70 : 100;
    earlier.query_begin = reverse ? 70 : 0, earlier.query_end = reverse ? 100 : 30;
    end.placements = {later, earlier};
    choose_placements(end, 100, params);
    ASSERT_TRUE(end.mapped());
    EXPECT_EQ(end.best().text_begin, 1000) << "reverse " << reverse;
    ASSERT_EQ(end.supplementary.size(), 1u);
    EXPECT_EQ(end.placements[static_cast<std::size_t>(end.supplementary[0])].text_begin, 5000);
    // As one end of a pair too: BWA-MEM does not pair the ends of a split read.
    end.placements = {later, earlier};
    choose_placements(end, 100, params, true);
    EXPECT_EQ(end.best().text_begin, 1000);
    params.primary5 = false;
    end.placements = {later, earlier};
    choose_placements(end, 100, params);
    EXPECT_EQ(end.best().text_begin, 5000);
    params.primary5 = true;
  }
}

// XA lists the primary's other places scoring at least 80 % of its AS, when there are -h or fewer
// of them (BWA-MEM's rule); none with -a, whose records show every place.
// A split read's parts each have their own alternatives: the supplementary part's XS and MAPQ come
// from the placements of its letters, not the primary's, and its MAPQ is no higher than the primary's.
TEST(Placements, SupplementaryPartsHaveTheirOwnAlternatives) {
  MapParams params;
  Placement head = placement_at(false, 5000, 70), tail = placement_at(false, 1000, 40);
  Placement head_copy = placement_at(false, 9000, 50), tail_copy = placement_at(false, 12000, 39);
  head.query_begin = head_copy.query_begin = 0, head.query_end = head_copy.query_end = 70;
  tail.query_begin = tail_copy.query_begin = 70, tail.query_end = tail_copy.query_end = 100;
  EndResult end;
  end.placements = {head, head_copy, tail, tail_copy};
  choose_placements(end, 100, params);
  set_single_end_mapq(end, 100, false, params);
  set_supplementary_mapq(end, params);
  ASSERT_EQ(end.supplementary, std::vector<int>{2});
  EXPECT_EQ(end.alternatives, std::vector<int>{50});
  EXPECT_EQ(end.supplementary_alternatives, std::vector<std::vector<int>>{{39}});
  EXPECT_GT(end.mapq, 30);
  ASSERT_EQ(end.supplementary_mapq.size(), 1u);
  EXPECT_LT(end.supplementary_mapq[0], 10);  // one score unit from its copy
  // With its copy far below, the part is as sure as the read, no surer.
  end.placements = {head, head_copy, tail, placement_at(false, 12000, 1)};
  end.placements[3].query_begin = 70;
  choose_placements(end, 100, params);
  set_single_end_mapq(end, 100, false, params);
  set_supplementary_mapq(end, params);
  EXPECT_EQ(end.supplementary_mapq, std::vector<int>{end.mapq});
}

// XS is the best alternative's AS: the clipping bonuses that alternative earned are taken off, not
// both bonuses whatever it earned (a copy clipped as the primary is, a tie, showed XS < AS).
TEST(Placements, SubScoreIsTheBestAlternativesAs) {
  MapParams params;
  const int clip3 = params.scoring.clip3, clip5 = params.scoring.clip5;
  for (const auto& [begin, end, bonus] : {std::tuple{0, 100, clip5 + clip3}, std::tuple{55, 100, clip3},
                                          std::tuple{0, 80, clip5}, std::tuple{10, 90, 0}}) {
    EndResult result;
    for (std::int64_t at : {1000, 5000}) {  // two copies aligned alike: a tie
      result.placements.push_back(placement_at(false, at, 95 + bonus));
      result.placements.back().query_begin = begin;
      result.placements.back().query_end = end;
    }
    choose_placements(result, 100, params);
    ASSERT_TRUE(result.mapped());
    EXPECT_EQ(sam_score(result.best(), 100, params.scoring), 95);
    EXPECT_EQ(result.sub_score, 95) << "read letters " << begin << "-" << end;
  }
}

TEST(Placements, ListedAlternativesFollowBwaMemsRule) {
  MapParams params;
  const int bonus = params.scoring.clip5 + params.scoring.clip3;
  EndResult end;
  for (int as : {100, 95, 80, 79, 90}) {
    end.placements.push_back(placement_at(false, 1000 * static_cast<std::int64_t>(end.placements.size()), as + bonus));
    end.placements.back().query_end = 100;
  }
  choose_placements(end, 100, params);
  ASSERT_EQ(end.secondary.size(), 4u);
  auto listed_as = [&] {
    std::vector<int> as;
    for (int k : listed_alternatives(end, 100, params)) as.push_back(sam_score(end.placements[static_cast<std::size_t>(k)], 100, params.scoring));
    std::sort(as.begin(), as.end());
    return as;
  };
  EXPECT_EQ(listed_as(), (std::vector<int>{80, 90, 95}));
  params.listed_alternatives = 3;
  EXPECT_EQ(listed_as().size(), 3u);
  params.listed_alternatives = 2;
  EXPECT_TRUE(listed_as().empty()) << "more places than -h are listed";
  params.listed_alternatives = 5;
  params.all_alignments = true;
  EXPECT_TRUE(listed_as().empty()) << "XA beside -a's records";
}

// Equal placements are chosen as BWA-MEM chooses them. The cases are bwa mem 0.7.17's choices for
// dwgsim reads of K. pneumoniae HS11286 (CP003200.1) that match 8 copies of an IS element, each
// 100M with one score: reads 53 and 156 of the SE100 set and pair 323 of the PE100 set that
// bench/map_sets_vs_bwa.sh makes with seed 20 (read numbers count from 0).
Placement copy_at(bool reverse, std::int64_t begin) {
  Placement p = placement_at(reverse, begin, 110);
  p.query_end = 100;
  return p;
}

TEST(Placements, TieHashIsThomasWangs) {
  EXPECT_EQ(tie_hash(0), 7654268697807496793ULL);
  EXPECT_EQ(tie_hash(1), 2320827452992767577ULL);
}

TEST(Placements, EqualCopiesAreChosenAsBwaMemChooses) {
  auto chosen = [](std::uint64_t read_number, const std::vector<std::pair<bool, std::int64_t>>& copies) {
    std::vector<Placement> placements;
    for (const auto& [reverse, begin] : copies) placements.push_back(copy_at(reverse, begin));
    sort_placements(placements, read_number);
    return std::pair{placements.front().reverse, placements.front().text_begin};
  };
  EXPECT_EQ(chosen(53, {{false, 125273}, {false, 262187}, {false, 20744}, {false, 631828}, {true, 4029734},
                        {true, 4841856}, {false, 217143}, {false, 1006760}}),
            std::pair(true, std::int64_t{4841856}));
  EXPECT_EQ(chosen(156, {{false, 20452}, {true, 4842148}, {false, 261895}, {false, 631536}, {false, 124981},
                         {true, 4030026}, {false, 216851}, {false, 1006468}}),
            std::pair(false, std::int64_t{1006468}));
}

// Sorts, chooses and pairs the two ends' placements (both `length` letters) of pair `pair_number`
// as a run does, with inserts of 499 +- 50 letters.
bool pair_equal_reads(EndResult& first, EndResult& second, std::int32_t length, std::uint64_t pair_number) {
  MapParams params;
  sort_placements(first.placements, pair_number << 1);
  sort_placements(second.placements, pair_number << 1 | 1);
  choose_placements(first, length, params);
  choose_placements(second, length, params);
  return choose_pair(first, second, length, length, given_fr_sizes(499, 50), params, pair_number);
}

// Eight equal pairs: the first end forward at each copy but the last two, where the second end is;
// the fragment is 550 letters.
void place_eight_equal_pairs(EndResult& first, EndResult& second) {
  const std::int64_t copies[] = {17977, 122506, 214376, 259420, 629061, 1003993, 4032051, 4844173};
  for (std::size_t k = 0; k < std::size(copies); ++k) {
    const bool swapped = k >= 6;
    (swapped ? second : first).placements.push_back(copy_at(false, copies[k]));
    (swapped ? first : second).placements.push_back(copy_at(true, copies[k] + 450));
  }
}

TEST(Pairing, EqualPairsAreChosenAsBwaMemChooses) {
  EndResult first, second;
  place_eight_equal_pairs(first, second);
  ASSERT_TRUE(pair_equal_reads(first, second, 100, 323));
  EXPECT_FALSE(first.best().reverse);
  EXPECT_EQ(first.best().text_begin, 259420);
  EXPECT_EQ(second.best().text_end, 259420 + 550);
}

// A placement whose seeds weigh under -D of another's over the same read letters, by two seeds'
// letters at least, is a chain BWA-MEM's filter drops before aligning it: it takes no rank, so the
// equal pairs are chosen as without it (the pick of EqualPairsAreChosenAsBwaMemChooses). Its score
// (over half the copies') does not rank it.
TEST(Pairing, PlacementsOfOutweighedSeedsTakeNoRank) {
  EndResult first, second;
  place_eight_equal_pairs(first, second);
  for (EndResult* end : {&first, &second})
    for (Placement& p : end->placements) p.seed_weight = 100;
  for (std::int64_t begin : {1000, 2000}) {
    Placement weak = copy_at(false, begin);
    weak.score = 60;
    weak.seed_weight = 25;
    first.placements.push_back(weak);
  }
  ASSERT_TRUE(pair_equal_reads(first, second, 100, 323));
  EXPECT_EQ(first.best().text_begin, 259420);
  EXPECT_EQ(second.best().text_end, 259420 + 550);
}

TEST(Pairing, RescuedPlacementsCountInTheRanksOfEqualPairs) {
  // Pair 12251 of MGH 78578 s22 PE150: two equal pairs, and between them a weak placement of the
  // first end that a search near the second end's middle copy found. BWA-MEM ranks every rescued
  // placement, however weak, so the pairs are the 1st-2nd and 5th-6th by position, not 4th-5th.
  auto at = [](bool reverse, std::int64_t begin, int score, bool rescued) {
    Placement p = placement_at(reverse, begin, score);
    p.text_end = begin + 150;
    p.query_end = 150;
    p.rescued = rescued;
    return p;
  };
  EndResult first, second;
  for (std::int64_t begin : {1130945, 1133885}) first.placements.push_back(at(false, begin, 160, false));
  first.placements.push_back(at(false, 1132379, 44, true));
  for (std::int64_t last : {1131366, 1132986, 1134306}) second.placements.push_back(at(true, last + 1 - 150, 160, false));
  ASSERT_TRUE(pair_equal_reads(first, second, 150, 12251));
  EXPECT_EQ(first.best().text_begin, 1130945);
  EXPECT_EQ(second.best().text_end, 1131367);
}

// A placement of `letters` letters whose 5' letter on the reference is `five_prime` (its last letter
// when reverse), as the pair tests of real reads below need them.
Placement placed_at(bool reverse, std::int64_t five_prime, std::int64_t letters, int score, bool rescued = false) {
  Placement p = placement_at(reverse, reverse ? five_prime + 1 - letters : five_prime, score);
  p.text_end = p.text_begin + letters;
  p.query_end = static_cast<std::int32_t>(letters);
  p.rescued = rescued;
  return p;
}

TEST(Pairing, PairsWithinAWholeScoreUnitAreEqualChoices) {
  // Pair 362 of HS11286 seed 12 PE150: eight copies, three of them 544 letters long and five 545.
  // BWA-MEM scores pairs in whole units, so all eight are equal, and its hash picks a 545 one.
  EndResult first, second;
  for (std::int64_t forward : {16409, 120853, 212722, 257851, 627492, 1002341}) {
    second.placements.push_back(placed_at(false, forward, 150, 150));
    const std::int64_t size = forward == 16409 || forward == 1002341 ? 544 : 545;
    first.placements.push_back(placed_at(true, forward + size - 1, 150, 160));
  }
  for (const auto& [forward, last] : {std::pair{4033625, 4034168}, std::pair{4845602, 4846146}}) {
    first.placements.push_back(placed_at(false, forward, 150, 160));
    second.placements.push_back(placed_at(true, last, 150, 150));
  }
  ASSERT_TRUE(pair_equal_reads(first, second, 150, 362));
  EXPECT_EQ(first.best().text_begin, 4845602);
  EXPECT_EQ(second.best().text_end, 4846146 + 1);
}

TEST(Pairing, WeakPlacementsBesideAnAnchorCountInTheRanksOfEqualPairs) {
  // Pair 16748 of HS11286 seed 12 PE150: two equal pairs. The second end's seeds found a weak
  // placement (68) 412 letters from the first end's copy at 17355, where BWA-MEM's mate search
  // from that copy finds it, so BWA-MEM ranks it with the rescued ones.
  EndResult first, second;
  for (std::int64_t forward : {17355, 121800, 213669, 258798, 628439, 1003287})
    first.placements.push_back(placed_at(false, forward, 150, 160));
  for (std::int64_t last : {4033222, 4845199}) first.placements.push_back(placed_at(true, last, 150, 160));
  second.placements = {placed_at(true, 122293, 150, 155),      placed_at(true, 1003780, 150, 155),
                       placed_at(true, 214163, 150, 148),      placed_at(true, 17766, 58, 68),
                       placed_at(true, 628849, 57, 67, true),  placed_at(true, 259208, 57, 67, true),
                       placed_at(false, 4032729, 57, 67, true), placed_at(false, 4844706, 49, 59, true)};
  ASSERT_TRUE(pair_equal_reads(first, second, 150, 16748));
  EXPECT_EQ(first.best().text_begin, 121800);
  EXPECT_EQ(second.best().text_end, 122293 + 1);
}

TEST(Mapq, FollowsTheScoreGap) {
  MapParams params;
  const std::vector<double> none;
  EXPECT_EQ(mapq_from_scores(160, none, {}, 19, params), 60);
  const std::vector<double> equal{160};
  EXPECT_EQ(mapq_from_scores(160, equal, {}, 19, params), 0);
  int last = 0;
  for (double gap : {1.0, 3.0, 5.0, 10.0, 20.0}) {
    const std::vector<double> other{160 - gap};
    const int q = mapq_from_scores(160, other, {}, 19, params);
    EXPECT_GE(q, last);
    last = q;
  }
  EXPECT_EQ(last, 60);
  const std::vector<double> one{155}, three{155, 155, 155};
  EXPECT_GT(mapq_from_scores(160, one, {}, 19, params), mapq_from_scores(160, three, {}, 19, params));
  // A copy one substitution (match + mismatch units) away weighs on BWA-MEM's scale: 27 points.
  EXPECT_EQ(mapq_from_scores(160, one, {}, 19, params), 27);
  // One unit (a gap extension) leaves the placement wrong about one time in four: MAPQ 6, the
  // lowest named. Two such alternatives leave it wrong more often: MAPQ 0.
  const std::vector<double> one_unit{159}, two_one_unit{159, 159}, two_units{158};
  EXPECT_EQ(mapq_from_scores(160, one_unit, {}, 19, params), 6);
  EXPECT_EQ(mapq_from_scores(160, two_one_unit, {}, 19, params), 0);
  EXPECT_GT(mapq_from_scores(160, two_units, {}, 19, params), 6);
}

// Alternatives a substitution or more below, within one of each other (a family's copies that the
// read's letters tell apart), weigh as BWA-MEM weighs suboptimal pairs: 27.1 points a substitution,
// and n of them 10 log10((n + 1) / 2) points more than one. Alternatives less than a substitution
// below (picks on insert size) are summed in full, on the error model's scale.
TEST(Mapq, CopiesLettersApartCountAsAFamily) {
  MapParams params;
  const std::vector<double> six(6, 155);
  EXPECT_EQ(mapq_from_scores(160, six, {}, 19, params), 22);  // 27.1 - 10 log10(3.5); summed at 25: 17
  const std::vector<double> family{155, 154, 152};  // within a substitution of the best of them
  EXPECT_EQ(mapq_from_scores(160, family, {}, 19, params), 28);  // summed at 25: 24
  const std::vector<double> near_and_far{159, 155};  // the near one (an insert-size pick) counts in full
  EXPECT_EQ(mapq_from_scores(160, near_and_far, {}, 19, params), 6);
  const std::vector<double> two_half_units{159.5, 159.5};
  EXPECT_EQ(mapq_from_scores(160, two_half_units, {}, 19, params), 0);
}

// A 100-letter read placed once, exactly: AS 100 and both ends' bonuses.
EndResult exact_read_end(bool reverse) {
  EndResult end;
  Placement p = placement_at(reverse, 1000, 110);
  p.query_begin = 0;
  p.query_end = 100;
  end.placements.push_back(p);
  end.primary = 0;
  return end;
}

// A single read whose copies one substitution away are several: n of them take 10 log10((n + 1) / 2)
// points more than one, on BWA-MEM's scale (an exact 100-letter placement: 10 with one such copy,
// as BWA-MEM names it; with the 7 other copies of an 8-copy family, 4).
TEST(Mapq, NearCopiesAddUp) {
  MapParams params;
  auto end_with_copies = [&](int copies) {
    EndResult end = exact_read_end(false);
    end.alternatives.assign(static_cast<std::size_t>(copies), 105);
    set_single_end_mapq(end, 100, false, params);
    return end.mapq;
  };
  EXPECT_EQ(end_with_copies(1), 10);
  EXPECT_EQ(end_with_copies(3), 7);
  EXPECT_EQ(end_with_copies(7), 4);
}

// A read part of which matched more than -c copies, left unlooked at: its MAPQ keeps only the share
// that rests on the other letters (BWA-MEM's frac_rep rule), on the placement's strand.
TEST(Mapq, RepeatsNotLookedAtDiscountIt) {
  MapParams params;
  EndResult end = exact_read_end(true);
  set_single_end_mapq(end, 100, true, params);
  EXPECT_EQ(end.mapq, 60);
  end.repetitive_letters[0] = 80;  // the other strand's: no bearing
  set_single_end_mapq(end, 100, true, params);
  EXPECT_EQ(end.mapq, 60);
  end.repetitive_letters[1] = 40;
  set_single_end_mapq(end, 100, true, params);
  EXPECT_EQ(end.mapq, 36);
}

// Letters in a large repeat family (a third-round match whose prefix one letter shorter has 20
// copies or more) discount a read with no mate as repeats do, down to 20 at most; a pair's end is
// left to its mate.
TEST(Mapq, LargeFamiliesDiscountAReadWithNoMate) {
  MapParams params;
  EndResult end = exact_read_end(false);
  end.repetitive_letters[0] = 10;
  end.family_letters[0] = 40;  // the union of both kinds of letters
  set_single_end_mapq(end, 100, true, params);
  EXPECT_EQ(end.mapq, 54);
  set_single_end_mapq(end, 100, false, params);
  EXPECT_EQ(end.mapq, 36);
  end.family_letters[0] = 88;
  set_single_end_mapq(end, 100, false, params);
  EXPECT_EQ(end.mapq, 20);
  // Repeats over -c discount it below 20 as BWA-MEM's rule does; families take it no lower.
  end.repetitive_letters[0] = 75;
  end.family_letters[0] = 95;
  set_single_end_mapq(end, 100, false, params);
  EXPECT_EQ(end.mapq, 15);
}

// One end placed once, its mate in a tandem pair of identical copies: the copy whose insert size is
// likelier is chosen, and its MAPQ is the normal densities' odds (not the tails').
EndResult one_placement_end(bool reverse, std::int64_t begin, int score) {
  EndResult end;
  end.placements.push_back(placement_at(reverse, begin, score));
  end.primary = 0;
  end.mapq = 60;
  return end;
}

int mate_mapq_between_copies(std::int64_t insert_a, std::int64_t insert_b, std::int64_t* chosen_insert) {
  MapParams params;
  const PairSizes sizes = given_fr_sizes(500, 50);
  EndResult first = one_placement_end(false, 10000, 100);
  EndResult second = one_placement_end(true, 10000 + insert_a - 100, 100);
  second.placements.push_back(one_placement_end(true, 10000 + insert_b - 100, 100).placements[0]);
  second.mapq = 0;
  EXPECT_TRUE(choose_pair(first, second, 100, 100, sizes, params, 0));
  *chosen_insert = pair_geometry(first.best(), second.best())->size;
  return second.mapq;
}

TEST(Pairing, InsertSizeOddsBetweenEqualCopies) {
  std::int64_t chosen = 0;
  // z = 0 against z = 2.4: odds e^2.88 = 17.8, wrong 1 in 18.8, Q12.7.
  EXPECT_EQ(mate_mapq_between_copies(620, 500, &chosen), 13);
  EXPECT_EQ(chosen, 500);
  // z = 0.34 against z = 1.68 (a 67-letter tandem period): wrong 1 in 4.9, Q6.9.
  EXPECT_EQ(mate_mapq_between_copies(517, 584, &chosen), 7);
  EXPECT_EQ(chosen, 517);
  // z = 0.34 against z = 1.4 (a 53-letter period): wrong 1 in 3.5, below Q6: MAPQ 0, the likelier
  // copy still chosen.
  EXPECT_EQ(mate_mapq_between_copies(517, 570, &chosen), 0);
  EXPECT_EQ(chosen, 517);
  // Equal insert sizes: a coin toss.
  EXPECT_EQ(mate_mapq_between_copies(450, 550, &chosen), 0);
}

TEST(InsertSizes, EstimatedWithoutOutliers) {
  std::mt19937 rng(3);
  std::normal_distribution<> size(400, 30);
  std::vector<EndResult> ends;
  for (int k = 0; k < 2000; ++k) {
    const std::int64_t start = 10000 + k * 10, length = std::llround(size(rng));
    const bool outlier = k % 50 == 0;
    for (int e = 0; e < 2; ++e) {
      EndResult r;
      Placement p;
      p.reverse = e == 1;
      p.score = 150;
      p.text_begin = e == 0 ? start : start + (outlier ? 50000 : length) - 100;
      p.text_end = p.text_begin + 100;
      p.traced = true;
      r.placements.push_back(p);
      r.primary = 0;
      r.mapq = 60;
      ends.push_back(r);
    }
  }
  const PairSizes all = estimate_insert_sizes(ends, {});
  const InsertSizes& sizes = all.of[static_cast<std::size_t>(Orientation::fr)];
  ASSERT_TRUE(sizes.known);
  EXPECT_FALSE(all.of[static_cast<std::size_t>(Orientation::rf)].known);
  EXPECT_NEAR(sizes.mean, 400, 3);
  EXPECT_NEAR(sizes.sd, 30, 3);
  // Proper pairs as BWA-MEM bounds them: 3 IQRs beyond the quartiles (0.674 + 3 * 1.349 sds of a
  // normal distribution), wider than 4 sds from the mean.
  EXPECT_NEAR(sizes.high, 400 + 30 * 4.72, 8);
  EXPECT_NEAR(sizes.low, 400 - 30 * 4.72, 8);
  // Too few pairs: the previous estimate stays.
  const PairSizes kept = estimate_insert_sizes({ends.data(), 20}, all);
  EXPECT_EQ(kept.of[static_cast<std::size_t>(Orientation::fr)].mean, sizes.mean);
}

// Ends that lie anywhere (Hi-C, chimeras): pairs more than 10 kb apart are not counted, nor FR pairs
// that are under 5 % of the confident ones; no estimate is made, where one of millions of letters
// made every pair proper and mate rescue search megabases.
TEST(InsertSizes, NoneFromEndsThatLieAnywhere) {
  std::mt19937 rng(4);
  auto end_at = [](std::int64_t begin, bool reverse) {
    EndResult r;
    r.placements.push_back(placement_at(reverse, begin, 150));
    r.primary = 0;
    r.mapq = 60;
    return r;
  };
  std::vector<EndResult> far, mixed;
  for (int k = 0; k < 2000; ++k) {
    const std::int64_t start = static_cast<std::int64_t>(rng() % 5'000'000);
    far.push_back(end_at(start, false));
    far.push_back(end_at(start + 10'001 + static_cast<std::int64_t>(rng() % 5'000'000), true));
    // 60 FR pairs 400 apart among 2000 confident ones, the rest facing the same way (FF).
    mixed.push_back(end_at(start, false));
    mixed.push_back(end_at(start + 300, k < 60));
  }
  constexpr auto fr = static_cast<std::size_t>(Orientation::fr), ff = static_cast<std::size_t>(Orientation::ff);
  EXPECT_FALSE(estimate_insert_sizes(far, {}).known());
  const PairSizes mixed_sizes = estimate_insert_sizes(mixed, {});
  EXPECT_FALSE(mixed_sizes.of[fr].known) << "60 FR pairs among 2000 are chance neighbours";
  EXPECT_TRUE(mixed_sizes.of[ff].known);
  EXPECT_TRUE(estimate_insert_sizes({mixed.data(), 2 * 600}, {}).of[fr].known) << "60 FR pairs among 600 make an estimate";
}

// BWA-MEM's four orientations, each measured from one end's 5' letter to the other's.
TEST(Pairing, OrientationsAndSizesAreBwaMems) {
  // placement_at: 100 letters from `begin`; a reverse one's 5' letter is its last.
  const auto geometry = [](bool reverse1, std::int64_t begin1, bool reverse2, std::int64_t begin2) {
    return *pair_geometry(placement_at(reverse1, begin1, 100), placement_at(reverse2, begin2, 100));
  };
  const auto expect = [](PairGeometry g, Orientation o, std::int64_t size) {
    EXPECT_EQ(g.orientation, o);
    EXPECT_EQ(g.size, size);
  };
  expect(geometry(false, 1000, true, 1300), Orientation::fr, 400);  // facing each other
  expect(geometry(true, 1300, false, 1000), Orientation::fr, 400);
  expect(geometry(true, 1000, false, 1300), Orientation::rf, 202);  // facing away: 5' letters 1099 and 1300
  expect(geometry(false, 1300, true, 1000), Orientation::rf, 202);
  expect(geometry(false, 1000, false, 1300), Orientation::ff, 301);  // the second after the first, along their strand
  expect(geometry(true, 1300, true, 1000), Orientation::ff, 301);
  expect(geometry(false, 1300, false, 1000), Orientation::rr, 301);
  expect(geometry(true, 1000, true, 1300), Orientation::rr, 301);
  Placement elsewhere = placement_at(true, 1300, 100);
  elsewhere.sequence = 1;
  EXPECT_FALSE(pair_geometry(placement_at(false, 1000, 100), elsewhere));
}

// A mate-pair library (RF): its own distribution, its pairs proper, and a mate searched for where
// RF puts it.
TEST_F(MapSteps, MatePairsAreEstimatedPairedAndRescuedAsRf) {
  std::vector<EndResult> ends;
  for (int k = 0; k < 400; ++k) {
    ends.push_back(one_placement_end(true, 100000 + 50 * k, 100));                   // 5' letter at 100099 + 50k
    ends.push_back(one_placement_end(false, 100000 + 50 * k + 200 + k % 41, 100));  // facing away
  }
  const PairSizes sizes = estimate_insert_sizes(ends, {});
  const InsertSizes& rf = sizes.of[static_cast<std::size_t>(Orientation::rf)];
  ASSERT_TRUE(rf.known);
  EXPECT_FALSE(sizes.of[static_cast<std::size_t>(Orientation::fr)].known);
  EXPECT_NEAR(rf.mean, 122, 2);
  EXPECT_TRUE(proper_pair(ends[0], ends[1], sizes));
  EXPECT_FALSE(proper_pair(ends[0], one_placement_end(true, 100300, 100), sizes));
  // The first end forward in the genome's unique start; its RF mate, reverse, ends 150 letters before.
  const auto kernel = kernels::make_extend_cpu_kernel(engine::KernelChoice::scalar, params.scoring);
  const auto scorer = kernel->make_scorer();
  LocusAligner aligner(index, params.scoring, *scorer);
  EndResult anchor = one_placement_end(false, 6000, 100);
  anchor.placements[0].traced = true;
  EndLetters mate_letters;
  mate_letters.assign(reverse_complement(index.reference().text.substr(5750, 100)));
  EndResult mate;
  std::vector<RescueTask> tasks;
  queue_rescues(anchor, true, 100, mate_letters, mate, sizes, index.reference(), params, aligner, tasks);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_TRUE(tasks[0].reverse);
  aligner.score_all();
  add_rescued(tasks, aligner, 100, 1, params, mate);
  ASSERT_TRUE(mate.mapped());
  EXPECT_EQ(mate.best().text_end, 5850);
  EXPECT_EQ(pair_geometry(anchor.best(), mate.best())->orientation, Orientation::rf);
}

// What a rank reads: its own batches of the reads (unit u is rank u % ranks's), the others passed
// over, by unit.
std::map<std::size_t, ReadBatch> rank_batches(const std::string& reads1, const std::string& reads2, bool interleaved,
                                              std::size_t letters, std::size_t parts, std::size_t ranks,
                                              std::size_t rank) {
  ReadInput input(reads1, reads2, interleaved);
  std::map<std::size_t, ReadBatch> batches;
  for (std::size_t unit = 0;; ++unit) {
    if (unit % ranks != rank) {
      if (!input.pass_over(letters, parts)) break;
      continue;
    }
    ReadBatch batch;
    if (!input.next(batch, letters, parts)) break;
    batches.emplace(unit, std::move(batch));
  }
  return batches;
}

// A FASTQ read named `name`, some of them wrapped (several sequence and quality lines).
std::string fastq_read(std::mt19937& rng, const std::string& name) {
  const std::string letters = random_bases(rng, 1 + rng() % 250);
  const std::string quality(letters.size(), 'I');
  const std::size_t half = letters.size() / 2;
  if (rng() % 8 != 0 || half == 0) return "@" + name + "\n" + letters + "\n+\n" + quality + "\n";
  return "@" + name + "\n" + letters.substr(0, half) + "\n" + letters.substr(half) + "\n+\n" + quality.substr(0, half) +
         "\n" + quality.substr(half) + "\n";
}

TEST(ReadInput, BatchesPassedOverAreThoseOtherRanksRead) {
  const test::TempDir dir;
  std::mt19937 rng(5);
  for (int round = 0; round < 6; ++round) {
    std::string ends[2], interleaved;
    for (std::size_t k = 0, n = 1 + rng() % 900; k < n; ++k)
      for (int e = 0; e < 2; ++e) {
        std::string name = std::to_string(k);
        name += e == 0 ? "/1" : "/2";
        const std::string read = fastq_read(rng, name);
        ends[e] += read;
        interleaved += read;
      }
    const std::string one = dir.file("r_1.fq"), two = dir.file("r_2.fq"), both = dir.file("r_12.fq");
    std::ofstream(one) << ends[0];
    std::ofstream(two) << ends[1];
    std::ofstream(both) << interleaved;
    for (const auto& [reads1, reads2, paired] :
         {std::tuple{one, std::string(), false}, std::tuple{one, two, false}, std::tuple{both, std::string(), true}})
      for (const std::size_t letters : {std::size_t{1}, std::size_t{700}, std::size_t{20000}})
        for (const std::size_t parts : {std::size_t{1}, std::size_t{3}}) {
          const std::map<std::size_t, ReadBatch> alone = rank_batches(reads1, reads2, paired, letters, parts, 1, 0);
          for (const std::size_t ranks : {2u, 3u}) {
            std::map<std::size_t, ReadBatch> units;
            for (std::size_t rank = 0; rank < ranks; ++rank)
              units.merge(rank_batches(reads1, reads2, paired, letters, parts, ranks, rank));
            ASSERT_EQ(units.size(), alone.size()) << reads1 << " " << reads2 << ", " << letters << " letters";
            for (const auto& [unit, batch] : alone) {
              const ReadBatch& got = units.at(unit);
              EXPECT_EQ(got.first_fragment, batch.first_fragment) << unit;
              EXPECT_EQ(got.part_ends, batch.part_ends) << unit;
              ASSERT_EQ(got.reads.size(), batch.reads.size()) << unit;
              for (std::size_t r = 0; r < got.reads.size(); ++r) {
                EXPECT_EQ(got.reads[r].name, batch.reads[r].name);
                EXPECT_EQ(got.reads[r].letters, batch.reads[r].letters);
              }
            }
          }
        }
  }
}

TEST(ReadInput, AMissingMateIsFoundInBatchesPassedOver) {
  const test::TempDir dir;
  const std::string one = dir.file("m_1.fq"), two = dir.file("m_2.fq");
  std::ofstream(one) << "@a\nACGT\n+\nIIII\n@b\nACGT\n+\nIIII\n";
  std::ofstream(two) << "@a\nACGT\n+\nIIII\n";
  ReadInput input(one, two, false);
  try {
    while (input.pass_over(1, 1)) {
    }
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(one + ":5: a read has no mate: " + two + " ended after 1 pairs"),
              std::string::npos)
        << e.what();
  }
}

TEST(GpuTrial, BatchesLeftFollowTheShareRead) {
  // A pipe: the batches read so far stand for those left.
  EXPECT_DOUBLE_EQ(batches_left(0, std::nullopt, 1), 1.0);
  EXPECT_DOUBLE_EQ(batches_left(3, 0.0, 1), 4.0);
  EXPECT_DOUBLE_EQ(batches_left(7, std::nullopt, 2), 4.0);
  EXPECT_FALSE(share_known(std::nullopt));
  EXPECT_TRUE(share_known(0.5));
  EXPECT_DOUBLE_EQ(batches_left(0, 1.0, 1), 1.0);       // the last batch
  EXPECT_DOUBLE_EQ(batches_left(1, 2.0 / 13, 1), 12.0);  // batch 2 of 13
  EXPECT_DOUBLE_EQ(batches_left(1, 2.0 / 13, 4), 3.0);   // of which a rank of four maps a quarter
  EXPECT_DOUBLE_EQ(batches_left(1, 2.0 / 3, 1), 2.0);    // batch 2 of 3: too few for a trial
  EXPECT_LT(batches_left(1, 2.0 / 3, 1), kBatchesWorthATrial);
  EXPECT_EQ(batches_at_most(std::nullopt, 1000, 1), std::nullopt);
  EXPECT_DOUBLE_EQ(*batches_at_most(12000, 1000, 1), 12.0);
  EXPECT_DOUBLE_EQ(*batches_at_most(12000, 1000, 3), 4.0);
}

// ---- whole runs ----

struct SimulatedPairs {
  std::string reference, reads1, reads2;
};

// Pairs from the repeat genome, FR, insert 300 +- 20, named by their true position.
SimulatedPairs write_pairs(const test::TempDir& dir, const index::ReferenceText& ref, std::mt19937& rng, int pairs) {
  SimulatedPairs files{dir.file("ref.fa"), dir.file("r1.fq"), dir.file("r2.fq")};
  std::ofstream fa(files.reference), r1(files.reads1), r2(files.reads2);
  for (std::size_t s = 0; s < ref.sequences(); ++s)
    fa << '>' << ref.names[s] << '\n' << ref.text.substr(ref.starts[s], ref.lengths[s]) << '\n';
  std::normal_distribution<> insert(300, 20);
  for (int k = 0; k < pairs; ++k) {
    const std::size_t size = static_cast<std::size_t>(std::clamp(std::lround(insert(rng)), 160L, 400L));
    const std::size_t start = rng() % (ref.lengths[0] - size);
    std::string fragment = ref.text.substr(start, size);
    for (char& c : fragment)
      if (rng() % 200 == 0) c = "acgt"[rng() % 4];
    // Appended, not a chain of operator+ (GCC 12 warns of a huge copy inlined from that).
    std::string name = "p";
    name.append(std::to_string(k)).append("_").append(std::to_string(start + 1));
    r1 << '@' << name << "/1\n" << fragment.substr(0, 100) << "\n+\n" << std::string(100, 'I') << '\n';
    r2 << '@' << name << "/2\n" << reverse_complement(fragment.substr(size - 100)) << "\n+\n" << std::string(100, 'I') << '\n';
  }
  return files;
}

// `pairs` pairs from a repeat genome, both made from `seed`.
SimulatedPairs simulate_pairs(const test::TempDir& dir, unsigned seed, int pairs) {
  std::mt19937 rng(seed);
  const index::ReferenceText ref = repeat_genome(rng);
  return write_pairs(dir, ref, rng, pairs);
}

// A run of `map` on the simulated pairs, with batches small enough to make several.
MapOptions options_for(const SimulatedPairs& files) {
  MapOptions options;
  options.reference = files.reference;
  options.reads1 = files.reads1;
  options.reads2 = files.reads2;
  options.batch_bases = 100000;
  return options;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Letters aligned (M and I) by a SAM record's CIGAR.
int aligned_letters(const std::string& cigar) {
  int letters = 0, n = 0;
  for (char c : cigar) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      n = 10 * n + (c - '0');
      continue;
    }
    if (c == 'M' || c == 'I' || c == '=' || c == 'X') letters += n;
    n = 0;
  }
  return letters;
}

// A read across a long deletion or insertion, or a run of N, is aligned whole: through the gap, or
// in two parts (primary and supplementary), as BWA-MEM aligns it. The side the alignment of its
// chain leaves out was lost: a chain's own alignment is kept beside a wider band's that reached
// another chain, and the seeds on each side of a costly stretch of one chain are aligned alone too.
TEST(MapRun, ReadsAcrossLongGapsKeepBothParts) {
  test::TempDir dir;
  std::mt19937 rng(17);
  const std::string genome = random_bases(rng, 40000);
  const std::string reference = dir.file("gap_ref.fa"), reads = dir.file("gap_reads.fa");
  std::ofstream(reference) << ">chr\n" << genome << '\n';
  std::ofstream out(reads);
  std::map<std::string, int> expected;  // the read letters that align somewhere
  for (const int gap : {40, 50, 60, 64, 80})
    for (const int left : {45, 55, 60, 70, 90})
      // Deleted letters, inserted ones, a run of N in the read, and one with a mismatch 15 letters
      // before it (the matches after the mismatch must not hide the run's cost).
      for (const char kind : {'D', 'I', 'N', 'M'})
        for (const bool reverse : {false, true}) {
          const int right = kind == 'D' ? 150 - left : 150 - left - gap;
          if (right < 40) continue;
          const std::size_t start = 1000 + 250 * expected.size();
          std::string read = genome.substr(start, static_cast<std::size_t>(left));
          if (kind == 'I') read += random_bases(rng, static_cast<std::size_t>(gap));
          char& before_run = read[static_cast<std::size_t>(left - 15)];
          if (kind == 'M') before_run = before_run == 'a' ? 'c' : 'a';
          if (kind == 'N' || kind == 'M') read += std::string(static_cast<std::size_t>(gap), 'N');
          const int skipped = kind == 'I' ? 0 : gap;
          read += genome.substr(start + static_cast<std::size_t>(left + skipped), static_cast<std::size_t>(right));
          std::string name = "g";  // appended, not operator+ (GCC 12 warns of a huge copy inlined from that)
          name.append(std::to_string(expected.size()));
          expected[name] = left + right;
          out << '>' << name << '\n' << (reverse ? reverse_complement(read) : read) << '\n';
        }
  out.close();
  for (const unsigned band : {16u, 100u}) {
    MapOptions options;
    options.reference = reference;
    options.reads1 = reads;
    options.params.band_margin = band;
    options.out = dir.file("gap.sam");
    run_map(options);
    std::map<std::string, int> aligned;
    std::istringstream lines(slurp(options.out));
    for (std::string line; std::getline(lines, line);) {
      if (line[0] == '@') continue;
      std::vector<std::string> f;
      std::istringstream fields(line);
      for (std::string field; std::getline(fields, field, '\t');) f.push_back(field);
      if ((std::stoi(f[1]) & 0x104) == 0) aligned[f[0]] += aligned_letters(f[5]);  // primary and supplementary
    }
    ASSERT_EQ(aligned.size(), expected.size());
    for (const auto& [name, letters] : aligned)  // a few letters at the gap may go either way
      EXPECT_GE(letters, expected[name] - 5) << name << ", -w " << band;
  }
}

TEST(MapRun, PlacesPairsTheSameAtAnyThreadCount) {
  test::TempDir dir;
  const SimulatedPairs files = simulate_pairs(dir, 11, 3000);
  MapOptions options = options_for(files);
  std::string outputs[2];
  for (unsigned threads : {1u, 3u}) {
    options.threads = threads;
    options.out = dir.file("out" + std::to_string(threads) + ".sam");
    run_map(options);
    outputs[threads == 3] = slurp(options.out);
  }
  EXPECT_EQ(outputs[0], outputs[1]);
  // Read 1 of each pair starts where its name says, unless it was placed with MAPQ 0.
  std::istringstream lines(outputs[0]);
  std::string line;
  int read1 = 0, right = 0, confident_wrong = 0;
  while (std::getline(lines, line)) {
    if (line[0] == '@') continue;
    std::istringstream f(line);
    std::string name, chr;
    int flag = 0, mapq = 0;
    long pos = 0;
    f >> name >> flag >> chr >> pos >> mapq;
    if (!(flag & 0x40) || (flag & 0x900)) continue;
    ++read1;
    const long truth = std::stol(name.substr(name.rfind('_') + 1));
    const bool correct = !(flag & 4) && chr == "seq0" && std::labs(pos - truth) <= 20;
    right += correct;
    confident_wrong += !correct && mapq >= 30;
  }
  EXPECT_EQ(read1, 3000);
  EXPECT_GT(right, 2850);
  EXPECT_EQ(confident_wrong, 0);
}

// With -C each read's comment goes on every record of it, secondary ones too; one the records
// carry anyway (RG with -R) is refused, naming the reads file and the read's line.
TEST(MapRun, CommentTagsGoOnEveryRecordOfTheirRead) {
  test::TempDir dir;
  SimulatedPairs files = simulate_pairs(dir, 13, 200);
  for (std::string* reads : {&files.reads1, &files.reads2}) {
    std::istringstream in(slurp(*reads));
    *reads += ".tagged.fq";
    std::ofstream out(*reads);
    std::string line;
    for (int k = 0; std::getline(in, line); ++k)
      out << line << (k % 4 == 0 ? "\tBC:Z:" + line.substr(1, line.find('/') - 1) + "\tXi:i:" + std::to_string(k / 4) : "") << '\n';
  }
  MapOptions options = options_for(files);
  options.comment_tags = true;
  options.params.all_alignments = true;
  options.out = dir.file("tagged.sam");
  run_map(options);
  std::istringstream lines(slurp(options.out));
  std::string line;
  int records = 0;
  while (std::getline(lines, line)) {
    if (line[0] == '@') continue;
    ++records;
    const std::string name = line.substr(0, line.find('\t'));
    EXPECT_NE(line.find("\tBC:Z:" + name + "\tXi:i:"), std::string::npos) << line;
  }
  EXPECT_GE(records, 400);
  options.read_group = "@RG\\tID:x";
  std::ofstream(files.reads1) << "@p0/1\tRG:Z:y\nACGT\n+\nIIII\n";
  std::ofstream(files.reads2) << "@p0/2\nACGT\n+\nIIII\n";
  try {
    run_map(options);
    ADD_FAILURE() << "a comment's RG was taken beside -R's";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(files.reads1 + ":1:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("RG"), std::string::npos) << e.what();
  }
}

// -a: secondary records score at least -D of their primary, as bwa mem -a writes them.
TEST(MapRun, AllAlignmentsLeaveOutWeakSecondaries) {
  test::TempDir dir;
  const SimulatedPairs files = simulate_pairs(dir, 15, 300);
  MapOptions options = options_for(files);
  options.params.all_alignments = true;
  options.out = dir.file("all.sam");
  auto secondary_shares = [&] {  // each secondary record's AS over its primary's
    run_map(options);
    std::map<std::pair<std::string, int>, int> primary_as;
    std::vector<std::pair<std::pair<std::string, int>, int>> secondary_as;
    std::istringstream lines(slurp(options.out));
    std::string line;
    while (std::getline(lines, line)) {
      if (line[0] == '@') continue;
      std::istringstream f(line);
      std::string name;
      int flag = 0;
      f >> name >> flag;
      const std::size_t tag = line.find("\tAS:i:");
      if (tag == std::string::npos) continue;
      const int as = std::stoi(line.substr(tag + 6));
      const std::pair end{name, flag & 0xc0};
      if (flag & 0x100) secondary_as.push_back({end, as});
      else if (!(flag & 0x800)) primary_as[end] = as;
    }
    std::vector<double> shares;
    for (const auto& [end, as] : secondary_as) shares.push_back(as / static_cast<double>(primary_as.at(end)));
    return shares;
  };
  std::vector<double> shares = secondary_shares();
  EXPECT_GT(shares.size(), 100u);
  for (double share : shares) EXPECT_GE(share, 0.5);
  options.params.drop_ratio = 0.9;
  shares = secondary_shares();
  EXPECT_GT(shares.size(), 10u);
  for (double share : shares) EXPECT_GE(share, 0.9);
}

// -P: each end's primary is its own best placement, where the pair's choice takes a lesser one
// near the mate; the pair is then not proper. In pair p the first end matches copy B of a segment
// exactly and copy A, 300 letters from its mate, but for one letter. -S: no mate rescue; pair q's
// second end has no exact match of a seed's length (a mismatch every 12 letters) and is placed by
// rescue only. Pair t's second end is 25 letters, trimmed: under -T alone, placed as a pair's end
// (as BWA-MEM places it), unmapped with -P.
TEST(MapRun, SkipPairingAndSkipRescue) {
  std::mt19937 rng(14);
  std::string genome = random_bases(rng, 20000);
  std::string copy_b = genome.substr(2000, 100);
  copy_b[50] = copy_b[50] == 'a' ? 'c' : 'a';
  genome.replace(15000, 100, copy_b);
  std::string unseeded = genome.substr(8200, 100);
  for (std::size_t k = 6; k < unseeded.size(); k += 12) unseeded[k] = unseeded[k] == 'g' ? 't' : 'g';
  test::TempDir dir;
  const std::string fa = dir.file("ref.fa"), r1 = dir.file("r1.fq"), r2 = dir.file("r2.fq");
  std::ofstream(fa) << ">chr\n" << genome << "\n";
  const std::string quality(100, 'I');
  std::ofstream(r1) << "@p/1\n" << copy_b << "\n+\n" << quality << "\n@q/1\n" << genome.substr(8000, 100) << "\n+\n"
                    << quality << "\n@t/1\n" << genome.substr(11000, 100) << "\n+\n" << quality << "\n";
  std::ofstream(r2) << "@p/2\n" << reverse_complement(genome.substr(2200, 100)) << "\n+\n" << quality << "\n@q/2\n"
                    << reverse_complement(unseeded) << "\n+\n" << quality << "\n@t/2\n"
                    << reverse_complement(genome.substr(11275, 25)) << "\n+\n" << quality.substr(0, 25) << "\n";
  MapOptions options;
  options.reference = fa;
  options.reads1 = r1;
  options.reads2 = r2;
  options.params.insert_mean = 300;
  options.params.insert_sd = 30;
  // Each end's primary record: (position, proper) by name and end; position 0 when unmapped.
  auto primaries = [&](bool skip_pairing, bool skip_rescue) {
    options.params.skip_pairing = skip_pairing;
    options.params.skip_rescue = skip_rescue;
    options.out = dir.file("p.sam");
    run_map(options);
    std::istringstream lines(slurp(options.out));
    std::map<std::string, std::pair<long, bool>> out;
    std::string line, name, chr;
    int flag = 0;
    long pos = 0;
    while (std::getline(lines, line))
      if (line[0] != '@' && (std::istringstream(line) >> name >> flag >> chr >> pos) && !(flag & 0x900))
        out[name + ((flag & 0x40) ? "/1" : "/2")] = {(flag & 4) ? 0 : pos, (flag & 2) != 0};
    return out;
  };
  auto paired = primaries(false, false), own = primaries(true, false), no_rescue = primaries(true, true);
  EXPECT_EQ(paired["p/1"], std::pair(2001L, true));
  EXPECT_EQ(own["p/1"], std::pair(15001L, false));
  EXPECT_EQ(no_rescue["p/1"], std::pair(15001L, false));
  EXPECT_EQ(paired["q/2"], std::pair(8201L, true));
  EXPECT_EQ(own["q/2"], std::pair(8201L, true));
  EXPECT_EQ(no_rescue["q/2"].first, 0) << "-S placed a mate that only rescue finds";
  EXPECT_EQ(paired["t/2"], std::pair(11276L, true));
  EXPECT_EQ(own["t/2"].first, 0) << "an end under -T placed unpaired";
}

// The same records on every device and at any thread count (the GPU kernel is exact).
TEST(MapRun, GpuWritesWhatTheCpuWrites) {
  if (engine::usable_gpus().empty()) GTEST_SKIP() << "SKIPPED: no usable GPU: " << engine::gpu_unavailable_reason();
  test::TempDir dir;
  const SimulatedPairs files = simulate_pairs(dir, 12, 3000);
  MapOptions options = options_for(files);
  auto records = [&](engine::DeviceChoice device, unsigned threads) {
    options.device = device;
    options.threads = threads;
    options.out = dir.file("out.sam");
    run_map(options);
    return slurp(options.out);
  };
  const std::string cpu = records(engine::DeviceChoice::cpu, 2);
  EXPECT_EQ(records(engine::DeviceChoice::gpu, 1), cpu);
  EXPECT_EQ(records(engine::DeviceChoice::gpu, 3), cpu);
  EXPECT_EQ(records(engine::DeviceChoice::all, 4), cpu);
  // Hundreds of small batches: auto and all map the first on the CPU while the GPU starts, take the
  // GPU between batches, and auto may go back to the CPU after its trial.
  options.batch_bases = 2000;
  const std::string small_batches = records(engine::DeviceChoice::cpu, 2);
  EXPECT_EQ(records(engine::DeviceChoice::automatic, 4), small_batches);
  EXPECT_EQ(records(engine::DeviceChoice::all, 4), small_batches);
}

}  // namespace
}  // namespace hyalign::map

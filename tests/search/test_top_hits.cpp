// The top-k merge of --split-database: tables filled from the chunks each rank was dealt, packed
// and merged at rank 0, hold what one table offered every chunk holds: the same hits in the same
// order (ties to the earlier database sequence) with the same details, whatever the merge order.
#include "search/top_hits.hpp"

#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "search/split_database.hpp"

using namespace hyalign;
using search::DatabaseShare;
using search::TopHits;

namespace {

constexpr std::size_t kQueries = 7, kChunks = 12, kPerChunk = 5;

// Chunk c holds database sequences c * kPerChunk ... in decreasing order, as a length sort may leave them.
std::vector<CodedSequences> make_chunks() {
  std::vector<CodedSequences> chunks(kChunks);
  for (std::size_t c = 0; c < kChunks; ++c)
    for (std::size_t i = kPerChunk; i-- > 0;) {
      const std::size_t id = c * kPerChunk + i;
      const std::vector<std::uint8_t> letters(id % 9 + 1, 3);
      chunks[c].add(fmt::format("t{}", id), letters, id);
    }
  return chunks;
}

// Scores 0-5: many ties, and zeros, which are never hits.
std::vector<std::vector<int>> make_scores() {
  std::mt19937 rng(42);
  std::vector<std::vector<int>> scores(kQueries, std::vector<int>(kChunks * kPerChunk));
  for (auto& row : scores)
    for (int& s : row) s = static_cast<int>(rng() % 6);
  return scores;
}

// Details a traceback would find: a function of the query and the hit alone.
search::HitDetails details_of(std::size_t q, const engine::ScoredTarget& hit) {
  search::HitDetails d{fmt::format("t{}", hit.target), hit.target % 9 + 1, {}, std::string(hit.target % 4 + 1, 'a')};
  d.alignment = {hit.score, q, q + 300, hit.target, hit.target + 1, q + 2, 1, 1, hit.target % 3, q % 2, "1M1D"};
  return d;
}

// The table of the rank dealt chunks c with c % ranks == rank.
TopHits table_of_rank(std::size_t rank, std::size_t ranks, std::size_t k) {
  static const std::vector<CodedSequences> chunks = make_chunks();
  static const std::vector<std::vector<int>> scores = make_scores();
  TopHits top(kQueries, k);
  for (std::size_t c = rank; c < kChunks; c += ranks) {
    for (std::size_t q = 0; q < kQueries; ++q) {
      std::vector<int> row;
      for (std::size_t id : chunks[c].ids) row.push_back(scores[q][id]);
      top.offer(q, row.data(), 0, row.size(), chunks[c]);
    }
    for (const TopHits::NewHit& h : top.make_room_for_new_hits()) *h.details = details_of(h.query, h.hit);
  }
  return top;
}

void expect_same_tables(const TopHits& merged, const TopHits& one) {
  for (std::size_t q = 0; q < kQueries; ++q) {
    const auto a = merged.of(q), b = one.of(q);
    ASSERT_EQ(a.size(), b.size()) << "query " << q;
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].score, b[i].score) << "query " << q << " hit " << i;
      EXPECT_EQ(a[i].target, b[i].target) << "query " << q << " hit " << i;
      const search::HitDetails &x = merged.details(q, a[i].target), &y = one.details(q, b[i].target);
      EXPECT_EQ(x.title, y.title);
      EXPECT_EQ(x.length, y.length);
      EXPECT_EQ(x.target_codes, y.target_codes);
      const kernels::SwAlignment &s = x.alignment, &t = y.alignment;
      EXPECT_EQ(std::tie(s.score, s.query_start, s.query_end, s.target_start, s.target_end, s.length, s.identities,
                         s.mismatches, s.gap_opens, s.gap_columns, s.cigar),
                std::tie(t.score, t.query_start, t.query_end, t.target_start, t.target_end, t.length, t.identities,
                         t.mismatches, t.gap_opens, t.gap_columns, t.cigar));
    }
  }
}

void expect_merge_gives_one_table(std::size_t ranks, std::size_t k, bool reverse_order) {
  SCOPED_TRACE(testing::Message() << ranks << " ranks, k " << k << (reverse_order ? ", merged last rank first" : ""));
  TopHits merged = table_of_rank(0, ranks, k);
  for (std::size_t i = 1; i < ranks; ++i) {
    const std::size_t rank = reverse_order ? ranks - i : i;
    DatabaseShare share;
    share.chunks_seen = kChunks;
    const DatabaseShare arrived = search::merge_packed_share(search::pack_share(share, table_of_rank(rank, ranks, k)),
                                                             merged);
    EXPECT_EQ(arrived.chunks_seen, kChunks);
  }
  expect_same_tables(merged, table_of_rank(0, 1, k));
}

TEST(SplitDatabase, MergedTopHitsAreThoseOfOneProcess) {
  // k = 1; k below the hits per rank; k = 40, above the 20 (or fewer) targets a rank of 3 holds.
  for (std::size_t ranks : {2, 3})
    for (std::size_t k : {1, 4, 40})
      for (bool reverse_order : {false, true}) expect_merge_gives_one_table(ranks, k, reverse_order);
}

TEST(SplitDatabase, SharesTravelWithTheirCountsAndLetters) {
  DatabaseShare a, b;
  a.chunks_seen = b.chunks_seen = 300;
  a.chunks = 150, a.sequences = 1u << 20, a.residues = std::size_t{5} << 33, a.peak_memory_mib = 77;
  a.unknown.add('J', 3);
  a.unknown.add('\x01');
  b.chunks = 150, b.sequences = 2, b.residues = 9;
  b.unknown.add('J', 200);
  TopHits empty(kQueries, 3), into(kQueries, 3);
  const DatabaseShare back = search::merge_packed_share(search::pack_share(a, empty), into);
  EXPECT_EQ(std::tie(back.chunks_seen, back.chunks, back.sequences, back.residues, back.peak_memory_mib),
            std::tie(a.chunks_seen, a.chunks, a.sequences, a.residues, a.peak_memory_mib));
  EXPECT_EQ(back.unknown.list(), a.unknown.list());
  const DatabaseShare total = search::summed({back, b});
  EXPECT_EQ(total.chunks_seen, 300u);
  EXPECT_EQ(total.chunks, 300u);
  EXPECT_EQ(total.sequences, (1u << 20) + 2);
  EXPECT_EQ(total.residues, (std::size_t{5} << 33) + 9);
  EXPECT_EQ(total.unknown.list(), "\\x01 ×1, J ×203");
}

}  // namespace

// Tracebacks found while a chunk is still scored (ChunkTracebacks::trace_listed after each take)
// give every hit exactly the details that tracing them all at the chunk's end gives, whichever
// takes and threads offered the scores and however the lists changed meanwhile.
#include "search/tracebacks.hpp"

#include <random>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/score_matrix.hpp"
#include "kernels/scalar/sw_scalar.hpp"

using namespace hyalign;
using namespace hyalign::search;

namespace {

// Random protein letters, sequences 1-120 long; chunk ids start at `first_id`.
CodedSequences random_sequences(std::mt19937& rng, std::size_t count, std::size_t first_id, const std::string& prefix) {
  CodedSequences sequences;
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<std::uint8_t> letters(1 + rng() % 120);
    for (auto& c : letters) c = static_cast<std::uint8_t>(rng() % 20);
    sequences.add(fmt::format("{}{} description", prefix, i), letters, first_id + i);
  }
  return sequences;
}

// Every query's scores against the chunk, offered in `takes` slices of the chunk; after each,
// with `early`, the listed hits are traced from one of two threads.
void offer_in_takes(TopHits& top, const CodedSequences& queries, const CodedSequences& chunk,
                    const std::vector<std::vector<int>>& scores, std::size_t takes, ChunkTracebacks* early) {
  const std::size_t per_take = (chunk.size() + takes - 1) / takes;
  std::vector<std::thread> threads;
  for (std::size_t first = 0; first < chunk.size(); first += per_take) {
    const std::size_t count = std::min(per_take, chunk.size() - first);
    for (std::size_t q = 0; q < queries.size(); ++q) top.offer(q, scores[q].data() + first, first, count, chunk);
    if (early) threads.emplace_back([&] { early->trace_listed(top); });
  }
  for (auto& t : threads) t.join();
}

}  // namespace

TEST(ChunkTracebacks, EarlyTracebacksEqualThoseAtTheEnd) {
  std::mt19937 rng(99);
  const ScoreMatrix matrix = ScoreMatrix::builtin("blosum62");
  const kernels::SwScoring scoring{&matrix, 11, 1};
  const CodedSequences queries = random_sequences(rng, 23, 0, "q");
  const CodedSequences chunk = random_sequences(rng, 400, 1000, "t");
  std::vector<std::vector<int>> scores(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (std::size_t t = 0; t < chunk.size(); ++t)
      scores[q].push_back(kernels::sw_score_scalar(queries.sequence(q), chunk.sequence(t), scoring));

  for (const bool letters : {false, true}) {
    const TracebackSetup setup{queries, scoring, engine::KernelChoice::automatic, 3, letters};
    TopHits want(queries.size(), 5), got(queries.size(), 5);
    {
      ChunkTracebacks at_end(setup, chunk);
      offer_in_takes(want, queries, chunk, scores, 1, nullptr);
      at_end.finish(want);
    }
    {
      ChunkTracebacks early(setup, chunk);
      offer_in_takes(got, queries, chunk, scores, 9, &early);
      early.finish(got);
    }
    for (std::size_t q = 0; q < queries.size(); ++q) {
      ASSERT_EQ(got.of(q).size(), want.of(q).size());
      for (std::size_t h = 0; h < want.of(q).size(); ++h) {
        const std::size_t target = want.of(q)[h].target;
        ASSERT_EQ(got.of(q)[h].target, target);
        const HitDetails &a = got.details(q, target), &b = want.details(q, target);
        const std::string where = fmt::format("query {} hit {}", q, h);
        EXPECT_EQ(a.title, b.title) << where;
        EXPECT_EQ(a.length, b.length) << where;
        EXPECT_EQ(a.alignment.score, b.alignment.score) << where;
        EXPECT_EQ(a.alignment.cigar, b.alignment.cigar) << where;
        EXPECT_EQ(a.alignment.target_start, b.alignment.target_start) << where;
        EXPECT_EQ(a.target_codes, b.target_codes) << where;
        EXPECT_FALSE(a.alignment.cigar.empty()) << where;
      }
    }
  }
}

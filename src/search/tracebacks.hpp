#pragma once
// Step 5 of a search: the details of each top hit (its alignment, the target's title and length),
// found while the hit's database chunk is in memory. With GPUs most are found while the chunk is
// still scored: after each GPU take, the chunk's hits then listed are traced back on a thread of
// their own beside the next take (the GPU's feeding leaves the cores idle), so that once the chunk
// is scored only the hits of its last take are left (on one H200, 1,000 queries against 570,000
// sequences left 0.34-0.40 s of 16 cores after 18 s of scoring). A hit traced early that leaves
// the lists again was traced for nothing; a hit's details depend on nothing but the hit.
#include <cstddef>
#include <exception>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "core/sequence_batch.hpp"
#include "engine/cpu_features.hpp"
#include "kernels/sw_kernel.hpp"
#include "search/top_hits.hpp"

namespace hyalign::search {

struct TracebackSetup {
  const CodedSequences& queries;
  kernels::SwScoring scoring;
  engine::KernelChoice kernel;  // the user's --kernel, which tracebacks honour too
  unsigned threads;
  // Each hit keeps the target's aligned stretch for the qseq, sseq and positive columns (only when
  // the format shows them: with -k 1000 and many queries, the stretches would outweigh the rest).
  bool keep_target_letters;
};

// The tracebacks of one chunk's hits.
class ChunkTracebacks {
 public:
  ChunkTracebacks(const TracebackSetup& setup, const CodedSequences& chunk);
  ~ChunkTracebacks();  // waits for the early tracing under way
  ChunkTracebacks(const ChunkTracebacks&) = delete;
  ChunkTracebacks& operator=(const ChunkTracebacks&) = delete;

  // After a take's scores are offered to `top`: the chunk's hits it lists now that are not traced
  // yet are traced back on a thread of their own (or, with tracing under way, once that is done).
  // Returns at once; from any thread.
  void trace_listed(const TopHits& top);
  // Once the chunk is scored: every hit it brought into `top`'s lists gets its details, traced
  // early or now. Rethrows what the early tracing threw.
  void finish(TopHits& top);

 private:
  using Key = std::pair<std::size_t, std::size_t>;  // (query, target id)
  using Hit = std::pair<std::size_t, engine::ScoredTarget>;  // (query, hit)
  HitDetails trace(std::size_t query, const engine::ScoredTarget& hit) const;
  std::vector<HitDetails> trace_all(const std::vector<Hit>& hits) const;  // in `hits`' order
  std::size_t cells(std::size_t query, std::size_t target) const;
  void trace_early(const TopHits& top);
  void wait_for_early();

  const TracebackSetup setup_;
  const CodedSequences& chunk_;
  std::size_t first_id_ = 0;
  std::vector<std::size_t> index_of_id_;  // ids of a chunk are consecutive (SequenceSource)
  std::mutex mutex_;
  std::set<Key> taken_;             // traced early, or being traced
  std::map<Key, HitDetails> early_;  // traced early
  bool running_ = false, again_ = false;
  std::exception_ptr error_;
  std::future<void> job_;
};

}  // namespace hyalign::search

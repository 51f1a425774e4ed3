#pragma once
// The top hits of every query across database chunks: the engine's BestHits (ties to the earlier
// database sequence), filled by all workers at once, and the details of each hit, found while its
// chunk is in memory. With the database split between MPI ranks, rank 0 merges the other ranks'
// lists into its own.
#include <cstddef>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/sequence_batch.hpp"
#include "engine/best_hits.hpp"
#include "kernels/scalar/sw_scalar.hpp"

namespace hyalign::search {

// What a reported hit needs beyond its score.
struct HitDetails {
  std::string title;  // the target's id, then its description
  std::size_t length = 0;
  kernels::SwAlignment alignment;
  std::string target_codes;  // the target's aligned stretch (codes), for the qseq, sseq and positive columns
};

class TopHits {
 public:
  TopHits(std::size_t queries, std::size_t k) : best_(queries, k), locks_(queries), details_(queries) {}

  // Offers the best of one query's scores against targets [first, first + count) of `chunk`.
  // Candidates are cheap (score, index) pairs; only those that can enter the list are offered.
  void offer(std::size_t q, const int* scores, std::size_t first, std::size_t count, const CodedSequences& chunk);

  struct NewHit {
    std::size_t query;
    engine::ScoredTarget hit;
    HitDetails* details;  // empty, to be filled
  };
  // The hits that came from the chunk just scored (those without details), each with room for its
  // details; drops the details of hits that left the lists.
  std::vector<NewHit> make_room_for_new_hits();

  // A hit of query q found by another rank, in its database chunks, with its details.
  struct FoundHit {
    engine::ScoredTarget hit;
    HitDetails details;
  };
  // Folds in query q's hits found elsewhere (targets this table was never offered): the list is
  // then the one a single table offered every hit would hold, whatever the order of merges.
  void merge(std::size_t q, std::vector<FoundHit> found);

  // The hits listed now whose targets are ids [first_id, end_id) (a chunk's), while offers go on.
  std::vector<std::pair<std::size_t, engine::ScoredTarget>> listed_in(std::size_t first_id, std::size_t end_id) const;

  std::size_t queries() const { return best_.size(); }
  std::size_t k() const { return best_.k(); }
  std::span<const engine::ScoredTarget> of(std::size_t q) const { return best_.of(q); }
  const HitDetails& details(std::size_t q, std::size_t target) const { return details_[q].at(target); }

 private:
  // Keeps the details of query q's listed hits and drops those of hits that left the list; a
  // listed hit without details gets missing(hit).
  template <class Missing>
  void keep_listed_details(std::size_t q, Missing missing);

  engine::BestHits best_;
  mutable std::vector<std::mutex> locks_;
  std::vector<std::unordered_map<std::size_t, HitDetails>> details_;
};

}  // namespace hyalign::search

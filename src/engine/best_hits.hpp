#pragma once
// The result every scoring run reduces to: the best k targets of each query. PaPaRa keeps its best
// branch per query (k = 1), search its top hits (k = -k/--top): two policies of one type. Ties go
// to the lower target index, so tables filled by any devices in any order and merged in any order
// give the same lists; a table is also what MPI ranks will exchange and merge.
#include <climits>
#include <cstdint>
#include <cstddef>
#include <span>
#include <vector>

namespace hyalign::engine {

struct ScoredTarget {
  int score = INT_MIN;
  std::size_t target = 0;
};

// Higher score first; among equal scores, the lower target index.
inline bool ranks_before(const ScoredTarget& a, const ScoredTarget& b) {
  return a.score != b.score ? a.score > b.score : a.target < b.target;
}

// Receives every (query, target) score a kernel computes.
class ScoreSink {
 public:
  virtual ~ScoreSink() = default;
  virtual void offer(std::size_t query, int score, std::size_t target) = 0;
  // The scores of targets first_target .. first_target + count - 1 for one query.
  virtual void offer_row(std::size_t query, const int* scores, std::size_t first_target, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) offer(query, scores[i], first_target + i);
  }
};

// Storage: k = 1 (PaPaRa, up to millions of reads) keeps one flat hit per query, so a table costs
// one allocation and merges in one pass; larger k keeps a sorted list per query.
class BestHits final : public ScoreSink {
 public:
  BestHits(std::size_t queries, std::size_t k) : k_(k < 1 ? 1 : k), queries_(queries) {
    if (k_ == 1) best_.assign(queries, ScoredTarget{INT_MIN, kNone});
    else lists_.resize(queries);
  }

  void offer(std::size_t query, int score, std::size_t target) override { add(query, {score, target}); }
  // A row is folded in one pass; with k = 1 only its best (first highest) score is offered.
  void offer_row(std::size_t query, const int* scores, std::size_t first_target, std::size_t count) override {
    if (k_ > 1) {
      for (std::size_t i = 0; i < count; ++i) add(query, {scores[i], first_target + i});
      return;
    }
    std::size_t best = 0;
    for (std::size_t i = 1; i < count; ++i)
      if (scores[i] > scores[best]) best = i;
    if (count > 0) add(query, {scores[best], first_target + best});
  }
  // The score a new target must reach to enter the query's list (INT_MIN while the list has room).
  int floor(std::size_t query) const {
    const auto list = of(query);
    return list.size() == k_ ? list.back().score : INT_MIN;
  }
  std::span<const ScoredTarget> of(std::size_t query) const {
    if (k_ == 1) return {&best_[query], best_[query].target == kNone ? 0u : 1u};
    return lists_[query];
  }
  void merge(const BestHits& other) { merge(other, 0, queries_); }
  // Merges the lists of queries first .. end - 1 only: threads can merge disjoint ranges.
  void merge(const BestHits& other, std::size_t first, std::size_t end) {
    for (std::size_t q = first; q < end; ++q)
      for (const ScoredTarget& hit : other.of(q)) add(q, hit);
  }
  std::size_t size() const { return queries_; }
  std::size_t k() const { return k_; }

 private:
  static constexpr std::size_t kNone = SIZE_MAX;  // target of an empty k = 1 slot

  void add(std::size_t query, const ScoredTarget& hit) {
    if (k_ == 1) {
      ScoredTarget& best = best_[query];
      if (best.target == kNone || ranks_before(hit, best)) best = hit;
      return;
    }
    std::vector<ScoredTarget>& list = lists_[query];
    if (list.size() == k_ && !ranks_before(hit, list.back())) return;
    auto at = list.end();
    while (at != list.begin() && ranks_before(hit, *(at - 1))) --at;
    list.insert(at, hit);
    if (list.size() > k_) list.pop_back();
  }

  std::size_t k_, queries_;
  std::vector<ScoredTarget> best_;                 // k = 1
  std::vector<std::vector<ScoredTarget>> lists_;  // k > 1
};

}  // namespace hyalign::engine

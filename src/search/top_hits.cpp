#include "search/top_hits.hpp"

#include <algorithm>
#include <climits>
#include <functional>
#include <utility>

namespace hyalign::search {
namespace {

// The k-th highest of scores[0, count), or INT_MIN when there are no more than k: no target
// below it can enter a list of k. A heap of k scores, which random scores rarely change, so
// the first rows of a search (whose floor is still 1) do not gather nearly every target (a GPU
// take of 20 x 570,000 scores spent 0.10-0.16 s in offers on 16 threads).
int kth_best(const int* scores, std::size_t count, std::size_t k) {
  if (count <= k) return INT_MIN;
  std::vector<int> heap(scores, scores + k);
  std::make_heap(heap.begin(), heap.end(), std::greater<>());
  for (std::size_t t = k; t < count; ++t)
    if (scores[t] > heap.front()) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<>());
      heap.back() = scores[t];
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
    }
  return heap.front();
}

}  // namespace

void TopHits::offer(std::size_t q, const int* scores, std::size_t first, std::size_t count,
                    const CodedSequences& chunk) {
  int floor;  // a hit must reach this (and beat it, or tie it and come earlier in the database)
  {
    std::lock_guard lock(locks_[q]);
    floor = std::max(1, best_.floor(q));
  }
  floor = std::max(floor, kth_best(scores, count, best_.k()));
  std::vector<std::pair<int, std::size_t>> candidates;
  for (std::size_t t = 0; t < count; ++t)
    if (scores[t] >= floor) candidates.emplace_back(scores[t], first + t);
  const auto by_rank = [&](const auto& a, const auto& b) {
    return engine::ranks_before({a.first, chunk.ids[a.second]}, {b.first, chunk.ids[b.second]});
  };
  if (candidates.size() > best_.k()) {
    std::nth_element(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(best_.k()),
                     candidates.end(), by_rank);
    candidates.resize(best_.k());
  }
  std::lock_guard lock(locks_[q]);
  for (const auto& [score, index] : candidates) best_.offer(q, score, chunk.ids[index]);
}

std::vector<std::pair<std::size_t, engine::ScoredTarget>> TopHits::listed_in(std::size_t first_id,
                                                                           std::size_t end_id) const {
  std::vector<std::pair<std::size_t, engine::ScoredTarget>> listed;
  for (std::size_t q = 0; q < best_.size(); ++q) {
    std::lock_guard lock(locks_[q]);
    for (const engine::ScoredTarget& hit : best_.of(q))
      if (hit.target >= first_id && hit.target < end_id) listed.emplace_back(q, hit);
  }
  return listed;
}

template <class Missing>
void TopHits::keep_listed_details(std::size_t q, Missing missing) {
  std::unordered_map<std::size_t, HitDetails> kept;
  for (const engine::ScoredTarget& hit : best_.of(q)) {
    const auto old = details_[q].find(hit.target);
    kept.emplace(hit.target, old != details_[q].end() ? std::move(old->second) : missing(hit));
  }
  details_[q] = std::move(kept);
}

std::vector<TopHits::NewHit> TopHits::make_room_for_new_hits() {
  std::vector<NewHit> fresh;
  for (std::size_t q = 0; q < details_.size(); ++q)
    keep_listed_details(q, [&](const engine::ScoredTarget& hit) {
      fresh.push_back({q, hit, nullptr});
      return HitDetails{};
    });
  for (NewHit& h : fresh) h.details = &details_[h.query].at(h.hit.target);  // the maps are in place now
  return fresh;
}

void TopHits::merge(std::size_t q, std::vector<FoundHit> found) {
  std::unordered_map<std::size_t, HitDetails*> arrived;
  for (FoundHit& f : found) {
    best_.offer(q, f.hit.score, f.hit.target);
    arrived.emplace(f.hit.target, &f.details);
  }
  keep_listed_details(q, [&](const engine::ScoredTarget& hit) { return std::move(*arrived.at(hit.target)); });
}

}  // namespace hyalign::search

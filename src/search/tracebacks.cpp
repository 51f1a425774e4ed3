#include "search/tracebacks.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "core/parallel.hpp"

namespace hyalign::search {

ChunkTracebacks::ChunkTracebacks(const TracebackSetup& setup, const CodedSequences& chunk)
    : setup_(setup), chunk_(chunk), index_of_id_(chunk.size()) {
  first_id_ = chunk.empty() ? 0 : *std::min_element(chunk.ids.begin(), chunk.ids.end());
  for (std::size_t i = 0; i < chunk.size(); ++i) index_of_id_[chunk.ids[i] - first_id_] = i;
}

ChunkTracebacks::~ChunkTracebacks() {
  if (job_.valid()) job_.wait();
}

std::size_t ChunkTracebacks::cells(std::size_t query, std::size_t target) const {
  return setup_.queries.length(query) * chunk_.length(index_of_id_[target - first_id_]);
}

HitDetails ChunkTracebacks::trace(std::size_t query, const engine::ScoredTarget& hit) const {
  const std::size_t index = index_of_id_[hit.target - first_id_];
  HitDetails details{std::string(chunk_.name(index)), chunk_.length(index),
                     kernels::sw_align_hit(setup_.queries.sequence(query), chunk_.sequence(index), setup_.scoring,
                                           hit.score, setup_.kernel),
                     {}};
  const kernels::SwAlignment& a = details.alignment;
  if (setup_.keep_target_letters && a.length > 0) {
    const auto aligned = chunk_.sequence(index).subspan(a.target_start - 1, a.target_end - a.target_start + 1);
    details.target_codes.assign(aligned.begin(), aligned.end());
  }
  if (a.score != hit.score)
    throw std::logic_error(fmt::format("query {}: traceback score {} differs from score {}", query, a.score, hit.score));
  return details;
}

void ChunkTracebacks::trace_listed(const TopHits& top) {
  std::lock_guard lock(mutex_);
  if (running_ || error_) {
    again_ = running_;
    return;
  }
  running_ = true;
  if (job_.valid()) job_.wait();  // the last job, done but for its return
  job_ = std::async(std::launch::async, [this, &top] { trace_early(top); });
}

void ChunkTracebacks::trace_early(const TopHits& top) {
  try {
    for (;;) {
      std::vector<Hit> todo;
      {
        const auto listed = top.listed_in(first_id_, first_id_ + chunk_.size());
        std::lock_guard lock(mutex_);
        for (const auto& [query, hit] : listed)
          if (taken_.insert({query, hit.target}).second) todo.emplace_back(query, hit);
      }
      std::vector<HitDetails> found = trace_all(todo);
      std::lock_guard lock(mutex_);
      for (std::size_t k = 0; k < todo.size(); ++k)
        early_.emplace(Key{todo[k].first, todo[k].second.target}, std::move(found[k]));
      if (!again_) {
        running_ = false;
        return;
      }
      again_ = false;
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    error_ = std::current_exception();
    running_ = false;
  }
}

void ChunkTracebacks::wait_for_early() {
  std::future<void> job;
  {
    std::lock_guard lock(mutex_);
    job = std::move(job_);
  }
  if (job.valid()) job.wait();
  if (error_) std::rethrow_exception(error_);
}

void ChunkTracebacks::finish(TopHits& top) {
  wait_for_early();
  std::vector<Hit> late;
  std::vector<HitDetails*> late_details;
  for (const TopHits::NewHit& h : top.make_room_for_new_hits()) {
    const auto found = early_.find({h.query, h.hit.target});
    if (found != early_.end()) {
      *h.details = std::move(found->second);
    } else {
      late.emplace_back(h.query, h.hit);
      late_details.push_back(h.details);
    }
  }
  std::vector<HitDetails> found = trace_all(late);
  for (std::size_t k = 0; k < late.size(); ++k) *late_details[k] = std::move(found[k]);
}

std::vector<HitDetails> ChunkTracebacks::trace_all(const std::vector<Hit>& hits) const {
  // The largest first, on every thread, so that a long one does not run alone at the end.
  std::vector<std::size_t> order(hits.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return cells(hits[a].first, hits[a].second.target) > cells(hits[b].first, hits[b].second.target);
  });
  std::vector<HitDetails> details(hits.size());
  parallel_for(order.size(), setup_.threads, [&](std::size_t k, unsigned) {
    const Hit& h = hits[order[k]];
    details[order[k]] = trace(h.first, h.second);
  });
  return details;
}

}  // namespace hyalign::search

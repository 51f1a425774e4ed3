#include "papara/alignment.hpp"

#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "kernels/papara_align.hpp"

namespace hyalign::papara {
namespace {
// Queries aligned at once while the scoring goes on: enough to fill the SIMD lanes with queries of
// similar length and every thread with batches; the last ones are aligned once scoring ends.
constexpr std::size_t kQueriesPerBatch = 2048;
}  // namespace

QueryAligner::QueryAligner(engine::KernelChoice kernel, const kernels::PaparaProblem& problem, unsigned threads)
    : kernel_(kernel), problem_(problem), threads_(std::max(1u, threads)), placements_(problem.queries->size()),
      branch_of_query_(placements_.size()), alignments_(placements_.size()),
      thread_([this] { align_while_scoring(); }) {}

QueryAligner::~QueryAligner() { stop(); }

void QueryAligner::stop() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  ready_or_done_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void QueryAligner::placed(std::span<const std::size_t> queries, const std::vector<Placement>& placements) {
  std::size_t waiting = 0;
  {
    std::lock_guard lock(mutex_);
    for (const std::size_t q : queries) {
      placements_[q] = placements[q];
      branch_of_query_[q] = placements_[q].branch;
      ready_.push_back(q);
    }
    waiting = ready_.size();
  }
  if (waiting >= kQueriesPerBatch) ready_or_done_.notify_one();
}

void QueryAligner::align_while_scoring() {
  try {
    for (;;) {
      std::vector<std::size_t> batch;
      {
        std::unique_lock lock(mutex_);
        ready_or_done_.wait(lock, [&] { return done_ || ready_.size() >= kQueriesPerBatch; });
        if (done_) return;
        batch.swap(ready_);
      }
      align(batch);
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    error_ = std::current_exception();
  }
}

void QueryAligner::align(const std::vector<std::size_t>& which) {
  kernels::papara_align_queries(kernel_, problem_, branch_of_query_, which, threads_, alignments_);
  const StateSequences& queries = *problem_.queries;
  for (const std::size_t q : which)
    if (!queries.sequence(q).empty() && alignments_[q].score != placements_[q].score)
      throw std::logic_error(fmt::format("query '{}': traceback score {} differs from scoring-phase score {}",
                                         queries.name(q), alignments_[q].score, placements_[q].score));
}

std::vector<kernels::PaparaAlignment> QueryAligner::finish() {
  stop();
  if (error_) std::rethrow_exception(error_);
  align(ready_);
  ready_.clear();
  return std::move(alignments_);
}

}  // namespace hyalign::papara

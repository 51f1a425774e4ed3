#pragma once
// Trace-back step: each query aligned to its best branch, with the score the scoring step found.
// It runs beside the scoring step: a query is aligned as soon as every branch has scored it
// (place_queries' QueriesPlaced), in batches, on a thread of its own. On GPUs, whose feeding
// leaves the cores idle, little of it is then left once the scoring ends (papara on one H200:
// 0.25 s of 16 cores after 7.8 s of scoring, the time a second GPU could not halve).
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "engine/cpu_features.hpp"
#include "kernels/papara_kernel.hpp"
#include "papara/placement.hpp"

namespace hyalign::papara {

class QueryAligner {
 public:
  // Aligns `problem`'s queries with the CPU kernel `kernel` on `threads` threads.
  QueryAligner(engine::KernelChoice kernel, const kernels::PaparaProblem& problem, unsigned threads);
  ~QueryAligner();
  QueryAligner(const QueryAligner&) = delete;
  QueryAligner& operator=(const QueryAligner&) = delete;

  // `queries` are placed (their entries of `placements`): from any scoring worker.
  void placed(std::span<const std::size_t> queries, const std::vector<Placement>& placements);
  // Once every query is placed: aligns those still waiting; returns every query's alignment.
  // Rethrows what the aligning threw (a traceback whose score differs from the scoring step's).
  std::vector<kernels::PaparaAlignment> finish();

 private:
  void align_while_scoring();
  void align(const std::vector<std::size_t>& which);
  void stop();

  const engine::KernelChoice kernel_;
  const kernels::PaparaProblem& problem_;
  const unsigned threads_;
  std::vector<Placement> placements_;
  std::vector<std::size_t> branch_of_query_;
  std::vector<kernels::PaparaAlignment> alignments_;
  std::mutex mutex_;
  std::condition_variable ready_or_done_;
  std::vector<std::size_t> ready_;  // placed, not yet aligned
  bool done_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace hyalign::papara

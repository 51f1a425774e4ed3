// Extension kernel dispatch: the scalar reference kernel and the per-ISA SIMD kernels.
#include "kernels/extend_kernel.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/simd/extend_simd.hpp"

namespace hyalign::kernels {
namespace {

class ScalarExtendScorer final : public ExtendScorer {
 public:
  explicit ScalarExtendScorer(const ExtendScoring& scoring) : scoring_(scoring) {}
  void score(std::span<const ExtendTask> tasks, std::span<ExtendScore> results) override {
    for (std::size_t k = 0; k < tasks.size(); ++k) results[k] = extend_score_scalar(tasks[k], scoring_);
  }

 private:
  ExtendScoring scoring_;
};

class ScalarExtendKernel final : public ExtendKernel {
 public:
  explicit ScalarExtendKernel(const ExtendScoring& scoring) : scoring_(scoring) {}
  std::string_view name() const override { return "scalar"; }
  std::size_t lanes() const override { return 1; }
  std::unique_ptr<ExtendScorer> make_scorer() const override {
    return std::make_unique<ScalarExtendScorer>(scoring_);
  }

 private:
  ExtendScoring scoring_;
};

class FallbackScorer final : public ExtendScorer {
 public:
  FallbackScorer(std::unique_ptr<ExtendScorer> primary, std::unique_ptr<ExtendScorer> backup,
                 std::function<void(const std::string&)> on_failure, PrimaryShare share)
      : primary_(std::move(primary)), backup_(std::move(backup)), on_failure_(std::move(on_failure)),
        share_(std::move(share)) {}

  void score(std::span<const ExtendTask> tasks, std::span<ExtendScore> results) override {
    split(tasks);
    if (!primary_ || mine_.size() < std::max<std::size_t>(share_.least, 1)) {
      backup_->score(tasks, results);
      return;
    }
    if (others_.empty()) {
      if (!on_primary(tasks, results)) backup_->score(tasks, results);
      return;
    }
    gather(tasks, mine_, part_tasks_);
    part_results_.resize(mine_.size());
    if (!on_primary(part_tasks_, part_results_)) {
      backup_->score(tasks, results);
      return;
    }
    scatter(part_results_, mine_, results);
    gather(tasks, others_, part_tasks_);
    part_results_.resize(others_.size());
    backup_->score(part_tasks_, part_results_);
    scatter(part_results_, others_, results);
  }

 private:
  void split(std::span<const ExtendTask> tasks) {
    mine_.clear(), others_.clear();
    for (std::size_t k = 0; k < tasks.size(); ++k) (!share_.takes || share_.takes(tasks[k]) ? mine_ : others_).push_back(k);
  }
  static void gather(std::span<const ExtendTask> tasks, const std::vector<std::size_t>& ids, std::vector<ExtendTask>& out) {
    out.clear();
    for (std::size_t k : ids) out.push_back(tasks[k]);
  }
  static void scatter(const std::vector<ExtendScore>& part, const std::vector<std::size_t>& ids, std::span<ExtendScore> results) {
    for (std::size_t k = 0; k < ids.size(); ++k) results[ids[k]] = part[k];
  }
  // False when the primary failed (it is then dropped for good).
  bool on_primary(std::span<const ExtendTask> tasks, std::span<ExtendScore> results) {
    try {
      primary_->score(tasks, results);
      return true;
    } catch (const std::exception& e) {
      primary_.reset();
      if (on_failure_) on_failure_(e.what());
      return false;
    }
  }

  std::unique_ptr<ExtendScorer> primary_, backup_;
  std::function<void(const std::string&)> on_failure_;
  PrimaryShare share_;
  std::vector<std::size_t> mine_, others_;
  std::vector<ExtendTask> part_tasks_;
  std::vector<ExtendScore> part_results_;
};

}  // namespace

int extend_lane_bits(const ExtendTask& task, const ExtendScoring& scoring) {
  const auto length = static_cast<long long>(task.query.size());
  const long long most = std::max(scoring.max_score(task.query.size()), length);  // rows are counted in the lanes too
  return most <= 0xff ? 8 : most <= 0xffff ? 16 : 32;
}

std::unique_ptr<ExtendScorer> with_cpu_fallback(std::unique_ptr<ExtendScorer> primary, std::unique_ptr<ExtendScorer> backup,
                                                std::function<void(const std::string&)> on_failure, PrimaryShare share) {
  return std::make_unique<FallbackScorer>(std::move(primary), std::move(backup), std::move(on_failure), std::move(share));
}

std::unique_ptr<ExtendKernel> make_extend_cpu_kernel(engine::KernelChoice choice, const ExtendScoring& scoring) {
  if (scoring.match < 1 || scoring.mismatch < 0 || scoring.ambiguous < 0 || scoring.gap_open < 0 ||
      scoring.gap_extend < 1 || scoring.clip5 < 0 || scoring.clip3 < 0)
    throw UsageError(fmt::format("alignment scores: match must be at least 1, gap extension at least 1 and the "
                                 "others non-negative (match {}, mismatch {}, gap open {}, extend {}, clip {},{})",
                                 scoring.match, scoring.mismatch, scoring.gap_open, scoring.gap_extend,
                                 scoring.clip5, scoring.clip3));
  switch (engine::resolve_cpu_kernel(choice)) {
#if defined(HYALIGN_X86_KERNELS)
    case engine::KernelChoice::avx512: return simd::make_extend_avx512_kernel(scoring);
    case engine::KernelChoice::avx2: return simd::make_extend_avx2_kernel(scoring);
#endif
    default: return std::make_unique<ScalarExtendKernel>(scoring);
  }
}

ExtendAligner extend_cpu_aligner(engine::KernelChoice choice) {
  switch (engine::resolve_cpu_kernel(choice)) {
#if defined(HYALIGN_X86_KERNELS)
    case engine::KernelChoice::avx512: return simd::extend_align_avx512;
    case engine::KernelChoice::avx2: return simd::extend_align_avx2;
#endif
    default: return extend_align_scalar;
  }
}

}  // namespace hyalign::kernels

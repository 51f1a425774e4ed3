#include "papara/papara.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/parallel.hpp"
#include "dist/job.hpp"
#include "dist/ordered_output.hpp"
#include "engine/devices.hpp"
#include "io/atomic_output.hpp"
#include "papara/alignment.hpp"
#include "papara/output.hpp"
#include "papara/placement.hpp"

namespace hyalign::papara {
namespace {

constexpr std::size_t kQueriesPerUnit = 16384;  // the most an MPI rank takes at a time

// The run's outputs, opened before any work so that an unwritable one fails fast: the alignment,
// and without -o PaPaRa's log (a copy of the log lines) and quality files. All are finished (every
// write error seen) before any replaces its target.
class PaparaOutputs {
 public:
  explicit PaparaOutputs(const PaparaOptions& options)
      : compat_files_(!options.out.has_value()),
        alignment_path_(compat_files_ ? "papara_alignment." + options.run_name : *options.out) {
    // PaPaRa refuses a run name whose log exists; hyalign refuses one whose alignment or quality
    // file exists too (a log deleted by hand must not let a finished alignment be replaced).
    std::error_code cannot_look;  // a file that cannot be looked at is found when it is written
    if (compat_files_ && options.run_name != "default" && !options.force)
      for (const char* file : {"papara_log.", "papara_alignment.", "papara_quality."})
        if (std::filesystem::exists(file + options.run_name, cannot_look))
          throw UsageError(fmt::format("{}{} exists: choose another run name (-n) or overwrite with -f", file,
                                       options.run_name));
    if (compat_files_) {
      log_.emplace("papara_log." + options.run_name);
      if (!options.command_line.empty()) log_->write(fmt::format("command: {}\n", options.command_line));
      Log::instance().set_copy([file = &*log_](std::string_view line) { file->write(line); });
    }
    check_uncompressed_name(alignment_path_, "an alignment as text");
    alignment_.emplace(alignment_path_);
    if (compat_files_) quality_.emplace("papara_quality." + options.run_name);
  }
  ~PaparaOutputs() { Log::instance().set_copy({}); }
  PaparaOutputs(const PaparaOutputs&) = delete;
  PaparaOutputs& operator=(const PaparaOutputs&) = delete;

  AtomicOutput& alignment() { return *alignment_; }
  const std::string& alignment_path() const { return alignment_path_; }

  void commit() {
    Log::instance().set_copy({});
    for (auto* out : {&alignment_, &quality_, &log_})
      if (*out) (*out)->finish();
    for (auto* out : {&alignment_, &quality_, &log_})
      if (*out) (*out)->commit();
  }

 private:
  bool compat_files_;
  std::string alignment_path_;
  std::optional<AtomicOutput> log_, alignment_, quality_;  // the log first: it records the opening
};

// Scoring step: the best branch of every query, on the devices --device asks for.
// "N queries", or under MPI "N of the job's M queries" (this rank's share).
std::string queries_text(std::size_t mine, std::size_t all) {
  return mine == all ? fmt::format("{} queries", mine) : fmt::format("{} of the job's {} queries", mine, all);
}

// The scoring step's cells and seconds on this rank: under MPI, rank 0 sums the job's.
struct ScoringWork {
  std::uint64_t cells = 0;
  double seconds = 0;
};

// The queries placed are handed to `aligner` as the scoring goes on.
void score_queries(const PaparaOptions& options, const kernels::PaparaProblem& problem, std::size_t all,
                   Stopwatch& clock, ScoringWork& work, QueryAligner& aligner) {
  place_queries(problem, {options.kernel, options.device},
                [&](std::span<const std::size_t> placed, const std::vector<Placement>& placements) {
                  aligner.placed(placed, placements);
                });
  work.seconds = clock.lap();
  const std::size_t queries = problem.queries->size(), branches = problem.targets.count;
  work.cells = static_cast<std::uint64_t>(problem.queries->total_residues()) * problem.targets.columns * branches;
  const auto cells = static_cast<double>(work.cells);
  log_info("scored {} against {} branches: {:.3g} cells in {:.2f} s ({:.2f} GCUPS)", queries_text(queries, all),
           branches, cells, work.seconds, cells / work.seconds / 1e9);
}

// Under MPI: the whole job's scoring rate, its cells over the slowest rank's seconds (shares' counts:
// queries, cells, microseconds).
void log_job_scoring(const std::vector<dist::RankShare>& shares) {
  if (shares.size() < 2) return;
  double cells = 0, slowest = 0;
  for (const dist::RankShare& share : shares) {
    cells += static_cast<double>(share.counts.at(1));
    slowest = std::max(slowest, static_cast<double>(share.counts.at(2)) / 1e6);
  }
  log_info("scoring on {} ranks: {:.3g} cells, the slowest rank {:.2f} s ({:.2f} GCUPS)", shares.size(), cells, slowest,
           slowest > 0 ? cells / slowest / 1e9 : 0.0);
}

}  // namespace

void run_papara(const PaparaOptions& options) {
  const Alphabet& alphabet = Alphabet::of(options.alphabet);
  std::optional<PaparaOutputs> outputs;  // rank 0's
  if (options.out)
    check_not_an_input(*options.out, std::array{options.inputs.tree, options.inputs.alignment,
                                                options.inputs.queries.value_or("")});
  if (dist::writes_output()) outputs.emplace(options);
  // CUDA starts while MPI's start is awaited (check_same_inputs) and the inputs are read.
  engine::start_gpu_enumeration(options.device);
  dist::check_same_inputs({options.inputs.tree, options.inputs.alignment, options.inputs.queries.value_or("")});
  Stopwatch clock;
  const PaparaInputs inputs =
      load_inputs(options.inputs, alphabet, options.gap_model == GapModel::probabilistic);
  log_info("read {} reference rows × {} columns (after masking), {} tree branches, {} queries ({:.2f} s)",
           inputs.reference.row_count(), inputs.reference.columns, inputs.tree.branch_count(),
           inputs.queries.size(), clock.lap());

  const BranchVectors branches = compute_branch_vectors(inputs, alphabet, options.gap_model, options.threads);
  log_info("ancestral state vectors of {} branches ({:.2f} s)", branches.branches, clock.lap());

  // MPI ranks take the queries in units of consecutive queries of about equal residues, in turn.
  const auto units = dist::ItemUnits::of_sequences(inputs.queries, kQueriesPerUnit);
  StateSequences share;
  const StateSequences& queries = units.share_of(inputs.queries, share);
  const std::size_t all = inputs.queries.size();
  ScoringWork work;
  const kernels::PaparaProblem problem{
      {branches.branches, branches.columns, branches.states.data(), branches.cgap.data()}, &queries, &alphabet,
      options.scoring, options.threads};
  QueryAligner aligner(options.kernel, problem, options.threads);
  score_queries(options, problem, all, clock, work, aligner);
  engine::release_gpus_in_background();  // the queries are aligned on the CPU
  const auto alignments = aligner.finish();
  log_info("aligned {} to their best branches (the last of them in {:.2f} s after the scoring)",
           queries_text(queries.size(), all), clock.lap());

  AtomicOutput* out = outputs ? &outputs->alignment() : nullptr;
  dist::OrderedOutput ordered([&](std::string_view bytes) { out->write(bytes); });
  write_papara_alignment(out, ordered, options.format, inputs, {queries, units, alignments}, alphabet,
                         options.no_reference_gaps, options.threads);
  const auto shares = ordered.finish(
      units.count(), {queries.size(), work.cells, static_cast<std::uint64_t>(std::llround(work.seconds * 1e6))});
  if (!outputs) return;
  outputs->alignment().finish();
  log_info("wrote {} ({:.2f} s); peak memory {:.0f} MiB",
           outputs->alignment_path() == "-" ? "standard output" : outputs->alignment_path(), clock.lap(),
           peak_memory_mib());
  dist::log_shares(shares, 0, "queries", dist::cells_and_seconds(1, 2));
  log_job_scoring(shares);
  outputs->commit();
}

}  // namespace hyalign::papara

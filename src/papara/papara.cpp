#include "papara/papara.hpp"

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/parallel.hpp"
#include "io/atomic_output.hpp"
#include "kernels/papara_align.hpp"
#include "papara/output.hpp"
#include "papara/placement.hpp"

namespace hyalign::papara {
namespace {

class Stopwatch {
 public:
  double lap() {
    auto now = std::chrono::steady_clock::now();
    double s = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return s;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// Resets the log copy when the run ends, however it ends.
struct LogCopyGuard {
  ~LogCopyGuard() { Log::instance().set_copy({}); }
};

}  // namespace

void run_papara(const PaparaOptions& options) {
  const Alphabet& alphabet = Alphabet::of(options.alphabet);
  const bool compat_files = !options.out.has_value();
  const std::string alignment_path = compat_files ? "papara_alignment." + options.run_name : *options.out;
  std::error_code cannot_look;  // a log that cannot be looked at is found when it is written
  if (compat_files && options.run_name != "default" && !options.force &&
      std::filesystem::exists("papara_log." + options.run_name, cannot_look))
    throw UsageError(fmt::format("papara_log.{} exists: choose another run name (-n) or overwrite with -f",
                                 options.run_name));

  std::unique_ptr<AtomicOutput> log_file;
  LogCopyGuard log_guard;
  if (compat_files) {
    log_file = std::make_unique<AtomicOutput>("papara_log." + options.run_name);
    if (!options.command_line.empty()) log_file->write(fmt::format("command: {}\n", options.command_line));
    Log::instance().set_copy([file = log_file.get()](std::string_view line) { file->write(line); });
  }

  // Outputs are opened first: an unwritable one fails before any work.
  AtomicOutput out(alignment_path);
  std::optional<AtomicOutput> quality;
  if (compat_files) quality.emplace("papara_quality." + options.run_name);
  Stopwatch clock;
  const PaparaInputs inputs =
      load_inputs(options.inputs, alphabet, options.gap_model == GapModel::probabilistic);
  log_info("read {} reference rows × {} columns (after masking), {} tree branches, {} queries ({:.2f} s)",
           inputs.reference.row_count(), inputs.reference.columns, inputs.tree.branch_count(),
           inputs.queries.size(), clock.lap());

  const BranchVectors branches = compute_branch_vectors(inputs, alphabet, options.gap_model, options.threads);
  log_info("ancestral state vectors of {} branches ({:.2f} s)", branches.branches, clock.lap());

  const std::vector<Placement> placements =
      place_queries(inputs.queries, alphabet, branches, {options.scoring, options.kernel, options.device, options.threads});
  const double scoring_seconds = clock.lap();
  const double cells = static_cast<double>(inputs.queries.total_residues()) *
                       static_cast<double>(branches.columns) * static_cast<double>(branches.branches);
  log_info("scored {} queries against {} branches: {:.3g} cells in {:.2f} s ({:.2f} GCUPS)", inputs.queries.size(),
           branches.branches, cells, scoring_seconds, cells / scoring_seconds / 1e9);

  std::vector<std::size_t> branches_of_queries(inputs.queries.size());
  for (std::size_t q = 0; q < inputs.queries.size(); ++q) branches_of_queries[q] = placements[q].branch;
  const kernels::PaparaProblem problem{
      {branches.branches, branches.columns, branches.states.data(), branches.cgap.data()}, &inputs.queries,
      &alphabet, options.scoring};
  const std::vector<kernels::PaparaAlignment> alignments =
      kernels::papara_align_all(options.kernel, problem, branches_of_queries, options.threads);
  for (std::size_t q = 0; q < inputs.queries.size(); ++q)
    if (!inputs.queries.sequence(q).empty() && alignments[q].score != placements[q].score)
      throw std::logic_error(fmt::format("query '{}': traceback score {} differs from scoring-phase score {}",
                                         inputs.queries.name(q), alignments[q].score, placements[q].score));
  log_info("aligned {} queries to their best branches ({:.2f} s)", inputs.queries.size(), clock.lap());

  // Every output is finished (all write errors seen) before any replaces its target.
  write_papara_alignment(out, options.format, inputs, alphabet, alignments, options.no_reference_gaps);
  out.finish();
  log_info("wrote {} ({:.2f} s); peak memory {:.0f} MiB", alignment_path == "-" ? "standard output" : alignment_path,
           clock.lap(), peak_memory_mib());
  if (compat_files) {
    Log::instance().set_copy({});
    quality->finish();
    log_file->finish();
    out.commit();
    quality->commit();
    log_file->commit();
  } else {
    out.commit();
  }
}

}  // namespace hyalign::papara

#include <cmath>
#include <memory>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/log.hpp"
#include "index/index_file.hpp"
#include "map/map.hpp"

namespace hyalign::cli {
namespace {

constexpr int kMaxScore = 1000;

// "X" or "X,Y" as two numbers (Y = `second` when absent), each in [low, high] (and whole when
// `whole`); `form` names the shape in the error ("INT or INT,INT").
std::pair<double, double> parse_pair(const std::string& flag, const std::string& text, const std::string& form,
                                     double low, double high, bool whole, std::optional<double> second) {
  const auto comma = text.find(',');
  auto number = [&](const std::string& part) {
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(part, &used);
    } catch (const std::logic_error&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || (whole && value != std::floor(value))) throw CLI::ValidationError(flag, "takes " + form + " (got '" + text + "')");
    if (!(value >= low && value <= high))
      throw CLI::ValidationError(flag, fmt::format("{} is not in {}..{}", part, low, high));
    return value;
  };
  const double first = number(text.substr(0, comma));
  return {first, comma == std::string::npos ? second.value_or(first) : number(text.substr(comma + 1))};
}

void add_index_subcommand(CLI::App& cmd, Action& action, std::shared_ptr<unsigned> threads) {
  auto* index = cmd.add_subcommand("index", "Build the index of a FASTA reference once, for later runs (the same "
                                             "file as 'hyalign mem index')");
  auto input = std::make_shared<std::string>(), output = std::make_shared<std::string>();
  index->add_option("reference", *input, "Reference FASTA (may be gzipped)")->required();
  index->add_option("-o,--out", *output, "Index file to write (.hymi)")->required();
  index->add_option("-t,--threads", *threads, "Worker threads (0 = all cores)")->capture_default_str();
  index->callback([=, &action] {
    action = on_rank_zero([=] {
      index::build_index_file(*input, *output, worker_threads(*threads, "-t"),
                              [&](const index::SuffixIndex& index) { map::check_reference(index.reference(), *input); });
    });
  });
}

void add_scoring_options(CLI::App& cmd, map::MapParams& p, std::shared_ptr<std::string> clip) {
  auto& s = p.scoring;
  cmd.add_option("-A", s.match, "Score of a match")->check(CLI::Range(1, kMaxScore))->capture_default_str();
  cmd.add_option("-B", s.mismatch, "Penalty of a mismatch")->check(CLI::Range(0, kMaxScore))->capture_default_str();
  cmd.add_option("-O", s.gap_open, "Gap open penalty (a gap of k letters costs O + k*E)")
      ->check(CLI::Range(0, kMaxScore))
      ->capture_default_str();
  cmd.add_option("-E", s.gap_extend, "Gap extension penalty")->check(CLI::Range(1, kMaxScore))->capture_default_str();
  cmd.add_option("-L", *clip, "Clipping penalty: bonus for reaching the read's start[,end] (INT or INT,INT)")
      ->capture_default_str();
  cmd.add_option("-U", p.unpaired_penalty, "Penalty for placing the two ends of a pair unpaired")
      ->check(CLI::Range(0, kMaxScore))
      ->capture_default_str();
}

void add_search_options(CLI::App& cmd, map::MapParams& p) {
  cmd.add_option("-k", p.min_seed, "Shortest exact match that seeds a locus")
      ->check(CLI::Range(8u, 1000u))
      ->capture_default_str();
  cmd.add_option("-w", p.band_margin, "Band width beyond the seeds' diagonals; where a wider band could score more, up to 4 times this "
                 "is tried (a gap between seeds is found up to 4w letters long)")
      ->check(CLI::Range(0u, 10000u))
      ->capture_default_str();
  cmd.add_option("-r", p.reseed_factor, "Search matches longer than k times this again for repeat copies")
      ->check(number_in(1, 1000))
      ->capture_default_str();
  cmd.add_option("-c", p.max_occurrences, "A match with more copies seeds this many of them, taken at even steps (its letters count as repetitive)")
      ->check(CLI::Range(1u, 1000000u))
      ->capture_default_str();
  cmd.add_option("-D", p.drop_ratio, "Chains lighter than this fraction of a better one over the same letters (by 2k letters or more) are dropped, but the one of them that matches the read best; with -a, secondary records scoring under this fraction of the primary are not output")
      ->check(number_in(0, 1))
      ->capture_default_str();
  cmd.add_option("-m", p.max_rescues, "Mate rescues per read at most")->check(CLI::Range(0u, 10000u))->capture_default_str();
  cmd.add_option("-T", p.min_score, "Placements are not output when the best stretch of their alignment (no clip bonuses, as BWA-MEM scores it) scores less")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();
}

}  // namespace

void add_map_command(CLI::App& app, Action& action, const std::string& command_line) {
  auto* cmd = app.add_subcommand(
      "map", "Map short reads (single or paired, FASTQ/FASTA, may be gzipped) to a genome: SAM on stdout, or -o "
             "out.sam|out.bam (a drop-in for 'bwa mem' and 'minimap2 -ax sr')");
  cmd->set_help_flag("--help", "Print this help message and exit (-h is bwa mem's XA option)");
  auto options = std::make_shared<map::MapOptions>();
  auto threads = std::make_shared<unsigned>(0);
  auto device = std::make_shared<std::string>("auto");
  auto kernel = std::make_shared<std::string>("auto");
  auto clip = std::make_shared<std::string>("5");
  auto insert = std::make_shared<std::string>();
  auto batch_bases = std::make_shared<std::size_t>(options->batch_bases);
  auto verbosity = std::make_shared<int>(3);
  cmd->add_option("reference", options->reference, "Reference: FASTA (may be gzipped) or an index from 'map index'");
  cmd->add_option("reads1", options->reads1, "Reads (FASTQ/FASTA, may be gzipped); the first ends of pairs");
  cmd->add_option("reads2", options->reads2, "The second ends of pairs, in the same order");
  cmd->add_flag("-p", options->interleaved, "Pairs interleaved in reads1 (end 1, end 2, end 1, ...)");
  cmd->add_option("-o,--out", options->out, "Output: SAM, or BAM when the name ends in .bam ('-' = stdout)")
      ->capture_default_str();
  cmd->add_option("-l", options->bam_level, "BAM compression level, 0-9 (as samtools' -l)")
      ->check(CLI::Range(0, 9))
      ->capture_default_str();
  cmd->add_option("-R", options->read_group, "Read group header line such as '@RG\\tID:foo\\tSM:bar'");
  cmd->add_flag("-C", options->comment_tags,
                "Append each read's FASTQ/FASTA comment (the header after its name) to its records: SAM tags, "
                "tab-separated, such as BC:Z:ACGT (as bwa mem -C)");
  cmd->add_option("-t,--threads", *threads, "Worker threads (0 = all cores)")->capture_default_str();
  add_scoring_options(*cmd, options->params, clip);
  add_search_options(*cmd, options->params);
  cmd->add_option("-I", *insert, "FR insert size mean[,sd] (default: each batch's, for each pair orientation that enough pairs have: FR, RF, FF, RR)");
  cmd->add_flag("-S", options->params.skip_rescue, "Skip mate rescue");
  cmd->add_flag("-P", options->params.skip_pairing,
                "Skip pairing: each end's primary is its own best placement (mate rescue still runs unless -S); "
                "pairs are flagged proper by insert size");
  cmd->add_flag("-5", options->params.primary5,
                "Of a split read's parts, the one nearest the read's 5' end is primary (Hi-C: -5SP, as bwa mem)");
  cmd->add_flag("-a", options->params.all_alignments, "Output secondary placements too (flag 256)");
  cmd->add_option("-h", options->params.listed_alternatives,
                  "List the primary's other places scoring at least 80 % of it in XA when there are this many or "
                  "fewer (0: no XA; as bwa mem -h; help is --help)")
      ->check(CLI::Range(0u, 100000u))
      ->capture_default_str();
  cmd->add_flag("-M", options->params.mark_secondary, "Mark split parts secondary (256) instead of supplementary (2048)");
  cmd->add_flag("-Y", options->params.soft_clip_supplementary, "Soft-clip supplementary records (default hard)");
  cmd->add_option("-K", *batch_bases, "Read letters per part (each part's insert sizes are estimated from its pairs)")
      ->check(CLI::Range(std::size_t{1000}, std::size_t{1} << 36))
      ->capture_default_str();
  cmd->add_option("-v", *verbosity, "Verbosity on stderr, as bwa mem's: 1 errors, 2 warnings too, 3 every message")
      ->check(CLI::Range(0, 10))
      ->capture_default_str();
  add_device_option(*cmd, *device,
                    "Where reads are seeded and alignments scored: auto (the CPU while the GPUs are set up, then "
                    "whichever of the GPUs and the cores maps faster; the CPU alone for reads too few to try the "
                    "GPUs on, about 6 batches of -K letters per 3 threads), all (the CPU while the GPUs are set up, then "
                    "the GPUs), cpu, gpu (the GPUs; an error without one); without a GPU, auto and all use the CPU "
                    "with a notice");
  cmd->add_option("--kernel", *kernel, "CPU alignment kernel: auto, scalar, avx2, avx512")->capture_default_str();
  add_index_subcommand(*cmd, action, threads);

  cmd->callback([=, &action] {
    if (cmd->get_subcommand("index")->parsed()) return;
    if (options->reference.empty() || options->reads1.empty())
      throw CLI::RequiredError("map: a reference and a reads file (or the index subcommand)");
    // -L 5 or 5,7: the bonuses for reaching the read's start and end.
    const auto [clip5, clip3] = parse_pair("-L", *clip, "INT or INT,INT", 0, kMaxScore, true, std::nullopt);
    options->params.scoring.clip5 = static_cast<int>(clip5);
    options->params.scoring.clip3 = static_cast<int>(clip3);
    // -I 500 or 500,50: the insert-size distribution, instead of estimating it.
    if (!insert->empty())
      std::tie(options->params.insert_mean, options->params.insert_sd) =
          parse_pair("-I", *insert, "MEAN or MEAN,SD", 1, 1e9, false, 0.0);
    options->batch_bases = *batch_bases;
    options->threads = worker_threads(*threads, "-t");
    options->device = engine::parse_device_choice(*device);
    options->kernel = engine::parse_kernel_choice(*kernel);
    options->command_line = command_line;
    Log::instance().set_verbosity(*verbosity);
    action = [options] { map::run_map(*options); };
  });
}

}  // namespace hyalign::cli

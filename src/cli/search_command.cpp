#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "io/blast_tabular.hpp"
#include "io/database.hpp"
#include "search/search.hpp"

namespace hyalign::cli {
namespace {

// Limits that keep every score and buffer size far from overflow; real searches use far less.
constexpr int kMaxGapCost = 1000;
constexpr std::size_t kMaxTop = 1000000;
constexpr std::size_t kMaxChunkMb = 1000000;  // 2^40 residues

}  // namespace

void add_search_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "search",
      "Smith-Waterman database search (local alignment, affine gaps; a gap of length k costs open + k*extend, "
      "as in BLAST)");
  auto options = std::make_shared<search::SearchOptions>();
  auto type = std::make_shared<std::string>("auto");
  auto kernel = std::make_shared<std::string>("auto");
  auto device = std::make_shared<std::string>("auto");
  auto threads = std::make_shared<unsigned>(0);
  auto chunk_mb = std::make_shared<std::size_t>(256);

  cmd->add_option("-q,--queries", options->queries, "Query sequences (FASTA/FASTQ, may be gzipped)");
  cmd->add_option("-d,--db", options->database, "Database: FASTA (may be gzipped) or a file made by 'search makedb'");
  cmd->add_option("--type", *type, "Sequence type: auto (DNA when the queries are ACGTUN), protein, dna")
      ->check(CLI::IsMember({"auto", "protein", "dna"}))
      ->capture_default_str();
  auto* matrix = cmd->add_option("-m,--matrix", options->matrix,
                  "Protein matrix: BLOSUM45, BLOSUM50, BLOSUM62, BLOSUM80, PAM30, PAM70, PAM250, or an NCBI matrix file")
      ->capture_default_str();
  cmd->add_option("--gap-open", options->gap_open, "Gap open cost (default 11 protein, 5 DNA)")
      ->check(CLI::Range(0, kMaxGapCost));
  cmd->add_option("--gap-extend", options->gap_extend, "Gap extension cost per residue (default 1 protein, 2 DNA)")
      ->check(CLI::Range(0, kMaxGapCost));
  auto* match = cmd->add_option("--match", options->match, "DNA match score")->check(CLI::Range(1, 127))->capture_default_str();
  auto strand = std::make_shared<std::string>("both");
  auto* strand_option = cmd->add_option("--strand", *strand,
                                        "DNA query strands searched: both (a hit on the minus strand has sstart > "
                                        "send, as in BLAST), plus, minus")
                            ->check(CLI::IsMember({"both", "plus", "minus"}))
                            ->capture_default_str();
  auto* mismatch = cmd->add_option("--mismatch", options->mismatch, "DNA mismatch score")
      ->check(CLI::Range(-128, -1))
      ->capture_default_str();
  cmd->add_option("-k,--top", options->top, "Hits reported per query")
      ->check(CLI::Range(std::size_t{1}, kMaxTop))
      ->capture_default_str();
  cmd->add_option("-e,--evalue", options->max_evalue,
                  "Of the top -k hits by score, write only those with an E-value of at most this (BLAST's -evalue)")
      ->check(number_in(0, 1e300));
  cmd->add_option("--outfmt", options->outfmt,
                  "BLAST tabular: '6' (qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue "
                  "bitscore) or '6 col ...', each col one of: std " +
                      TabularFormat::supported_columns())
      ->capture_default_str();
  cmd->add_option("-o,--out", options->out, "Output file ('-' = stdout)")->capture_default_str();
  cmd->add_option("-t,--threads", *threads, "Worker threads (0 = all cores)")->capture_default_str();
  cmd->add_option("--kernel", *kernel, "CPU kernel: auto, scalar, avx2, avx512")
      ->check(CLI::IsMember({"auto", "scalar", "avx2", "avx512"}))
      ->capture_default_str();
  add_device_option(*cmd, *device,
                    "Devices: auto (the usable GPUs when there are any, else the CPU cores; the cores alone for a "
                    "job whose files' sizes show it takes them well under a second), cpu, gpu (GPUs only), "
                    "all (every usable GPU plus the CPU cores)");
  cmd->add_option("--chunk-mb", *chunk_mb,
                  "Database chunk size in MiB of residues, one byte each (with GPUs, two chunks are in memory: the "
                  "next is read while one is scored); 0 = one sequence per chunk")
      ->check(CLI::Range(std::size_t{0}, kMaxChunkMb))
      ->capture_default_str();
  cmd->add_flag("--split-database", options->split_database,
                "Under mpirun: deal the database's chunks (--chunk-mb, or makedb's) out to the ranks in turn, each "
                "rank scoring every query against its own chunks and rank 0 merging the top hits, instead of "
                "dealing out the queries (for few queries against a large database); the same output");

  auto* makedb = cmd->add_subcommand("makedb", "Preprocess a database: length-sorted chunks, read back in streaming");
  auto input = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  makedb->add_option("-i,--in", *input, "Input sequences (FASTA/FASTQ, may be gzipped)")->required();
  makedb->add_option("-o,--out", *output, "Database file to write")->required();
  makedb->add_option("--chunk-mb", *chunk_mb, "Chunk size in MiB of residues, one byte each (0 = one sequence per chunk)")
      ->check(CLI::Range(std::size_t{0}, kMaxChunkMb))
      ->capture_default_str();
  makedb->callback([=, &action] {
    action = on_rank_zero([=] {
      const auto r = write_database(*input, *output, *chunk_mb << 20);
      log_info("wrote {}: {} sequences, {} residues, {} chunk{}", *output, r.sequences, r.residues, r.chunks,
               r.chunks == 1 ? "" : "s");
    });
  });

  cmd->callback([=, &action] {
    if (makedb->parsed()) return;  // its own callback sets the action
    if (options->queries.empty() || options->database.empty())
      throw UsageError("search needs -q/--queries and -d/--db (or the makedb subcommand)");
    options->matrix_given = matrix->count() > 0;
    options->dna_scores_given = match->count() + mismatch->count() > 0;
    options->strands_given = strand_option->count() > 0;
    options->strands = *strand == "plus"    ? search::Strands::plus
                       : *strand == "minus" ? search::Strands::minus
                                            : search::Strands::both;
    options->type = *type == "dna" ? search::SequenceType::dna
                    : *type == "protein" ? search::SequenceType::protein
                                         : search::SequenceType::automatic;
    options->kernel = engine::parse_kernel_choice(*kernel);
    options->device = engine::parse_device_choice(*device);
    options->threads = worker_threads(*threads, "-t");
    options->chunk_residues = *chunk_mb << 20;
    action = [options] { search::run_search(*options); };
  });
}

}  // namespace hyalign::cli

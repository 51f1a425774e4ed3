#pragma once
// hyalign search: Smith–Waterman database search, top hits per query with alignments.
#include <cstddef>
#include <optional>
#include <string>

#include "engine/cpu_features.hpp"
#include "engine/devices.hpp"

namespace hyalign::search {

enum class SequenceType { automatic, protein, dna };
// The strands of a DNA query searched (BLAST's -strand): both by default, each hit on its own row.
enum class Strands { both, plus, minus };

struct SearchOptions {
  std::string queries;
  std::string database;
  SequenceType type = SequenceType::automatic;  // automatic: DNA when the queries are all ACGTUN
  std::string matrix = "BLOSUM62";               // built-in name or an NCBI matrix file (protein)
  std::optional<int> gap_open, gap_extend;       // defaults: protein 11/1, DNA 5/2 (BLAST convention)
  int match = 2, mismatch = -3;                  // DNA
  // Which scoring options the user gave: a protein matrix for DNA, or DNA scores for proteins, is
  // an error, not silently unused.
  bool matrix_given = false, dna_scores_given = false, strands_given = false;
  Strands strands = Strands::both;
  std::size_t top = 10;
  std::optional<double> max_evalue;  // of the top hits, only those whose E-value is at most this
  std::string outfmt = "6";
  std::string out = "-";
  unsigned threads = 1;
  engine::KernelChoice kernel = engine::KernelChoice::automatic;
  engine::DeviceChoice device = engine::DeviceChoice::automatic;
  std::size_t chunk_residues = std::size_t{1} << 28;  // database residues per chunk (two in memory with GPUs)
  bool split_database = false;  // MPI ranks take the database's chunks in turn (each every query), not queries
};

void run_search(const SearchOptions& options);

}  // namespace hyalign::search

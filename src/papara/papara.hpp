#pragma once
// hyalign papara: phylogeny-aware placement and alignment of queries against a reference alignment
// and tree (PaPaRa 2.x).
#include <optional>
#include <string>

#include "core/alphabet.hpp"
#include "io/alignment_writer.hpp"
#include "kernels/papara_kernel.hpp"
#include "papara/ancestral.hpp"
#include "papara/inputs.hpp"
#include "papara/placement.hpp"

namespace hyalign::papara {

struct PaparaOptions {
  InputPaths inputs;
  AlphabetKind alphabet = AlphabetKind::dna;
  GapModel gap_model = GapModel::probabilistic;
  kernels::PaparaScoring scoring;
  engine::KernelChoice kernel = engine::KernelChoice::automatic;
  engine::DeviceChoice device = engine::DeviceChoice::automatic;
  unsigned threads = 1;
  bool no_reference_gaps = false;  // -r: drop query insertions instead of adding columns
  AlignmentFormat format = AlignmentFormat::phylip;
  // Output path ("-" = stdout). Without it, PaPaRa's files papara_{alignment,log,quality}.NAME are
  // written in the working directory.
  std::optional<std::string> out;
  std::string run_name = "default";
  bool force = false;              // -f: overwrite an existing run of the same name
  std::string command_line;        // echoed into the log
};

void run_papara(const PaparaOptions& options);

}  // namespace hyalign::papara

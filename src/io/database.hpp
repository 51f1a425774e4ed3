#pragma once
// The hyalign sequence database (`hyalign search makedb`): sequences in chunks of bounded size,
// sorted longest first within each chunk, with a format version and checksums (docs/contract.md).
#include <cstddef>
#include <memory>
#include <string>

#include "core/score_matrix.hpp"
#include "io/coded_sequences.hpp"

namespace hyalign {

// Any hyalign database, of any format version (a wrong version is reported, not read as FASTA).
bool is_database(const std::string& path);

// Reads a database chunk by chunk, each checked against its checksums before it is used; a chunk's
// letters are read and encoded on `threads` threads.
std::unique_ptr<SequenceSource> open_database(const std::string& path, const ScoreMatrix& matrix, unsigned threads);

// Titles (ids and descriptions) and input positions kept, letters stored upper case (any matrix can read them).
struct MakeDbReport {
  std::size_t sequences = 0, residues = 0, chunks = 0;
};
MakeDbReport write_database(const std::string& input, const std::string& output, std::size_t chunk_residues);

}  // namespace hyalign

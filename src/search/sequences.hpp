#pragma once
// Sequences encoded as codes of a ScoreMatrix, in one buffer with offsets, read in chunks of bounded
// size from FASTA/FASTQ (plain or gzip) or from a database made by `hyalign search makedb`.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/score_matrix.hpp"
#include "io/sequence_reader.hpp"
#include "kernels/sw_kernel.hpp"

namespace hyalign::search {

struct EncodedSequences {
  std::string names;                        // sequence ids (first word of the header), concatenated
  std::vector<std::size_t> name_offsets{0};
  std::vector<std::uint8_t> residues;       // codes
  std::vector<std::size_t> offsets{0};
  std::vector<std::size_t> ids;             // position in the input (database order), for ties

  std::size_t size() const { return offsets.size() - 1; }
  std::string_view name(std::size_t i) const {
    return std::string_view(names).substr(name_offsets[i], name_offsets[i + 1] - name_offsets[i]);
  }
  std::span<const std::uint8_t> sequence(std::size_t i) const {
    return {residues.data() + offsets[i], offsets[i + 1] - offsets[i]};
  }
  std::size_t length(std::size_t i) const { return offsets[i + 1] - offsets[i]; }
  kernels::SwSequences view() const { return {residues.data(), offsets.data(), size()}; }
  void add(std::string_view name, std::string_view letters, const ScoreMatrix& matrix, std::size_t id,
           std::map<char, std::size_t>& unknown);
  void clear();
};

// Counts letters outside the matrix alphabet (they were encoded as X or N) and reports them once.
void warn_unknown_letters(const std::map<char, std::size_t>& unknown, const ScoreMatrix& matrix,
                          std::string_view source);

// Reads sequence files or hyalign databases chunk by chunk (at most `max_residues` residues per
// chunk, always at least one sequence), so databases larger than memory stream.
class SequenceSource {
 public:
  virtual ~SequenceSource() = default;
  // Replaces `chunk` with the next chunk; false when there is no more.
  virtual bool next_chunk(EncodedSequences& chunk) = 0;
  virtual const std::map<char, std::size_t>& unknown_letters() const = 0;
};

// A FASTA/FASTQ file (gzip accepted) or a database written by write_database (detected from the
// file's first bytes).
std::unique_ptr<SequenceSource> open_sequences(const std::string& path, const ScoreMatrix& matrix,
                                               std::size_t max_residues);

// `hyalign search makedb`: sequences sorted into length order within chunks of `chunk_residues`,
// names and original positions kept, letters stored upper case (any matrix can read them).
struct MakeDbReport {
  std::size_t sequences = 0, residues = 0, chunks = 0;
};
MakeDbReport write_database(const std::string& input, const std::string& output, std::size_t chunk_residues);

}  // namespace hyalign::search

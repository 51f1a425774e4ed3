#pragma once
// Sequences as codes of a ScoreMatrix (one CodedSequences batch), read in batches of bounded size
// from FASTA/FASTQ (plain or gzip) or from a hyalign database (io/database.hpp), so inputs larger
// than memory stream.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/score_matrix.hpp"
#include "core/sequence_batch.hpp"
#include "core/unknown_letters.hpp"

namespace hyalign {

// Codes of `letters` written to `out` (which may be the letters' own bytes), alignment gaps dropped;
// letters outside the matrix alphabet are counted in `unknown`. Returns the number written.
std::size_t encode_residues(std::string_view letters, const ScoreMatrix& matrix, std::uint8_t* out,
                            UnknownLetters& unknown);
// Appends one sequence, encoded.
void add_coded(CodedSequences& batch, std::string_view name, std::string_view letters, const ScoreMatrix& matrix,
               std::size_t id, UnknownLetters& unknown);

// Warns once about the letters outside the matrix alphabet (they were encoded as X or N).
void warn_unknown_letters(const UnknownLetters& unknown, const ScoreMatrix& matrix, std::string_view source);

// Batch by batch (at most `max_residues` residues per batch, always at least one sequence); ids
// count sequences from 0 in input order, so the ids of a batch are consecutive.
class SequenceSource {
 public:
  virtual ~SequenceSource() = default;
  // Replaces `batch` with the next batch; false when there is no more.
  virtual bool next_chunk(CodedSequences& batch) = 0;
  // Passes over the next batch without keeping it (its sequences still count for the ids of the
  // batches after it; its letters are not encoded, so not counted in unknown_letters()); false
  // when there is no more. A database skips the batch's bytes; a FASTA file still parses them.
  virtual bool skip_chunk() = 0;
  virtual const UnknownLetters& unknown_letters() const = 0;
};

// A FASTA/FASTQ file (gzip accepted) or a hyalign database (detected from the file's first bytes;
// read on `threads` threads). A sequence's name is its title (title_of: its id, then its description). `first_chunk_at_least` (not 0) ends a FASTA file's first chunk with
// the record that takes it to that many residues, if max_residues lets it: a job whose size its
// input does not show learns early whether it is large (a database's chunks are its own).
std::unique_ptr<SequenceSource> open_sequences(const std::string& path, const ScoreMatrix& matrix,
                                               std::size_t max_residues, unsigned threads,
                                               std::size_t first_chunk_at_least = 0);

}  // namespace hyalign

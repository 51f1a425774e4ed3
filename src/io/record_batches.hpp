#pragma once
// A FASTA/FASTQ file read in batches of many records, for tools that stream millions of short
// queries. A plain FASTA file is mapped and each batch parsed by several threads (split where a
// line starts with '>'); gzip, FASTQ and standard input go through SequenceReader. Either way the
// records, their names and the errors (file:line:column) are those SequenceReader gives.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/sequence_batch.hpp"

namespace hyalign {

// Records as read (letters with whitespace removed, nothing else changed), stored back to back,
// with where each name's first word ends (BLAST's sequence id; what MUMmer prints).
struct RecordBatch : SequenceBatch<char> {
  LargeArray<std::uint32_t> id_lengths;

  std::string_view id(std::size_t i) const { return name(i).substr(0, id_lengths[i]); }
  std::string_view letters(std::size_t i) const { return {residues.data() + offsets[i], length(i)}; }
  void clear() {
    SequenceBatch::clear();
    id_lengths.clear();
  }
};

class RecordBatchReader {
 public:
  // Throws InputError as SequenceReader does for a file it cannot open or read as FASTA/FASTQ.
  RecordBatchReader(const std::string& path, unsigned threads);
  ~RecordBatchReader();
  RecordBatchReader(const RecordBatchReader&) = delete;
  RecordBatchReader& operator=(const RecordBatchReader&) = delete;

  // Replaces `batch` with the next records: about `letters` letters (at least one record); false
  // at the end of the file.
  bool next(RecordBatch& batch, std::size_t letters);
  // Passes over the batch next(batch, letters) would give: false at the end of the file. A mapped
  // file's batch is not read (its end is found from the bytes around it), so ranks of an MPI job
  // each read their own batches only; later batches' record ids then count only the records read.
  bool pass_over(std::size_t letters);
  // True when batches are parsed on several threads (a mapped plain FASTA file).
  bool parallel() const;

 private:
  struct Mapped;
  struct Streamed;
  std::unique_ptr<Mapped> mapped_;
  std::unique_ptr<Streamed> streamed_;
};

}  // namespace hyalign

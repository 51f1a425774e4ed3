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

namespace hyalign {

// Records stored back to back: record i's name is names[name_starts[i], name_starts[i + 1]), its
// letters letters[letter_starts[i], letter_starts[i + 1]) (as read: whitespace removed).
struct RecordBatch {
  std::string names, letters;
  std::vector<std::uint64_t> name_starts{0}, letter_starts{0};
  std::vector<std::uint32_t> id_lengths;  // the first word of each name (BLAST's sequence id)

  std::size_t size() const { return id_lengths.size(); }
  std::string_view name(std::size_t i) const {
    return std::string_view(names).substr(name_starts[i], name_starts[i + 1] - name_starts[i]);
  }
  std::string_view id(std::size_t i) const { return name(i).substr(0, id_lengths[i]); }
  std::string_view sequence(std::size_t i) const {
    return std::string_view(letters).substr(letter_starts[i], letter_starts[i + 1] - letter_starts[i]);
  }
  void clear();
  void add(std::string_view name, std::size_t id_length, std::string_view sequence);
  void append(const RecordBatch& other);
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
  // True when batches are parsed on several threads (a mapped plain FASTA file).
  bool parallel() const;

 private:
  struct Mapped;
  struct Streamed;
  std::unique_ptr<Mapped> mapped_;
  std::unique_ptr<Streamed> streamed_;
};

}  // namespace hyalign

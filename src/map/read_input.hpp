#pragma once
// The reads of a `map` run, in batches: single reads, pairs from two files, or pairs interleaved in
// one file. Names lose a trailing /1 or /2 and everything after the first word; the two ends of a
// pair must have the same name, and both files the same number of reads.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "io/sequence_reader.hpp"

namespace hyalign::map {

struct Read {
  std::string name;     // first word, /1 or /2 removed
  std::string letters;  // as read
  std::string quality;  // empty for FASTA input
};

// Reads [2k, 2k+1] are the ends of pair k when paired; else one read per entry.
struct ReadBatch {
  std::vector<Read> reads;
  bool paired = false;
  std::size_t first_pair = 0;  // number of pairs (or reads) in earlier batches
  std::size_t fragments() const { return paired ? reads.size() / 2 : reads.size(); }
};

class ReadInput {
 public:
  ReadInput(const std::string& reads1, const std::string& reads2, bool interleaved);
  // Fills `batch` with reads until they hold at least `letters` letters (whole pairs); false at the
  // end of the input. Throws InputError for mismatched pairs, naming file and line.
  bool next(ReadBatch& batch, std::size_t letters);
  bool paired() const { return paired_; }

 private:
  bool read_one(SequenceReader& reader, Read& read, std::size_t& line);
  std::unique_ptr<SequenceReader> first_, second_;
  SequenceRecord record_;  // the last read, before it is copied into a batch
  bool paired_ = false, interleaved_ = false;
  std::size_t fragments_ = 0;
};

}  // namespace hyalign::map

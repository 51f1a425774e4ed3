#pragma once
// The reads of a `map` run, in batches: single reads, pairs from two files, or pairs interleaved in
// one file. Names lose a trailing /1 or /2 and everything after the first word; the two ends of a
// pair must have the same name, and both files the same number of reads. With -C, the rest of the
// header (the comment) is SAM tags that each of the read's records carries.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/sam_tags.hpp"
#include "io/sequence_reader.hpp"

namespace hyalign::map {

struct Read {
  std::string name;     // first word, /1 or /2 removed
  std::string letters;  // as read
  std::string quality;  // empty for FASTA input
  std::vector<SamTag> tags;  // -C: from the comment
};

// -C: whether comments are kept as tags, and the tags the records carry anyway (a comment may not
// repeat them: SAM allows a tag once per record).
struct CommentTags {
  bool keep = false;
  std::vector<std::string> taken;
};

// Reads [2k, 2k+1] are the ends of pair k when paired; else one read per entry. A batch is read
// in parts of a fixed number of letters: each part's insert sizes are estimated from its own pairs,
// so the output does not depend on how many parts a batch holds.
struct ReadBatch {
  std::vector<Read> reads;
  std::vector<std::size_t> part_ends;  // reads[part_ends[p-1], part_ends[p]) is part p
  bool paired = false;
  std::uint64_t first_fragment = 0;    // the input's reads (or pairs) before this batch
  std::optional<double> input_read;    // the share of the input read with this batch (none from a pipe)
  // The ordinal in the input of reads[r]'s read or pair.
  std::uint64_t fragment_number(std::size_t r) const { return first_fragment + (paired ? r / 2 : r); }
  // The number ties between reads[r]'s placements are broken with (sort_placements).
  std::uint64_t read_number(std::size_t r) const { return paired ? fragment_number(r) << 1 | (r & 1) : fragment_number(r); }
};

class ReadInput {
 public:
  ReadInput(const std::string& reads1, const std::string& reads2, bool interleaved, CommentTags comments = {});
  // Fills `batch` with up to `parts` parts, each of reads until they hold at least `letters` letters
  // (whole pairs); false at the end of the input. Throws InputError for mismatched pairs, naming
  // file and line.
  bool next(ReadBatch& batch, std::size_t letters, std::size_t parts);
  // Passes over the batch next() would read (another MPI rank's): its reads are counted and their
  // records' bounds found, but not copied or checked further (the rank that reads the batch does);
  // a seventh of next()'s time on plain FASTQ, half on gzip, which must still be decoded. False at
  // the end of the input.
  bool pass_over(std::size_t letters, std::size_t parts);
  bool paired() const { return paired_; }

 private:
  // Takes fragments (`fragment(letters)` adds one's letters, false at the end of the input) into
  // up to `parts` parts of at least `letters` letters each; part_end() after each.
  template <class Fragment, class PartEnd>
  static void take_parts(std::size_t letters, std::size_t parts, Fragment&& fragment, PartEnd&& part_end);
  bool read_one(SequenceReader& reader, Read& read, std::size_t& line);
  void read_comment_tags(const SequenceReader& reader, Read& read) const;
  bool read_fragment(ReadBatch& batch, std::size_t& count, std::size_t& letters);
  bool pass_fragment(std::size_t& letters);
  // The reader of a pair's second end.
  SequenceReader& mates() const { return interleaved_ ? *first_ : *second_; }
  std::unique_ptr<SequenceReader> first_, second_;
  SequenceRecord record_;  // the last read, before it is copied into a batch
  CommentTags comments_;
  bool paired_ = false, interleaved_ = false;
  std::size_t fragments_ = 0;
};

}  // namespace hyalign::map

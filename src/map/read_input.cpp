#include "map/read_input.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace hyalign::map {
namespace {

// The read's name as SAM wants it: the first word, without the /1 or /2 of older FASTQ.
std::string_view pair_name(const SequenceRecord& record) {
  std::string_view id(record.name.data(), record.id_length);
  if (id.size() > 2 && id[id.size() - 2] == '/' && (id.back() == '1' || id.back() == '2')) id.remove_suffix(2);
  return id;
}

}  // namespace

ReadInput::ReadInput(const std::string& reads1, const std::string& reads2, bool interleaved)
    : first_(std::make_unique<SequenceReader>(reads1)), paired_(interleaved || !reads2.empty()),
      interleaved_(interleaved) {
  if (interleaved && !reads2.empty()) throw UsageError("-p (interleaved pairs) takes one reads file, not two");
  if (!reads2.empty()) second_ = std::make_unique<SequenceReader>(reads2);
}

// Copied into `read`'s strings, which keep their memory from batch to batch: no allocation per read.
bool ReadInput::read_one(SequenceReader& reader, Read& read, std::size_t& line) {
  if (!reader.next(record_)) return false;
  if (record_.name.empty() || record_.id_length == 0)
    throw InputError(reader.path(), record_.line, "a read with no name");
  read.name.assign(pair_name(record_));
  read.letters.assign(record_.sequence);
  read.quality.assign(record_.quality);
  line = record_.line;
  return true;
}

bool ReadInput::next(ReadBatch& batch, std::size_t letters) {
  batch.paired = paired_;
  batch.first_pair = fragments_;
  std::size_t count = 0, held = 0;
  if (batch.reads.size() < 2) batch.reads.resize(2);
  const auto slot = [&]() -> Read& {  // the batch's next read, reusing the last batch's
    // The size stays even, so it grows only before a pair's first end: no reference to an end dangles.
    if (count == batch.reads.size()) batch.reads.resize(2 * count);
    return batch.reads[count++];
  };
  while (held < letters) {
    Read& a = slot();
    std::size_t line_a = 0, line_b = 0;
    if (!read_one(*first_, a, line_a)) {
      --count;
      if (second_) {
        if (read_one(*second_, a, line_b))
          throw InputError(second_->path(), line_b,
                           fmt::format("read '{}' has no mate: {} ended after {} pairs", a.name, first_->path(),
                                       fragments_));
      }
      break;
    }
    held += a.letters.size();
    if (paired_) {
      SequenceReader& mates = interleaved_ ? *first_ : *second_;
      Read& b = slot();
      if (!read_one(mates, b, line_b))
        throw InputError(first_->path(), line_a,
                         interleaved_ ? fmt::format("read '{}' is the last of an odd number of interleaved reads", a.name)
                                      : fmt::format("read '{}' has no mate: {} ended after {} pairs", a.name,
                                                    mates.path(), fragments_));
      if (b.name != a.name)
        throw InputError(mates.path(), line_b,
                         fmt::format("mate names differ: '{}' here, '{}' at {}:{}", b.name, a.name, first_->path(),
                                     line_a));
      held += b.letters.size();
    }
    ++fragments_;
  }
  batch.reads.resize(count);
  return count > 0;
}

}  // namespace hyalign::map

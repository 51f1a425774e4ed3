#include "map/read_input.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace hyalign::map {
namespace {

// The read's name as SAM wants it: the first word, without the /1 or /2 of older FASTQ.
std::string pair_name(const SequenceRecord& record) {
  std::string_view id(record.name.data(), record.id_length);
  if (id.size() > 2 && id[id.size() - 2] == '/' && (id.back() == '1' || id.back() == '2')) id.remove_suffix(2);
  return std::string(id);
}

}  // namespace

ReadInput::ReadInput(const std::string& reads1, const std::string& reads2, bool interleaved)
    : first_(std::make_unique<SequenceReader>(reads1)), paired_(interleaved || !reads2.empty()),
      interleaved_(interleaved) {
  if (interleaved && !reads2.empty()) throw UsageError("-p (interleaved pairs) takes one reads file, not two");
  if (!reads2.empty()) second_ = std::make_unique<SequenceReader>(reads2);
}

bool ReadInput::read_one(SequenceReader& reader, Read& read, std::size_t& line) {
  SequenceRecord record;
  if (!reader.next(record)) return false;
  if (record.name.empty() || record.id_length == 0)
    throw InputError(reader.path(), record.line, "a read with no name");
  read.name = pair_name(record);
  read.letters = std::move(record.sequence);
  read.quality = std::move(record.quality);
  line = record.line;
  return true;
}

bool ReadInput::next(ReadBatch& batch, std::size_t letters) {
  batch.reads.clear();
  batch.paired = paired_;
  batch.first_pair = fragments_;
  std::size_t held = 0;
  while (held < letters) {
    Read a;
    std::size_t line_a = 0, line_b = 0;
    if (!read_one(*first_, a, line_a)) {
      if (second_) {
        Read extra;
        if (read_one(*second_, extra, line_b))
          throw InputError(second_->path(), line_b,
                           fmt::format("read '{}' has no mate: {} ended after {} pairs", extra.name, first_->path(),
                                       fragments_));
      }
      break;
    }
    held += a.letters.size();
    if (paired_) {
      SequenceReader& mates = interleaved_ ? *first_ : *second_;
      Read b;
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
      batch.reads.push_back(std::move(a));
      batch.reads.push_back(std::move(b));
    } else {
      batch.reads.push_back(std::move(a));
    }
    ++fragments_;
  }
  return !batch.reads.empty();
}

}  // namespace hyalign::map

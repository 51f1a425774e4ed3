#include "map/read_input.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

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

// SAM's longest read name (bam_set1 refuses longer ones).
constexpr std::size_t kLongestName = 254;

// Letters of either case are bases (IUPAC codes and others count as N), and so is '.' (N in
// older FASTQ); anything else, such as a digit (which SAM would store as a base), is damage.
constexpr std::array<bool, 256> kReadLetters = [] {
  std::array<bool, 256> ok{};
  for (int c = 'A'; c <= 'Z'; ++c) ok[static_cast<std::size_t>(c)] = ok[static_cast<std::size_t>(c - 'A' + 'a')] = true;
  ok['.'] = true;
  return ok;
}();


}  // namespace

ReadInput::ReadInput(const std::string& reads1, const std::string& reads2, bool interleaved, CommentTags comments)
    : first_(std::make_unique<SequenceReader>(reads1)), comments_(std::move(comments)), paired_(interleaved || !reads2.empty()),
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
  if (read.name.size() > kLongestName)
    throw InputError(reader.path(), record_.line,
                     fmt::format("a read name of {} characters (SAM allows {} at most)", read.name.size(), kLongestName));
  const auto bad = std::find_if(record_.sequence.begin(), record_.sequence.end(),
                                [](char c) { return !kReadLetters[static_cast<unsigned char>(c)]; });
  // A FASTQ read's letters are on the line after its header; a FASTA read's may take several lines.
  const bool fastq = reader.format() == SequenceFormat::fastq;
  if (bad != record_.sequence.end())
    throw InputError(reader.path(), record_.line + (fastq ? 1 : 0),
                     fmt::format("the read '{}'{} holds {}, which is no base letter", read.name,
                                 fastq ? "" : " (its header line)", shown_character(*bad)));
  read.letters.assign(record_.sequence);
  read.quality.assign(record_.quality);
  read_comment_tags(reader, read);
  line = record_.line;
  return true;
}

void ReadInput::read_comment_tags(const SequenceReader& reader, Read& read) const {
  read.tags.clear();
  if (!comments_.keep) return;
  try {
    read.tags = parse_sam_tags(record_.comment);
  } catch (const std::invalid_argument& e) {
    throw InputError(reader.path(), record_.line, fmt::format("-C: the read's comment field {}", e.what()));
  }
  for (const SamTag& t : read.tags) {
    const std::string_view tag(t.tag, 2);
    if (std::find(comments_.taken.begin(), comments_.taken.end(), tag) != comments_.taken.end())
      throw InputError(reader.path(), record_.line,
                       fmt::format("-C: the read's comment gives the tag {}, which hyalign writes itself", tag));
  }
}

template <class Fragment, class PartEnd>
void ReadInput::take_parts(std::size_t letters, std::size_t parts, Fragment&& fragment, PartEnd&& part_end) {
  for (std::size_t p = 0; p < parts; ++p) {
    std::size_t held = 0;
    bool any = false;
    while (held < letters && fragment(held)) any = true;
    if (!any) break;
    part_end();
  }
}

bool ReadInput::next(ReadBatch& batch, std::size_t letters, std::size_t parts) {
  batch.paired = paired_;
  batch.first_fragment = fragments_;
  batch.part_ends.clear();
  std::size_t count = 0;
  take_parts(letters, parts, [&](std::size_t& held) { return read_fragment(batch, count, held); },
             [&] { batch.part_ends.push_back(count); });
  batch.reads.resize(count);
  batch.input_read = first_->fraction_read();
  return count > 0;
}

bool ReadInput::pass_over(std::size_t letters, std::size_t parts) {
  bool any = false;
  take_parts(letters, parts, [&](std::size_t& held) { return pass_fragment(held); }, [&] { any = true; });
  return any;
}

namespace {

// Errors of pairs (`name` empty where the read was passed over unread: ReadInput::pass_over).
std::string read_called(std::string_view name) { return name.empty() ? "a read" : fmt::format("read '{}'", name); }

[[noreturn]] void missing_mate(const SequenceReader& at, std::size_t line, std::string_view name,
                               const SequenceReader& ended, std::size_t pairs, bool interleaved) {
  throw InputError(at.path(), line,
                   interleaved ? fmt::format("{} is the last of an odd number of interleaved reads", read_called(name))
                               : fmt::format("{} has no mate: {} ended after {} pairs", read_called(name), ended.path(),
                                             pairs));
}

}  // namespace

// One read, or both ends of a pair, into batch.reads[count...]; false at the end of the input.
bool ReadInput::read_fragment(ReadBatch& batch, std::size_t& count, std::size_t& letters) {
  // The size stays even, so it grows only before a pair's first end: no reference to an end dangles.
  if (count == batch.reads.size()) batch.reads.resize(std::max<std::size_t>(2, 2 * count));
  Read& a = batch.reads[count];
  std::size_t line_a = 0, line_b = 0;
  if (!read_one(*first_, a, line_a)) {
    if (second_ && read_one(*second_, a, line_b)) missing_mate(*second_, line_b, a.name, *first_, fragments_, false);
    return false;
  }
  letters += a.letters.size();
  ++count;
  if (paired_) {
    Read& b = batch.reads[count];
    if (!read_one(mates(), b, line_b)) missing_mate(*first_, line_a, a.name, mates(), fragments_, interleaved_);
    if (b.name != a.name)
      throw InputError(mates().path(), line_b,
                       fmt::format("mate names differ: '{}' here, '{}' at {}:{}", b.name, a.name, first_->path(),
                                   line_a));
    letters += b.letters.size();
    ++count;
  }
  ++fragments_;
  return true;
}

// read_fragment's reads passed over.
bool ReadInput::pass_fragment(std::size_t& letters) {
  std::size_t a = 0, b = 0, line_a = 0, line_b = 0;
  if (!first_->pass_over(a, line_a)) {
    if (second_ && second_->pass_over(b, line_b)) missing_mate(*second_, line_b, {}, *first_, fragments_, false);
    return false;
  }
  if (paired_ && !mates().pass_over(b, line_b)) missing_mate(*first_, line_a, {}, mates(), fragments_, interleaved_);
  letters += a + b;
  ++fragments_;
  return true;
}

}  // namespace hyalign::map

#include "index/reference_text.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"
#include "io/sequence_reader.hpp"

namespace hyalign::index {

std::size_t ReferenceText::sequence_at(std::uint64_t pos) const {
  const auto it = std::upper_bound(starts.begin(), starts.end(), pos);
  return static_cast<std::size_t>(it - starts.begin()) - 1;
}

std::size_t ReferenceText::longest_name() const {
  std::size_t longest = 0;
  for (const auto& n : names) longest = std::max(longest, n.size());
  return longest;
}

ReferenceText read_reference(const std::string& path) {
  ReferenceText ref;
  SequenceReader reader(path);
  SequenceRecord record;
  while (reader.next(record)) {
    const std::uint64_t start = ref.text.size();
    if (start + record.sequence.size() + 1 > kMaxTextLength)
      throw InputError(path, record.line,
                       fmt::format("the reference is longer than {} letters, the most one index holds (a 32-bit "
                                   "suffix array); split it into several references",
                                   kMaxTextLength));
    ref.names.push_back(record.name.substr(0, record.id_length));
    ref.starts.push_back(start);
    ref.lengths.push_back(record.sequence.size());
    for (char c : record.sequence) ref.text.push_back(lower_case(c));
    ref.text.push_back(kSeparator);
  }
  std::uint64_t letters = 0;
  for (auto n : ref.lengths) letters += n;
  if (letters == 0) throw InputError(path, "the reference has no sequence letters");
  return ref;
}

}  // namespace hyalign::index

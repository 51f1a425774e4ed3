#pragma once
// Streaming reader for FASTA and FASTQ, plain or gzip-compressed (detected from content, not the
// file name). Records are produced one at a time, so memory stays bounded by the longest record.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "io/text.hpp"

namespace hyalign {

// Line-by-line text reader over zlib (plain or gzip, detected from content; "-" is standard input),
// reading 1 MiB chunks. Shared by the sequence, alignment and Newick readers. A UTF-8 byte-order mark
// at the start is skipped. Throws InputError (file:line:column) on NUL or other control bytes (anything
// below 0x20 except tab and '\r', and 0x7f), lines longer than 1 GiB, read errors and truncated gzip data.
class LineReader {
 public:
  explicit LineReader(const std::string& path);  // throws InputError if it cannot be opened
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Next line without its '\n' and trailing '\r'; false at end of file. The view stays valid until
  // the next call.
  bool next(std::string_view& line);
  // The same line, unchecked for control bytes: for lines only passed over (another reader of the
  // same file checks them).
  bool next_unchecked(std::string_view& line);
  // Throws as next() would where `line`, the line next_unchecked() just gave, holds control bytes.
  void check(std::string_view line) const;
  std::size_t line_number() const;  // 1-based number of the line last returned (0 before the first)
  const std::string& path() const;  // as given
  const std::string& name() const;  // for messages: the path, or "<stdin>" for "-"
  std::optional<double> fraction_read() const;  // ByteSource's

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A FASTA/FASTQ header (text after '>' or '@') as a record name: leading/trailing whitespace removed,
// each inner run of whitespace replaced by one '_'.
std::string normalize_sequence_name(std::string_view header);
// The same name appended to `out` (any container of char), for readers that keep names back to back.
template <typename Chars>
void append_sequence_name(std::string_view header, Chars& out) {
  header = text::trim(header);
  if (!text::has_space(header)) {
    if constexpr (requires { out.append(header); }) out.append(header);
    else for (char c : header) out.push_back(c);
    return;
  }
  bool in_space = false;
  for (char c : header) {
    if (text::is_space(c)) {
      in_space = true;
      continue;
    }
    if (in_space) out.push_back('_');
    in_space = false;
    out.push_back(c);
  }
}

struct SequenceRecord {
  std::string name;      // the whole header line after '>'/'@', runs of whitespace replaced by one '_'
  std::size_t id_length = 0;  // name.substr(0, id_length) is the first word (BLAST's sequence id)
                         // (leading/trailing whitespace and a trailing '\r' removed)
  std::string comment;   // the header after its first word, as written (inner tabs and spaces kept)
  std::string sequence;  // residues as read (line breaks and whitespace removed, nothing else changed)
  std::string quality;   // FASTQ only
  std::size_t line = 0;  // 1-based line of the header
};

// BLAST's title of a sequence: its id, then a space and its description if it has one, each tab or
// other whitespace character of the description a space (a title is one tabular column).
std::string title_of(const SequenceRecord& record);

enum class SequenceFormat { fasta, fastq };

class SequenceReader {
 public:
  // path "-" reads standard input. Throws InputError if the file cannot be opened, is empty,
  // is binary (NUL or other control bytes), or does not start with '>' or '@'.
  explicit SequenceReader(const std::string& path);
  ~SequenceReader();
  SequenceReader(const SequenceReader&) = delete;
  SequenceReader& operator=(const SequenceReader&) = delete;

  // Next record, false at end of file. Throws InputError naming file and line on malformed input
  // (FASTQ: missing '+' line, quality length differing from the sequence; FASTA: empty name,
  // control/binary bytes inside a sequence).
  bool next(SequenceRecord& record);
  // Passes over the next record as next() would read it, its sequence's letters into `letters` and
  // its header's line into `line`; false at end of file. For records another reader of the same
  // file reads (an MPI rank's share): it finds the records' bounds and sizes and throws where they
  // are broken, but leaves the rest of next()'s checks (names, letters, quality characters) to
  // that reader.
  bool pass_over(std::size_t& letters, std::size_t& line);
  SequenceFormat format() const;
  const std::string& path() const;
  std::optional<double> fraction_read() const;  // ByteSource's

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hyalign

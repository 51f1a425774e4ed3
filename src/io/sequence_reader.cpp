#include "io/sequence_reader.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "io/byte_source.hpp"
#include "io/text.hpp"

namespace hyalign {

namespace {

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
// Fuzzing builds read in tiny pieces: every line crosses buffer refills.
constexpr std::size_t kChunk = 61;
#else
constexpr std::size_t kChunk = std::size_t(1) << 20;      // bytes per block decoded ahead
#endif
constexpr std::size_t kMaxLine = std::size_t(1) << 30;    // longest accepted line

using text::append_without_space;
using text::is_space;
using text::trim;

bool looks_like_phylip_header(std::string_view line) {
  line = trim(line);
  int numbers = 0;
  while (!line.empty()) {
    std::size_t i = 0;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
    if (i == 0) return false;
    ++numbers;
    line.remove_prefix(i);
    if (!line.empty() && !is_space(line.front())) return false;
    line = trim(line);
  }
  return numbers == 2;
}

// The byte tests below use bitwise operators, without branches, so that GCC vectorizes the loops
// that check whole lines with them.

// Control bytes other than tab and line ends.
constexpr bool is_binary(unsigned char c) {
  return ((c < 0x20) & (c != '\t') & (c != '\n') & (c != '\r')) | (c == 0x7f);
}

// Anything but Phred+33 characters.
constexpr bool is_bad_quality(char c) { return static_cast<unsigned char>(c - '!') > '~' - '!'; }

bool all_quality_characters(std::string_view s) {
  unsigned char bad = 0;
  for (char c : s) bad |= is_bad_quality(c);
  return bad == 0;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// LineReader

struct LineReader::Impl {
  Impl(const std::string& p, const std::string& n) : path(p), name(n), source(p, kChunk) {}
  std::string path;
  std::string name;
  ByteSource source;
  std::vector<char> buf;
  std::size_t begin = 0;    // start of unread data
  std::size_t scanned = 0;  // [begin, scanned) is checked and holds no '\n'
  std::size_t end = 0;      // end of data read
  bool eof = false;
  bool at_start = true;
  std::size_t line = 0;

  void fill() {
    if (begin > 0) {
      std::memmove(buf.data(), buf.data() + begin, end - begin);
      end -= begin;
      scanned -= begin;
      begin = 0;
    }
    std::string_view got;
    try {
      got = source.next();
    } catch (const ByteSource::Error& e) {
      throw InputError(name, line + 1, e.what());
    }
    if (got.empty()) {
      eof = true;
      return;
    }
    if (buf.size() - end < got.size()) buf.resize(std::max(buf.size() * 2, end + got.size()));
    std::memcpy(buf.data() + end, got.data(), got.size());
    end += got.size();
    if (at_start) {  // blocks are whole unless the input ends, so a BOM is complete here
      at_start = false;
      if (end >= 3 && std::memcmp(buf.data(), "\xEF\xBB\xBF", 3) == 0) begin = scanned = 3;
    }
  }

  // Control bytes other than tab and line ends: checked for all bytes at once, then found.
  void check(std::size_t from, std::size_t to) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(buf.data());
    unsigned char any_bad = 0;
    for (std::size_t i = from; i < to; ++i) any_bad |= is_binary(p[i]);
    if (!any_bad) return;
    for (std::size_t i = from; i < to; ++i) {
      if (is_binary(p[i])) {
        throw InputError(name, line + 1,
                         fmt::format("binary data (byte 0x{:02x}); not a text file?", unsigned(p[i])),
                         i - begin + 1);
      }
    }
  }
};

LineReader::LineReader(const std::string& path)
    : impl_(std::make_unique<Impl>(path, path == "-" ? "<stdin>" : path)) {}

LineReader::~LineReader() = default;

bool LineReader::next(std::string_view& line) {
  Impl& s = *impl_;
  for (;;) {
    const char* data = s.buf.data();
    const void* nl = s.scanned < s.end ? std::memchr(data + s.scanned, '\n', s.end - s.scanned) : nullptr;
    std::size_t stop = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - data) : s.end;
    s.check(s.scanned, stop);
    s.scanned = stop;
    if (nl || (s.eof && s.begin < s.end)) {
      line = std::string_view(data + s.begin, stop - s.begin);
      s.begin = s.scanned = nl ? stop + 1 : stop;
      ++s.line;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      return true;
    }
    if (s.eof) return false;
    if (s.end - s.begin > kMaxLine) throw InputError(s.name, s.line + 1, "line longer than 1 GiB");
    s.fill();
  }
}

std::size_t LineReader::line_number() const { return impl_->line; }
const std::string& LineReader::path() const { return impl_->path; }
const std::string& LineReader::name() const { return impl_->name; }
std::optional<double> LineReader::fraction_read() const { return impl_->source.fraction_read(); }

std::string title_of(const SequenceRecord& record) {
  std::string title = record.name.substr(0, record.id_length);
  if (record.comment.empty()) return title;
  title += ' ';
  for (char c : record.comment) title += text::is_space(c) ? ' ' : c;
  return title;
}

std::string normalize_sequence_name(std::string_view header) {
  std::string out;
  out.reserve(header.size());
  append_sequence_name(header, out);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// SequenceReader

struct SequenceReader::Impl {
  explicit Impl(const std::string& p) : lines(p) {}
  LineReader lines;
  SequenceFormat format = SequenceFormat::fasta;
  bool has_pending = false;  // a header line has been read but not yet returned
  std::string pending_name, pending_comment;
  std::size_t pending_id_length = 0;
  std::size_t pending_line = 0;

  const std::string& name() const { return lines.name(); }

  // t: the header line without leading whitespace (starts with '>' or '@').
  void set_pending(std::string_view t) {
    pending_name.clear();
    append_sequence_name(t.substr(1), pending_name);
    const std::string_view header = trim(t.substr(1));
    pending_id_length = std::min(pending_name.size(), header.find_first_of(" \t\r\n\v\f"));
    pending_comment.assign(trim(header.substr(std::min(header.size(), pending_id_length))));
    pending_line = lines.line_number();
    has_pending = true;
    if (pending_name.empty()) throw InputError(name(), pending_line, "empty sequence name", 1);
  }

  // Starts `record` from the pending header.
  void take_pending(SequenceRecord& record) {
    has_pending = false;
    std::swap(record.name, pending_name);  // both keep their memory for the next records
    std::swap(record.comment, pending_comment);
    record.id_length = pending_id_length;
    record.line = pending_line;
    record.sequence.clear();
    record.quality.clear();
  }

  bool next_fasta(SequenceRecord& record);
  bool next_fastq(SequenceRecord& record);
  // next_fastq's steps: the '@' header (false at the end of the file), the sequence lines up to the
  // '+' line (returns how many), the quality.
  bool read_fastq_header();
  std::size_t read_fastq_sequence(SequenceRecord& record);
  void read_fastq_quality(SequenceRecord& record, bool wrapped);
};

SequenceReader::SequenceReader(const std::string& path) : impl_(std::make_unique<Impl>(path)) {
  Impl& s = *impl_;
  std::string_view line;
  std::string_view t;
  while (s.lines.next(line)) {
    t = trim(line);
    if (!t.empty()) break;
  }
  if (t.empty()) throw InputError(s.name(), "empty file");
  if (t.front() == '>') {
    s.format = SequenceFormat::fasta;
  } else if (t.front() == '@') {
    s.format = SequenceFormat::fastq;
  } else if (looks_like_phylip_header(t)) {
    throw InputError(s.name(), s.lines.line_number(), "looks like a PHYLIP alignment, expected FASTA/FASTQ");
  } else {
    throw InputError(s.name(), s.lines.line_number(),
                     fmt::format("not a FASTA or FASTQ file (expected '>' or '@', found '{}')", excerpt(t)));
  }
  s.set_pending(t);
}

SequenceReader::~SequenceReader() = default;

bool SequenceReader::Impl::next_fasta(SequenceRecord& record) {
  if (!has_pending) return false;
  take_pending(record);
  std::string_view line;
  while (lines.next(line)) {
    std::string_view t = trim(line);
    if (!t.empty() && t.front() == '>') {
      set_pending(t);
      break;
    }
    append_without_space(record.sequence, t);
  }
  return true;
}

bool SequenceReader::Impl::next_fastq(SequenceRecord& record) {
  if (!has_pending && !read_fastq_header()) return false;
  take_pending(record);
  const std::size_t sequence_lines = read_fastq_sequence(record);
  read_fastq_quality(record, sequence_lines > 1);
  return true;
}

bool SequenceReader::Impl::read_fastq_header() {
  std::string_view line, t;
  while (lines.next(line)) {
    t = trim(line);
    if (!t.empty()) break;
  }
  if (t.empty()) return false;
  if (t.front() != '@')
    throw InputError(name(), lines.line_number(),
                     fmt::format("expected '@' starting a FASTQ record, found '{}'", excerpt(t)), 1);
  set_pending(t);
  return true;
}

std::size_t SequenceReader::Impl::read_fastq_sequence(SequenceRecord& record) {
  std::string_view line;
  std::size_t sequence_lines = 0;
  for (;;) {
    if (!lines.next(line))
      throw InputError(name(), lines.line_number(),
                       fmt::format("FASTQ record '{}' (line {}) ends without a '+' line", record.name, record.line));
    std::string_view t = trim(line);
    if (!t.empty() && t.front() == '+') {
      if (t.size() == 1) return sequence_lines;
      std::string repeated = normalize_sequence_name(t.substr(1));
      if (!repeated.empty() && repeated != record.name)
        throw InputError(name(), lines.line_number(),
                         fmt::format("'+' line names '{}' but the record header (line {}) names '{}'", repeated,
                                     record.line, record.name));
      return sequence_lines;
    }
    if (!t.empty() && t.front() == '@' && sequence_lines > 0)
      throw InputError(name(), lines.line_number(),
                       fmt::format("FASTQ record '{}' (line {}): expected a '+' line, found '{}'", record.name,
                                   record.line, excerpt(t)));
    if (t.empty()) continue;
    append_without_space(record.sequence, t);
    ++sequence_lines;
  }
}

// One line, or several when the sequence was wrapped too.
void SequenceReader::Impl::read_fastq_quality(SequenceRecord& record, bool wrapped) {
  std::string_view line;
  for (;;) {
    if (!lines.next(line)) {
      if (record.quality.size() == record.sequence.size()) return;
      throw InputError(name(), lines.line_number(),
                       fmt::format("FASTQ record '{}' (line {}): file ends inside the quality ({} of {} characters)",
                                   record.name, record.line, record.quality.size(), record.sequence.size()));
    }
    std::string_view t = trim(line);
    if (!all_quality_characters(t)) {
      const std::size_t lead = static_cast<std::size_t>(t.data() - line.data());
      const std::size_t i = static_cast<std::size_t>(
          std::find_if(t.begin(), t.end(), is_bad_quality) - t.begin());
      throw InputError(name(), lines.line_number(),
                       fmt::format("invalid quality character '{}' in FASTQ record '{}'",
                                   static_cast<unsigned char>(t[i]) < 0x20 ? '?' : t[i], record.name),
                       lead + i + 1);
    }
    record.quality.append(t);
    if (record.quality.size() > record.sequence.size() ||
        (!wrapped && record.quality.size() != record.sequence.size()))
      throw InputError(name(), lines.line_number(),
                       fmt::format("FASTQ record '{}' (line {}): quality has {} characters, sequence has {}",
                                   record.name, record.line, record.quality.size(), record.sequence.size()));
    if (record.quality.size() == record.sequence.size()) return;
  }
}

bool SequenceReader::next(SequenceRecord& record) {
  return impl_->format == SequenceFormat::fasta ? impl_->next_fasta(record) : impl_->next_fastq(record);
}

SequenceFormat SequenceReader::format() const { return impl_->format; }
const std::string& SequenceReader::path() const { return impl_->lines.path(); }
std::optional<double> SequenceReader::fraction_read() const { return impl_->lines.fraction_read(); }

}  // namespace hyalign

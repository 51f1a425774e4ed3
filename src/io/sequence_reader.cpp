#include "io/sequence_reader.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
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

  // Control bytes other than tab and line ends in buf[from, to), of the line being read.
  void check(std::size_t from, std::size_t to) const { check(buf.data() + from, to - from, line + 1, from - begin); }
  // The same for `size` bytes at `p`, `lead` bytes into line `at`.
  void check(const char* p, std::size_t size, std::size_t at, std::size_t lead) const {
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    unsigned char any_bad = 0;  // all bytes at once, then the first bad one found
    for (std::size_t i = 0; i < size; ++i) any_bad |= is_binary(u[i]);
    if (!any_bad) return;
    const std::size_t i = static_cast<std::size_t>(std::find_if(u, u + size, is_binary) - u);
    throw InputError(name, at, fmt::format("binary data (byte 0x{:02x}); not a text file?", unsigned(u[i])),
                     lead + i + 1);
  }

  // A carriage return left inside line `at` (its trailing one removed).
  void check_line_ends(std::string_view text, std::size_t at) const {
    const void* cr = std::memchr(text.data(), '\r', text.size());
    if (cr)
      throw InputError(name, at, text::kCarriageReturnInside,
                       static_cast<std::size_t>(static_cast<const char*>(cr) - text.data()) + 1);
  }

  // The next line (LineReader::next), its bytes checked for control bytes with kCheck.
  template <bool kCheck>
  bool next(std::string_view& out) {
    for (;;) {
      const char* data = buf.data();
      const void* nl = scanned < end ? std::memchr(data + scanned, '\n', end - scanned) : nullptr;
      const std::size_t stop = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - data) : end;
      if constexpr (kCheck) check(scanned, stop);
      scanned = stop;
      if (nl || (eof && begin < end)) {
        out = std::string_view(data + begin, stop - begin);
        begin = scanned = nl ? stop + 1 : stop;
        ++line;
        if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
        if constexpr (kCheck) check_line_ends(out, line);
        return true;
      }
      if (eof) return false;
      if (end - begin > kMaxLine) throw InputError(name, line + 1, "line longer than 1 GiB");
      fill();
    }
  }
};

LineReader::LineReader(const std::string& path)
    : impl_(std::make_unique<Impl>(path, path == "-" ? "<stdin>" : path)) {}

LineReader::~LineReader() = default;

bool LineReader::next(std::string_view& line) { return impl_->next<true>(line); }
bool LineReader::next_unchecked(std::string_view& line) { return impl_->next<false>(line); }
void LineReader::check(std::string_view line) const {
  impl_->check(line.data(), line.size(), impl_->line, 0);
  impl_->check_line_ends(line, impl_->line);
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

// A record passed over (SequenceReader::pass_over): its sizes, and its header for messages.
struct PassedRecord {
  std::string header;  // after the '@', as written
  std::size_t line = 0;
  std::size_t letters = 0, quality = 0;
};

struct SequenceReader::Impl {
  explicit Impl(const std::string& p) : lines(p) {}
  LineReader lines;
  SequenceFormat format = SequenceFormat::fasta;
  bool has_pending = false;  // a header line has been read but not yet returned
  std::string pending_name, pending_comment;
  std::size_t pending_id_length = 0;
  std::size_t pending_line = 0;
  PassedRecord passed;

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
  void take_pending(PassedRecord& record) {
    has_pending = false;
    record.header = pending_name;
    record.line = pending_line;
    record.letters = record.quality = 0;
  }

  // Records are read whole (SequenceRecord) or passed over (PassedRecord): the same steps, which
  // pass over lines unchecked and keep only their sizes.
  template <class Record>
  bool next_fasta(Record& record);
  template <class Record>
  bool next_fastq(Record& record);
  // next_fastq's steps: the '@' header (false at the end of the file), the sequence lines up to the
  // '+' line (returns how many), the quality.
  template <class Record>
  bool read_fastq_header(Record& record);
  template <class Record>
  std::size_t read_fastq_sequence(Record& record);
  template <class Record>
  void read_fastq_quality(Record& record, bool wrapped);

  // The '+' line `t` may repeat the whole header or, as some tools write it, its first word.
  void check_plus_line(std::string_view t, const SequenceRecord& record) const {
    if (t.size() == 1) return;
    const std::string repeated = normalize_sequence_name(t.substr(1));
    if (!repeated.empty() && repeated != record.name && repeated != record.name.substr(0, record.id_length))
      throw InputError(name(), lines.line_number(),
                       fmt::format("'+' line names '{}' but the record header (line {}) names '{}'", repeated,
                                   record.line, record.name));
  }

  template <class Record>
  bool next_line(std::string_view& line) {
    return std::is_same_v<Record, PassedRecord> ? lines.next_unchecked(line) : lines.next(line);
  }
};

namespace {

std::string record_name(const SequenceRecord& record) { return record.name; }
std::string record_name(const PassedRecord& record) { return normalize_sequence_name(record.header); }

void add_letters(SequenceRecord& record, std::string_view line) { append_without_space(record.sequence, line); }
void add_letters(PassedRecord& record, std::string_view line) { record.letters += text::count_without_space(line); }
std::size_t letters(const SequenceRecord& record) { return record.sequence.size(); }
std::size_t letters(const PassedRecord& record) { return record.letters; }
std::size_t quality_size(const SequenceRecord& record) { return record.quality.size(); }
std::size_t quality_size(const PassedRecord& record) { return record.quality; }

}  // namespace

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

template <class Record>
bool SequenceReader::Impl::next_fasta(Record& record) {
  if (!has_pending) return false;
  take_pending(record);
  std::string_view line;
  while (next_line<Record>(line)) {
    std::string_view t = trim(line);
    if (!t.empty() && t.front() == '>') {
      // The next record's header, which this reader may read whole: checked as next() checks it.
      if constexpr (std::is_same_v<Record, PassedRecord>) lines.check(line);
      set_pending(t);
      break;
    }
    add_letters(record, t);
  }
  return true;
}

template <class Record>
bool SequenceReader::Impl::next_fastq(Record& record) {
  if (!has_pending && !read_fastq_header(record)) return false;
  if (has_pending) take_pending(record);
  const std::size_t sequence_lines = read_fastq_sequence(record);
  read_fastq_quality(record, sequence_lines > 1);
  return true;
}

template <class Record>
bool SequenceReader::Impl::read_fastq_header(Record& record) {
  std::string_view line, t;
  while (next_line<Record>(line)) {
    t = trim(line);
    if (!t.empty()) break;
  }
  if (t.empty()) return false;
  if (t.front() != '@')
    throw InputError(name(), lines.line_number(),
                     fmt::format("expected '@' starting a FASTQ record, found '{}'", excerpt(t)), 1);
  if constexpr (std::is_same_v<Record, PassedRecord>) {
    record.header.assign(t.substr(1));
    record.line = lines.line_number();
    record.letters = record.quality = 0;
  } else {
    set_pending(t);
  }
  return true;
}

template <class Record>
std::size_t SequenceReader::Impl::read_fastq_sequence(Record& record) {
  std::string_view line;
  std::size_t sequence_lines = 0;
  for (;;) {
    if (!next_line<Record>(line))
      throw InputError(name(), lines.line_number(),
                       fmt::format("FASTQ record '{}' (line {}) ends without a '+' line", record_name(record),
                                   record.line));
    std::string_view t = trim(line);
    if (!t.empty() && t.front() == '+') {
      if constexpr (std::is_same_v<Record, SequenceRecord>) check_plus_line(t, record);
      return sequence_lines;
    }
    if (!t.empty() && t.front() == '@' && sequence_lines > 0)
      throw InputError(name(), lines.line_number(),
                       fmt::format("FASTQ record '{}' (line {}): expected a '+' line, found '{}'",
                                   record_name(record), record.line, excerpt(t)));
    if (t.empty()) continue;
    add_letters(record, t);
    ++sequence_lines;
  }
}

// One line, or several when the sequence was wrapped too.
template <class Record>
void SequenceReader::Impl::read_fastq_quality(Record& record, bool wrapped) {
  std::string_view line;
  for (;;) {
    if (!next_line<Record>(line)) {
      if (quality_size(record) == letters(record)) return;
      throw InputError(name(), lines.line_number(),
                       fmt::format("FASTQ record '{}' (line {}): file ends inside the quality ({} of {} characters)",
                                   record_name(record), record.line, quality_size(record), letters(record)));
    }
    std::string_view t = trim(line);
    if constexpr (std::is_same_v<Record, PassedRecord>) {
      record.quality += t.size();
    } else {
      if (!all_quality_characters(t)) {
        const std::size_t lead = static_cast<std::size_t>(t.data() - line.data());
        const std::size_t i = static_cast<std::size_t>(std::find_if(t.begin(), t.end(), is_bad_quality) - t.begin());
        throw InputError(name(), lines.line_number(),
                         fmt::format("invalid quality character '{}' in FASTQ record '{}'",
                                     static_cast<unsigned char>(t[i]) < 0x20 ? '?' : t[i], record.name),
                         lead + i + 1);
      }
      record.quality.append(t);
    }
    if (quality_size(record) > letters(record) || (!wrapped && quality_size(record) != letters(record)))
      throw InputError(name(), lines.line_number(),
                       fmt::format("FASTQ record '{}' (line {}): quality has {} characters, sequence has {}",
                                   record_name(record), record.line, quality_size(record), letters(record)));
    if (quality_size(record) == letters(record)) return;
  }
}

bool SequenceReader::next(SequenceRecord& record) {
  return impl_->format == SequenceFormat::fasta ? impl_->next_fasta(record) : impl_->next_fastq(record);
}

bool SequenceReader::pass_over(std::size_t& letters, std::size_t& line) {
  Impl& s = *impl_;
  if (!(s.format == SequenceFormat::fasta ? s.next_fasta(s.passed) : s.next_fastq(s.passed))) return false;
  letters = s.passed.letters;
  line = s.passed.line;
  return true;
}

SequenceFormat SequenceReader::format() const { return impl_->format; }
const std::string& SequenceReader::path() const { return impl_->lines.path(); }
std::optional<double> SequenceReader::fraction_read() const { return impl_->lines.fraction_read(); }

}  // namespace hyalign

#include "io/sequence_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "io/text.hpp"

namespace hyalign {

namespace {

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
// Fuzzing builds read in tiny pieces: every line and gzip block crosses buffer refills.
constexpr std::size_t kChunk = 61;
constexpr unsigned kGzBuffer = 64;
#else
constexpr std::size_t kChunk = std::size_t(1) << 20;      // bytes per gzread
constexpr unsigned kGzBuffer = 256 * 1024;                // zlib's input buffer
#endif
constexpr std::size_t kMaxLine = std::size_t(1) << 30;    // longest accepted line

using text::append_without_space;
using text::excerpt;
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

struct ByteTable {
  bool bad[256];
  constexpr ByteTable() : bad() {
    for (int c = 0; c < 256; ++c) bad[c] = (c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f;
  }
};
constexpr ByteTable kBytes;

}  // namespace

// ---------------------------------------------------------------------------------------------------
// LineReader

struct LineReader::Impl {
  std::string path;
  std::string name;
  gzFile file = nullptr;
  std::vector<char> buf;
  std::size_t begin = 0;    // start of unread data
  std::size_t scanned = 0;  // [begin, scanned) is checked and holds no '\n'
  std::size_t end = 0;      // end of data read
  bool eof = false;
  bool at_start = true;
  std::size_t line = 0;

  ~Impl() {
    if (file) gzclose(file);
  }

  [[noreturn]] void read_error(int errnum) {
    const char* msg = gzerror(file, &errnum);
    std::string problem;
    if (errnum == Z_ERRNO)
      problem = fmt::format("read error: {}", std::strerror(errno));
    else if (errnum == Z_BUF_ERROR)
      problem = "truncated gzip data (unexpected end of file)";
    else
      problem = fmt::format("read error (corrupt gzip data?): {}", msg ? msg : "unknown zlib error");
    throw InputError(name, line + 1, problem);
  }

  void fill() {
    if (begin > 0) {
      std::memmove(buf.data(), buf.data() + begin, end - begin);
      end -= begin;
      scanned -= begin;
      begin = 0;
    }
    if (buf.size() - end < kChunk) buf.resize(std::max(buf.size() * 2, end + kChunk));
    int got = gzread(file, buf.data() + end, static_cast<unsigned>(kChunk));
    if (got < 0) read_error(Z_OK);
    if (got == 0) {
      int errnum = Z_OK;
      gzerror(file, &errnum);
      if (errnum != Z_OK) read_error(errnum);
      eof = true;
      return;
    }
    end += static_cast<std::size_t>(got);
    if (at_start) {  // gzread fills the whole request unless the input ends, so a BOM is complete here
      at_start = false;
      if (end >= 3 && std::memcmp(buf.data(), "\xEF\xBB\xBF", 3) == 0) begin = scanned = 3;
    }
  }

  void check(std::size_t from, std::size_t to) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(buf.data());
    for (std::size_t i = from; i < to; ++i) {
      if (kBytes.bad[p[i]]) {
        throw InputError(name, line + 1,
                         fmt::format("binary data (byte 0x{:02x}); not a text file?", unsigned(p[i])),
                         i - begin + 1);
      }
    }
  }
};

LineReader::LineReader(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->name = path == "-" ? "<stdin>" : path;
  if (path == "-") {
    int fd = dup(0);
    if (fd < 0) throw InputError(impl_->name, fmt::format("cannot read standard input: {}", std::strerror(errno)));
    impl_->file = gzdopen(fd, "rb");
    if (!impl_->file) {
      close(fd);
      throw InputError(impl_->name, "cannot read standard input");
    }
  } else {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
      throw InputError(path, fmt::format("cannot open: {}", std::strerror(errno)));
    if (S_ISDIR(st.st_mode)) throw InputError(path, "cannot open: is a directory");
    impl_->file = gzopen(path.c_str(), "rb");
    if (!impl_->file) {
      int e = errno;
      throw InputError(path, fmt::format("cannot open: {}", e ? std::strerror(e) : "out of memory"));
    }
  }
  gzbuffer(impl_->file, kGzBuffer);
}

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
  std::string pending_name;
  std::size_t pending_id_length = 0;
  std::size_t pending_line = 0;

  const std::string& name() const { return lines.name(); }

  // t: the header line without leading whitespace (starts with '>' or '@').
  void set_pending(std::string_view t) {
    pending_name = normalize_sequence_name(t.substr(1));
    pending_id_length = std::min(pending_name.size(), trim(t.substr(1)).find_first_of(" \t\r\n\v\f"));
    pending_line = lines.line_number();
    has_pending = true;
    if (pending_name.empty()) throw InputError(name(), pending_line, "empty sequence name", 1);
  }

  // Starts `record` from the pending header.
  void take_pending(SequenceRecord& record) {
    has_pending = false;
    record.name = std::move(pending_name);
    record.id_length = pending_id_length;
    pending_name.clear();
    record.line = pending_line;
    record.sequence.clear();
    record.quality.clear();
  }

  bool next_fasta(SequenceRecord& record);
  bool next_fastq(SequenceRecord& record);
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
  std::string_view line;
  if (!has_pending) {
    std::string_view t;
    while (lines.next(line)) {
      t = trim(line);
      if (!t.empty()) break;
    }
    if (t.empty()) return false;
    if (t.front() != '@')
      throw InputError(name(), lines.line_number(),
                       fmt::format("expected '@' starting a FASTQ record, found '{}'", excerpt(t)), 1);
    set_pending(t);
  }
  take_pending(record);

  // Sequence lines up to the '+' line.
  std::size_t sequence_lines = 0;
  for (;;) {
    if (!lines.next(line))
      throw InputError(name(), lines.line_number(),
                       fmt::format("FASTQ record '{}' (line {}) ends without a '+' line", record.name, record.line));
    std::string_view t = trim(line);
    if (!t.empty() && t.front() == '+') {
      std::string repeated = normalize_sequence_name(t.substr(1));
      if (!repeated.empty() && repeated != record.name)
        throw InputError(name(), lines.line_number(),
                         fmt::format("'+' line names '{}' but the record header (line {}) names '{}'", repeated,
                                     record.line, record.name));
      break;
    }
    if (!t.empty() && t.front() == '@' && sequence_lines > 0)
      throw InputError(name(), lines.line_number(),
                       fmt::format("FASTQ record '{}' (line {}): expected a '+' line, found '{}'", record.name,
                                   record.line, excerpt(t)));
    if (t.empty()) continue;
    append_without_space(record.sequence, t);
    ++sequence_lines;
  }

  // Quality: one line, or several when the sequence was wrapped too.
  for (;;) {
    if (!lines.next(line)) {
      if (record.quality.size() == record.sequence.size()) break;
      throw InputError(name(), lines.line_number(),
                       fmt::format("FASTQ record '{}' (line {}): file ends inside the quality ({} of {} characters)",
                                   record.name, record.line, record.quality.size(), record.sequence.size()));
    }
    std::string_view t = trim(line);
    std::size_t lead = static_cast<std::size_t>(t.data() - line.data());
    for (std::size_t i = 0; i < t.size(); ++i) {
      char c = t[i];
      if (c < '!' || c > '~')
        throw InputError(name(), lines.line_number(),
                         fmt::format("invalid quality character '{}' in FASTQ record '{}'",
                                     static_cast<unsigned char>(c) < 0x20 ? '?' : c, record.name),
                         lead + i + 1);
    }
    record.quality.append(t);
    const bool wrapped = sequence_lines > 1;
    if (record.quality.size() > record.sequence.size() ||
        (!wrapped && record.quality.size() != record.sequence.size()))
      throw InputError(name(), lines.line_number(),
                       fmt::format("FASTQ record '{}' (line {}): quality has {} characters, sequence has {}",
                                   record.name, record.line, record.quality.size(), record.sequence.size()));
    if (record.quality.size() == record.sequence.size()) break;
  }
  return true;
}

bool SequenceReader::next(SequenceRecord& record) {
  return impl_->format == SequenceFormat::fasta ? impl_->next_fasta(record) : impl_->next_fastq(record);
}

SequenceFormat SequenceReader::format() const { return impl_->format; }
const std::string& SequenceReader::path() const { return impl_->lines.path(); }

}  // namespace hyalign

#include "io/record_batches.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <exception>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "io/sequence_reader.hpp"
#include "io/text.hpp"

namespace hyalign {

namespace {

// What a byte is inside a sequence line: kept, skipped (whitespace) or refused (control bytes, as
// LineReader refuses them).
enum ByteClass : unsigned char { kKeep, kSkip, kBad };
constexpr std::array<ByteClass, 256> kByteClass = [] {
  std::array<ByteClass, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = kBad;
  t[0x7f] = kBad;
  for (char c : {' ', '\t', '\r', '\n', '\v', '\f'}) t[static_cast<unsigned char>(c)] = kSkip;
  return t;
}();

// A plain file mapped into memory, parsed piece by piece.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) : path_(path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      void* p = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        data_ = static_cast<const char*>(p);
        size_ = static_cast<std::size_t>(st.st_size);
      }
    }
    close(fd);
  }
  ~MappedFile() {
    if (data_) munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  bool mapped() const { return data_ != nullptr; }
  std::string_view text() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

  // The first line start at or after `from` whose line begins with '>' (the file's size if none).
  std::size_t next_record(std::size_t from) const {
    if (from == 0) return 0;
    for (std::size_t q = from - 1; q < size_;) {
      const void* nl = std::memchr(data_ + q, '\n', size_ - q);
      if (!nl) break;
      const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(nl) - data_) + 1;
      if (at < size_ && data_[at] == '>') return at;
      q = at;
    }
    return size_;
  }

  [[noreturn]] void fail(std::size_t offset, const std::string& problem, bool with_column) const {
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(data_, data_ + offset, '\n'));
    const char* line_start = data_ + offset;
    while (line_start > data_ && line_start[-1] != '\n') --line_start;
    throw InputError(path_, line, problem, with_column ? static_cast<std::size_t>(data_ + offset - line_start) + 1 : 0);
  }

 private:
  std::string path_;
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

// The letters of one sequence line without whitespace, written at `out` unless it is null;
// returns how many. Refuses control bytes.
std::size_t line_letters(const MappedFile& file, std::size_t from, std::size_t to, char* out) {
  const std::string_view text = file.text();
  // Most lines hold printable letters only: one pass that vectorizes, then a copy.
  bool printable = true;
  for (std::size_t i = from; i < to; ++i)
    printable &= static_cast<unsigned char>(static_cast<unsigned char>(text[i]) - 0x21) < 0x5e;
  if (printable) {
    if (out) std::memcpy(out, text.data() + from, to - from);
    return to - from;
  }
  std::size_t n = 0;
  for (std::size_t i = from; i < to; ++i) {
    const char c = text[i];
    switch (kByteClass[static_cast<unsigned char>(c)]) {
      case kKeep:
        if (out) out[n] = c;
        ++n;
        break;
      case kSkip:
        if (c == '\r' && i + 1 < to) file.fail(i, std::string(text::kCarriageReturnInside), true);
        break;
      case kBad:
        file.fail(i, fmt::format("binary data (byte 0x{:02x}); not a text file?", static_cast<unsigned char>(c)), true);
    }
  }
  return n;
}

// Calls line(p, end, trimmed, is_header) for each line text[p, end) of text[from, to) that is a
// header or a sequence line of a record; refuses anything else before the first header.
template <typename Line>
void for_each_record_line(const MappedFile& file, std::size_t from, std::size_t to, Line line) {
  const std::string_view text = file.text();
  bool in_record = false;
  for (std::size_t p = from; p < to;) {
    const void* nl = std::memchr(text.data() + p, '\n', to - p);
    const std::size_t end = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) : to;
    const std::string_view t = text::trim(text.substr(p, end - p));
    if (!t.empty() && t.front() == '>') {
      line(p, end, t, true);
      in_record = true;
    } else if (in_record) {
      line(p, end, t, false);
    } else if (!t.empty()) {
      file.fail(p, "expected '>' starting a FASTA record", true);
    }
    p = end + 1;
  }
}

// What a piece of a batch holds, counted in a first pass: the batch's arrays are then sized once,
// and each piece writes its records straight into its part of them (each byte of the batch is
// written once, by the thread that parses it).
struct PieceSize {
  std::size_t records = 0, name_bytes = 0, letters = 0;
};

// Counts a name's bytes where append_sequence_name would write them.
struct CountingSink {
  std::size_t bytes = 0;
  void push_back(char) { ++bytes; }
};
struct PointerSink {
  char* to;
  void push_back(char c) { *to++ = c; }
};

void check_header_bytes(const MappedFile& file, std::size_t p, std::size_t end) {
  const std::string_view line = file.text().substr(p, end - p);
  if (const std::size_t cr = line.find('\r'); cr != std::string_view::npos && cr + 1 < line.size())
    file.fail(p + cr, std::string(text::kCarriageReturnInside), true);
  const auto bad = std::find_if(line.begin(), line.end(),
                                [](char c) { return kByteClass[static_cast<unsigned char>(c)] == kBad; });
  if (bad != line.end())
    file.fail(p + static_cast<std::size_t>(bad - line.begin()),
              fmt::format("binary data (byte 0x{:02x}); not a text file?", static_cast<unsigned char>(*bad)), true);
}

// The records, name bytes and letters of text[from, to), which starts at a header line (or holds
// only blank lines); refuses what SequenceReader refuses.
PieceSize count_piece(const MappedFile& file, std::size_t from, std::size_t to) {
  PieceSize size;
  for_each_record_line(file, from, to, [&](std::size_t p, std::size_t end, std::string_view t, bool header) {
    if (!header) {
      size.letters += line_letters(file, p, end, nullptr);
      return;
    }
    check_header_bytes(file, p, end);
    CountingSink name;
    append_sequence_name(t.substr(1), name);
    if (name.bytes == 0) file.fail(p, "empty sequence name", true);
    size.name_bytes += name.bytes;
    ++size.records;
  });
  return size;
}

// Writes the records of text[from, to), counted by count_piece, into `batch` from `at` on (the
// sizes of the pieces before it). Record r's start offsets[r] is written by the record before it
// (by the piece before, for a piece's first record), so no two pieces write the same entry.
void fill_piece(const MappedFile& file, std::size_t from, std::size_t to, PieceSize at, std::size_t first_id,
                RecordBatch& batch) {
  const std::size_t first_record = at.records;
  std::size_t& record = at.records;
  std::size_t letters = at.letters;
  for_each_record_line(file, from, to, [&](std::size_t p, std::size_t end, std::string_view t, bool header) {
    if (!header) {
      letters += line_letters(file, p, end, batch.residues.data() + letters);
      return;
    }
    if (record > first_record) batch.offsets[record] = letters;
    PointerSink name{batch.names.data() + at.name_bytes};
    append_sequence_name(t.substr(1), name);
    const auto name_size = static_cast<std::size_t>(name.to - (batch.names.data() + at.name_bytes));
    at.name_bytes += name_size;
    batch.name_offsets[record + 1] = at.name_bytes;
    batch.id_lengths[record] =
        static_cast<std::uint32_t>(std::min(name_size, text::trim(t.substr(1)).find_first_of(" \t\r\n\v\f")));
    batch.ids[record] = first_id + record;
    ++record;
  });
  if (record > first_record) batch.offsets[record] = letters;
}

// Runs fn(i) for i in [0, count) on `threads` threads; of the errors, the first in file order is
// thrown (pieces are in file order), as a reader going line by line would.
template <typename Fn>
void for_each_piece(std::size_t count, unsigned threads, Fn&& fn) {
  std::vector<std::exception_ptr> errors(count);
  parallel_for(count, threads, [&](std::size_t i, unsigned) {
    try {
      fn(i);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  });
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace

struct RecordBatchReader::Mapped {
  Mapped(const std::string& path, unsigned threads) : file(path), threads(std::max(1u, threads)) {}
  MappedFile file;
  unsigned threads;
  std::size_t next = 0;  // where the next batch starts
  std::size_t records_read = 0;

  // A mapped plain FASTA file: its first non-blank byte (after a byte-order mark) is '>'.
  bool usable() {
    if (!file.mapped()) return false;
    std::string_view t = file.text();
    const std::size_t bom = t.starts_with("\xEF\xBB\xBF") ? 3 : 0;
    const std::size_t first = t.find_first_not_of(" \t\r\n\v\f", bom);
    if (first == std::string_view::npos || t[first] != '>') return false;
    next = first;
    return true;
  }

  // Where the batch from `next` of about `letters` bytes ends: the next record's start.
  std::size_t batch_end(std::size_t letters) const {
    const std::size_t size = file.text().size();
    return file.next_record(std::min(size, next + std::max<std::size_t>(letters, 1)));
  }

  bool pass_over(std::size_t letters) {
    if (next >= file.text().size()) return false;
    next = batch_end(letters);
    return true;
  }

  bool read(RecordBatch& batch, std::size_t letters) {
    if (next >= file.text().size()) return false;
    const std::size_t end = batch_end(letters);
    const std::size_t parts = std::min<std::size_t>(threads * 4, std::max<std::size_t>(1, (end - next) >> 16));
    std::vector<std::size_t> bounds(parts + 1, end);
    bounds[0] = next;
    for (std::size_t i = 1; i < parts; ++i)
      bounds[i] = std::max(bounds[i - 1], file.next_record(next + (end - next) * i / parts));
    std::vector<PieceSize> at(parts + 1);  // the sizes of the pieces before piece i
    for_each_piece(parts, threads, [&](std::size_t i) { at[i + 1] = count_piece(file, bounds[i], bounds[i + 1]); });
    for (std::size_t i = 0; i < parts; ++i) {
      at[i + 1].records += at[i].records;
      at[i + 1].name_bytes += at[i].name_bytes;
      at[i + 1].letters += at[i].letters;
    }
    size_batch(batch, at[parts]);
    for_each_piece(parts, threads, [&](std::size_t i) { fill_piece(file, bounds[i], bounds[i + 1], at[i], records_read, batch); });
    next = end;
    records_read += batch.size();
    return batch.size() > 0 || read(batch, letters);
  }

  // Sizes every array of `batch` for `size` (no pass of zeroes: fill_piece writes each entry).
  static void size_batch(RecordBatch& batch, const PieceSize& size) {
    batch.names.resize(size.name_bytes);
    batch.residues.resize(size.letters);
    batch.name_offsets.resize(size.records + 1);
    batch.offsets.resize(size.records + 1);
    batch.ids.resize(size.records);
    batch.id_lengths.resize(size.records);
    batch.name_offsets[0] = batch.offsets[0] = 0;
  }
};

struct RecordBatchReader::Streamed {
  explicit Streamed(const std::string& path) : reader(path) {}
  SequenceReader reader;
  SequenceRecord record;
  RecordBatch passed;  // the batches passed over, read all the same
  std::size_t records_read = 0;

  bool read(RecordBatch& batch, std::size_t letters) {
    batch.clear();
    while (batch.total_residues() < std::max<std::size_t>(letters, 1) && reader.next(record)) {
      batch.add(record.name, std::span<const char>(record.sequence), records_read++);
      batch.id_lengths.push_back(static_cast<std::uint32_t>(record.id_length));
    }
    return batch.size() > 0;
  }
};

RecordBatchReader::RecordBatchReader(const std::string& path, unsigned threads) {
  if (path != "-") {
    mapped_ = std::make_unique<Mapped>(path, threads);
    if (mapped_->usable()) return;
    mapped_.reset();
  }
  streamed_ = std::make_unique<Streamed>(path);
}

RecordBatchReader::~RecordBatchReader() = default;

bool RecordBatchReader::next(RecordBatch& batch, std::size_t letters) {
  return mapped_ ? mapped_->read(batch, letters) : streamed_->read(batch, letters);
}

bool RecordBatchReader::pass_over(std::size_t letters) {
  if (mapped_) return mapped_->pass_over(letters);
  return streamed_->read(streamed_->passed, letters);
}

bool RecordBatchReader::parallel() const { return mapped_ != nullptr; }

}  // namespace hyalign

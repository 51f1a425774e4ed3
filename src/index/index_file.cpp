#include "index/index_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <span>
#include <system_error>

#include <fmt/format.h>

#define XXH_INLINE_ALL  // header-only: no library to link or carry
#include <xxhash.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/parallel.hpp"
#include "io/atomic_output.hpp"

namespace hyalign::index {
namespace {

// Fuzzing builds skip the checksum comparisons so that mutated inputs reach the checks behind them.
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
constexpr bool kVerifyChecksums = false;
#else
constexpr bool kVerifyChecksums = true;
#endif

constexpr char kMagic[8] = {'H', 'Y', 'M', 'E', 'M', 'I', '0', '2'};  // name, then format version

// The sections, laid end to end, have one checksum per block of this size, so that every thread
// can read and verify blocks: a 100 Mbp index (605 MiB) has 76, several per thread on 16 cores.
constexpr std::uint64_t kBlockBytes = std::uint64_t{8} << 20;
// Bytes per read call: the checksum reads them while they are still in cache.
constexpr std::size_t kReadBytes = std::size_t{1} << 20;

struct Header {
  std::uint64_t text_length, sequences, names_bytes, prefix_letters;
  std::uint64_t table_hash;   // XXH3-64 of the block table that follows the header
  std::uint64_t header_hash;  // XXH3-64 of the words above
  std::uint64_t expected_header_hash() const { return XXH3_64bits(this, offsetof(Header, header_hash)); }
};

// Where the parts of a file with this header lie: magic, header, block table, then the sections
// (names, sequence starts, sequence lengths, text, suffix array, prefix table).
struct Layout {
  static constexpr std::uint64_t kTableOffset = sizeof kMagic + sizeof(Header);
  explicit Layout(const Header& h)
      : codes(std::size_t{1} << (2 * h.prefix_letters)),
        payload_bytes(h.names_bytes + 16 * h.sequences + 5 * h.text_length + sizeof(SaInterval) * codes),
        blocks((payload_bytes + kBlockBytes - 1) / kBlockBytes),
        payload_offset(kTableOffset + sizeof(std::uint64_t) * blocks),
        file_bytes(payload_offset + payload_bytes) {}
  std::uint64_t block_end(std::uint64_t block) const { return std::min(payload_bytes, (block + 1) * kBlockBytes); }
  std::size_t codes;  // prefix-table entries
  std::uint64_t payload_bytes, blocks, payload_offset, file_bytes;
};

template <typename Byte>
using Sections = std::array<std::span<Byte>, 6>;

// Calls fn(piece) for each part of `sections`, laid end to end, that lies in bytes [begin, end) of
// them.
template <typename Byte, typename Fn>
void for_each_piece(const Sections<Byte>& sections, std::uint64_t begin, std::uint64_t end, Fn&& fn) {
  std::uint64_t start = 0;
  for (const std::span<Byte> section : sections) {
    const std::uint64_t from = std::max(begin, start), to = std::min<std::uint64_t>(end, start + section.size());
    if (from < to) fn(section.subspan(from - start, to - from));
    start += section.size();
  }
}

std::string_view text_of(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string joined_names(const ReferenceText& ref) {
  std::string names;
  for (const auto& n : ref.names) names.append(n).push_back('\n');
  return names;
}

std::vector<std::string> split_names(const std::string& names) {
  std::vector<std::string> split;
  for (std::size_t start = 0, end; (end = names.find('\n', start)) != std::string::npos; start = end + 1)
    split.push_back(names.substr(start, end - start));
  return split;
}

std::vector<std::uint64_t> block_hashes(const Sections<const std::byte>& sections, const Layout& layout) {
  std::vector<std::uint64_t> hashes(layout.blocks);
  for (std::uint64_t b = 0; b < layout.blocks; ++b) {
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    for_each_piece(sections, b * kBlockBytes, layout.block_end(b),
                   [&](std::span<const std::byte> piece) { XXH3_64bits_update(&state, piece.data(), piece.size()); });
    hashes[b] = XXH3_64bits_digest(&state);
  }
  return hashes;
}

[[noreturn]] void truncated(const std::string& path) {
  throw InputError(path, "the index file is truncated (written by an interrupted run?): build it again");
}
[[noreturn]] void header_damaged(const std::string& path) {
  throw InputError(path, "the index file header is damaged (checksum mismatch)");
}

// The open index file, read at offsets (by several threads at once). Its size and contents are
// those of one file even if the path is replaced meanwhile.
class IndexFile {
 public:
  explicit IndexFile(const std::string& path) : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw InputError(path, "cannot open the index file");
  }
  ~IndexFile() { ::close(fd_); }
  IndexFile(const IndexFile&) = delete;
  IndexFile& operator=(const IndexFile&) = delete;

  const std::string& path() const { return path_; }
  std::uint64_t size() const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) failed(errno);
    return static_cast<std::uint64_t>(st.st_size);
  }
  void read(void* data, std::size_t bytes, std::uint64_t offset) const {
    for (auto* at = static_cast<char*>(data); bytes > 0;) {
      const ssize_t got = ::pread(fd_, at, bytes, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) failed(errno);
      if (got == 0) truncated(path_);
      at += got;
      bytes -= static_cast<std::size_t>(got);
      offset += static_cast<std::uint64_t>(got);
    }
  }

 private:
  [[noreturn]] void failed(int error) const {
    throw InputError(path_, fmt::format("cannot read the index file: {}", std::generic_category().message(error)));
  }
  const std::string& path_;
  int fd_;
};

// The header of a file of this format version, refused before any of its sizes is used if its
// checksum or its sizes are wrong.
Header read_header(const IndexFile& file) {
  char magic[8];
  file.read(magic, sizeof magic, 0);
  if (std::memcmp(magic, kMagic, 6) != 0) throw InputError(file.path(), "not a hyalign mem index file");
  if (std::memcmp(magic, kMagic, 8) != 0)
    throw InputError(file.path(),
                     fmt::format("index format version {} is not the one this hyalign reads ({}): build it again",
                                 std::string_view(magic + 6, 2), std::string_view(kMagic + 6, 2)));
  Header header{};
  file.read(&header, sizeof header, sizeof magic);
  if ((kVerifyChecksums && header.header_hash != header.expected_header_hash()) || header.prefix_letters < 1 ||
      header.prefix_letters > 12 || header.text_length > kMaxTextLength || header.sequences > header.text_length ||
      header.names_bytes > (std::uint64_t{1} << 48))
    header_damaged(file.path());
  return header;
}

// Checked before anything is allocated: no damaged header makes the reader ask for more memory than
// the file holds.
void check_file_size(const IndexFile& file, const Layout& layout) {
  const std::uint64_t actual = file.size();
  if (actual < layout.file_bytes)
    throw InputError(file.path(), fmt::format("the index file is truncated ({} of {} bytes): build it again", actual,
                                              layout.file_bytes));
  if (actual > layout.file_bytes)
    throw InputError(file.path(), "the index file is damaged (longer than its header says)");
}

std::vector<std::uint64_t> read_block_table(const IndexFile& file, const Header& header, const Layout& layout) {
  std::vector<std::uint64_t> table(layout.blocks);
  const std::size_t bytes = table.size() * sizeof table[0];
  file.read(table.data(), bytes, Layout::kTableOffset);
  if (kVerifyChecksums && XXH3_64bits(table.data(), bytes) != header.table_hash) header_damaged(file.path());
  return table;
}

// A string of n bytes on huge pages like the index's arrays. (std::string zero-fills it first: the
// one pass over the text that is not spread over threads.)
std::string text_of_length(std::size_t n) {
  std::string text;
  text.reserve(n);
  advise_huge_pages(text.data(), n);
  text.resize(n);
  return text;
}

// The memory the index keeps, sized from the header, and the file's sections over it.
struct Parts {
  Parts(const Header& h, const Layout& layout)
      : names(h.names_bytes, '\0'), sa(h.text_length), buckets(layout.codes) {
    ref.starts.resize(h.sequences);
    ref.lengths.resize(h.sequences);
    ref.text = text_of_length(h.text_length);
  }
  Sections<std::byte> sections() {
    return {std::as_writable_bytes(std::span(names)),     std::as_writable_bytes(std::span(ref.starts)),
            std::as_writable_bytes(std::span(ref.lengths)), std::as_writable_bytes(std::span(ref.text)),
            std::as_writable_bytes(std::span(sa)),        std::as_writable_bytes(std::span(buckets))};
  }
  std::string names;
  ReferenceText ref;
  LargeArray<std::uint32_t> sa;
  LargeArray<SaInterval> buckets;
};

// Reads one block into the sections it covers and returns its checksum.
std::uint64_t read_block(const IndexFile& file, const Sections<std::byte>& sections, const Layout& layout,
                         std::uint64_t block) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  std::uint64_t offset = layout.payload_offset + block * kBlockBytes;
  for_each_piece(sections, block * kBlockBytes, layout.block_end(block), [&](std::span<std::byte> piece) {
    for (std::size_t at = 0; at < piece.size(); at += kReadBytes) {
      const auto part = piece.subspan(at, std::min(kReadBytes, piece.size() - at));
      file.read(part.data(), part.size(), offset);
      XXH3_64bits_update(&state, part.data(), part.size());
      offset += part.size();
    }
  });
  return XXH3_64bits_digest(&state);
}

void read_sections(const IndexFile& file, const std::vector<std::uint64_t>& table, const Layout& layout,
                   const Sections<std::byte>& sections, unsigned threads) {
  parallel_for(layout.blocks, threads, [&](std::size_t block, unsigned) {
    if (read_block(file, sections, layout, block) != table[block] && kVerifyChecksums)
      throw InputError(file.path(), "the index file is damaged (checksum mismatch): build it again");
  });
}

// Whether bad(item) holds for any item, on `threads` threads: a 100 Mbp index has 100 M rows.
template <typename T, typename Bad>
bool any_of_parallel(std::span<const T> items, unsigned threads, Bad bad) {
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::atomic<bool> found{false};
  parallel_for((items.size() + kChunk - 1) / kChunk, threads, [&](std::size_t c, unsigned) {
    bool any = false;  // no early exit, so the loop vectorises
    for (const T& item : items.subspan(c * kChunk, std::min(kChunk, items.size() - c * kChunk))) any |= bad(item);
    if (any) found = true;
  });
  return found;
}

// What the searches rely on, checked once: a file whose checksums match but whose parts disagree
// (written by a faulty program) is refused instead of read out of bounds.
void check_structure(const std::string& path, const ReferenceText& ref, std::span<const std::uint32_t> sa,
                     std::span<const SaInterval> buckets, unsigned threads) {
  const auto damaged = [&](const char* what) {
    throw InputError(path, fmt::format("the index file is damaged ({}): build it again", what));
  };
  if (ref.names.size() != ref.starts.size()) damaged("sequence names and offsets disagree");
  std::uint64_t next = 0;
  for (std::size_t i = 0; i < ref.starts.size(); ++i) {
    if (ref.starts[i] != next || ref.lengths[i] >= ref.text.size() - next) damaged("sequence offsets");
    next += ref.lengths[i] + 1;
    if (ref.text[next - 1] != kSeparator) damaged("sequence ends");
  }
  if (next != ref.text.size() || ref.text.empty()) damaged("sequence offsets");
  const std::uint64_t rows = sa.size();
  if (any_of_parallel(sa, threads, [rows](std::uint32_t pos) { return pos >= rows; })) damaged("suffix array");
  if (any_of_parallel(buckets, threads, [rows](const SaInterval& b) { return (b.lo > b.hi) | (b.hi > rows); }))
    damaged("prefix table");
}

}  // namespace

bool is_index_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8];
  return in.read(magic, 8) && std::memcmp(magic, kMagic, 6) == 0;
}

void write_index(const SuffixIndex& index, const std::string& path) {
  const ReferenceText& ref = index.reference();
  const std::string names = joined_names(ref);
  const Sections<const std::byte> sections = {std::as_bytes(std::span(names)),      std::as_bytes(std::span(ref.starts)),
                                              std::as_bytes(std::span(ref.lengths)), std::as_bytes(std::span(ref.text)),
                                              std::as_bytes(index.suffix_array()),  std::as_bytes(index.buckets())};
  Header header{ref.text.size(), ref.sequences(), names.size(), index.prefix_letters(), 0, 0};
  const Layout layout(header);
  const std::vector<std::uint64_t> table = block_hashes(sections, layout);
  const auto table_bytes = std::as_bytes(std::span(table));
  header.table_hash = XXH3_64bits(table_bytes.data(), table_bytes.size());
  header.header_hash = header.expected_header_hash();

  AtomicOutput out(path);
  out.write(std::string_view(kMagic, 8));
  out.write(text_of(std::as_bytes(std::span(&header, 1))));
  out.write(text_of(table_bytes));
  for (const auto& s : sections) out.write(text_of(s));
  out.commit();
}

SuffixIndex read_index(const std::string& path, unsigned threads) {
  const IndexFile file(path);
  const Header header = read_header(file);
  const Layout layout(header);
  check_file_size(file, layout);
  const std::vector<std::uint64_t> table = read_block_table(file, header, layout);
  Parts parts(header, layout);
  read_sections(file, table, layout, parts.sections(), threads);
  parts.ref.names = split_names(parts.names);
  check_structure(path, parts.ref, parts.sa, parts.buckets, threads);
  return SuffixIndex(std::move(parts.ref), std::move(parts.sa), static_cast<unsigned>(header.prefix_letters),
                     std::move(parts.buckets));
}

index::SuffixIndex load_or_build_index(const std::string& reference, unsigned threads) {
  Stopwatch clock;
  if (index::is_index_file(reference)) {
    index::SuffixIndex index = index::read_index(reference, threads);
    log_info("read index {}: {} sequences, {} letters ({:.2f} s)", reference, index.reference().sequences(),
             index.text().size() - index.reference().sequences(), clock.lap());
    return index;
  }
  index::ReferenceText text = index::read_reference(reference);
  const double read_seconds = clock.lap();
  index::SuffixIndex index = index::SuffixIndex::build(std::move(text), threads);
  log_info("indexed {}: {} sequences, {} letters (read {:.2f} s, suffix array {:.2f} s, {:.1f} bytes per letter)",
           reference, index.reference().sequences(), index.text().size() - index.reference().sequences(),
           read_seconds, clock.lap(), static_cast<double>(index.bytes()) / static_cast<double>(index.text().size()));
  return index;
}

void build_index_file(const std::string& reference, const std::string& out, unsigned threads,
                      const std::function<void(const SuffixIndex&)>& check) {
  check_not_an_input(out, std::array{reference});
  const index::SuffixIndex index = load_or_build_index(reference, threads);
  if (check) check(index);
  Stopwatch clock;
  index::write_index(index, out);
  log_info("wrote {} ({:.1f} MiB, {:.2f} s); peak memory {:.0f} MiB", out,
           static_cast<double>(index.bytes()) / (1 << 20), clock.lap(), peak_memory_mib());
}

}  // namespace hyalign::index

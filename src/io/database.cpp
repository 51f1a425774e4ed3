#include "io/database.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#define XXH_INLINE_ALL  // header-only: no library to link or carry
#include <xxhash.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "io/atomic_output.hpp"
#include "io/sequence_reader.hpp"

namespace hyalign {
namespace {

constexpr char kMagic[8] = {'H', 'Y', 'A', 'L', 'D', 'B', '0', '3'};  // name, then format version

// Database file, format 3 (little-endian; format 2 kept each sequence's id, not its title):
//   "HYALDB03"
//   chunks:  header  u64 count, u64 residues, u64 name_bytes, u64 payload_hash, u64 header_hash
//            payload u64 ids[count], u64 name_offsets[count+1], u64 offsets[count+1], names, letters
//   end:     a header with count 0, residues = all sequences, name_bytes = chunks
// A sequence's name is its title (title_of: its id, then its description).
// header_hash is XXH3-64 of the header's first four words and payload_hash of the payload, so a
// damaged byte anywhere is found before its chunk is used.
struct ChunkHeader {
  std::uint64_t count = 0, residues = 0, name_bytes = 0, payload_hash = 0, header_hash = 0;
  std::uint64_t expected_header_hash() const { return XXH3_64bits(this, offsetof(ChunkHeader, header_hash)); }
  std::uint64_t payload_bytes() const { return (3 * count + 2) * 8 + name_bytes + residues; }
};
static_assert(sizeof(ChunkHeader) == 40);

// Fuzzing builds skip the checksum comparisons so that mutated inputs reach the checks behind them.
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
constexpr bool kVerifyChecksums = false;
#else
constexpr bool kVerifyChecksums = true;
#endif

// A file opened for positioned reads, which threads may issue at once.
class FileHandle {
 public:
  explicit FileHandle(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw InputError(path, std::strerror(errno));
  }
  ~FileHandle() { ::close(fd_); }
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;

  // Whether all `bytes` at `offset` were read (false at the end of the file or on an error).
  bool read_at(std::uint8_t* data, std::size_t bytes, off_t offset) const {
    while (bytes > 0) {
      const ssize_t got = ::pread(fd_, data, bytes, offset);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      data += got, bytes -= static_cast<std::size_t>(got), offset += got;
    }
    return true;
  }

 private:
  int fd_;
};

class DatabaseSource final : public SequenceSource {
 public:
  DatabaseSource(const std::string& path, const ScoreMatrix& matrix, unsigned threads)
      : path_(path), in_(path, std::ios::binary), letters_(path), matrix_(matrix), threads_(std::max(1u, threads)) {
    char magic[8];
    if (!in_.read(magic, 8)) throw InputError(path, "not a hyalign database");
    if (std::memcmp(magic, kMagic, 8) != 0)
      throw InputError(path, fmt::format("database format {} is not the format {} that this hyalign reads; "
                                         "rebuild it with hyalign search makedb",
                                         std::string_view(magic + 6, 2), std::string_view(kMagic + 6, 2)));
    // A complete database ends with a sealed end header; a cut-off copy is refused before any work.
    in_.seekg(0, std::ios::end);
    file_bytes_ = static_cast<std::uint64_t>(in_.tellg());
    ChunkHeader end;
    if (file_bytes_ < 8 + sizeof end || !in_.seekg(-static_cast<std::streamoff>(sizeof end), std::ios::end) ||
        !in_.read(reinterpret_cast<char*>(&end), sizeof end) || end.count != 0 ||
        (kVerifyChecksums && end.header_hash != end.expected_header_hash()))
      throw InputError(path, "truncated or damaged database: no end record (rebuild it with hyalign search makedb)");
    in_.seekg(8);
  }
  bool next_chunk(CodedSequences& chunk) override {
    chunk.clear();
    ChunkHeader header;
    if (!next_header(header)) return false;
    XXH3_64bits_reset(&hash_);
    const std::size_t count = header.count, residues = header.residues, name_bytes = header.name_bytes;
    chunk.ids.resize(count);
    chunk.name_offsets.resize(count + 1);
    chunk.offsets.resize(count + 1);
    static_assert(sizeof(std::size_t) == sizeof(std::uint64_t), "the database stores 64-bit ids and offsets");
    read(chunk.ids.data(), count * 8);
    read(chunk.name_offsets.data(), (count + 1) * 8);
    read(chunk.offsets.data(), (count + 1) * 8);
    chunk.names.resize(name_bytes);
    read(chunk.names.data(), name_bytes);
    chunk.residues.resize(residues);
    read_letters(chunk.residues.data(), residues);
    if (kVerifyChecksums && XXH3_64bits_digest(&hash_) != header.payload_hash) damaged("checksum mismatch");
    const auto& name_offsets = chunk.name_offsets;
    const auto& offsets = chunk.offsets;
    if (name_offsets[0] != 0 || offsets[0] != 0) damaged("bad offsets");
    for (std::size_t i = 0; i < count; ++i)
      if (name_offsets[i] > name_offsets[i + 1] || name_offsets[i + 1] > name_bytes || offsets[i] > offsets[i + 1] ||
          offsets[i + 1] > residues)
        damaged("bad offsets");
    // Ids are input positions: a chunk holds the next `count` of them, in any order.
    const std::uint64_t first_id = sequences_read_ - count;
    std::vector<bool> seen(count);
    for (std::size_t id : chunk.ids) {
      if (id < first_id || id - first_id >= count || seen[id - first_id]) damaged("bad sequence ids");
      seen[id - first_id] = true;
    }
    encode_letters(chunk);
    return true;
  }
  // Only the header is read: the chunk's payload is checked by whoever reads it.
  bool skip_chunk() override {
    ChunkHeader header;
    if (!next_header(header)) return false;
    if (!in_.seekg(static_cast<std::streamoff>(header.payload_bytes()), std::ios::cur)) damaged("cut off");
    return true;
  }
  const UnknownLetters& unknown_letters() const override { return unknown_; }

 private:
  // The next chunk's header, its sequences counted; false at the end record.
  bool next_header(ChunkHeader& header) {
    if (done_) return false;
    header = read_header();
    if (header.count == 0) {  // whole chunks can only go missing together with their count
      if (header.residues != sequences_read_ || header.name_bytes != chunk_number_ - 1)
        damaged(fmt::format("the end record counts {} sequences in {} chunks, the file holds {} in {}",
                            header.residues, header.name_bytes, sequences_read_, chunk_number_ - 1));
      done_ = true;
      return false;
    }
    sequences_read_ += header.count;
    return true;
  }
  ChunkHeader read_header() {
    ++chunk_number_;
    ChunkHeader h;
    if (!in_.read(reinterpret_cast<char*>(&h), sizeof h)) damaged("cut off");
    if (kVerifyChecksums && h.header_hash != h.expected_header_hash()) damaged("header checksum mismatch");
    // Sizes are bounded by what is left of the file, so no damaged header can ask for huge buffers.
    const std::uint64_t left = file_bytes_ - static_cast<std::uint64_t>(in_.tellg());
    if (h.count == 0) {  // the end record
      if (left != 0) damaged("end record before the end of the file");
      return h;
    }
    if (h.count > left / 24 || h.name_bytes > left || h.residues > left || h.payload_bytes() > left)
      damaged("sizes beyond the end of the file");
    return h;
  }
  void read(void* data, std::size_t bytes) {
    if (!in_.read(static_cast<char*>(data), static_cast<std::streamsize>(bytes))) damaged("cut off");
    XXH3_64bits_update(&hash_, data, bytes);
  }

  // The letters, the bulk of a chunk, in slices on every thread: the page faults of fresh memory
  // and the copies from the page cache scale with cores (one thread took 0.3-0.5 s of a 16-core
  // host's time for 207 M residues, while a GPU was ready to score them).
  void read_letters(std::uint8_t* data, std::size_t bytes) {
    constexpr std::size_t kSlice = std::size_t{8} << 20;
    const auto at = static_cast<off_t>(in_.tellg());
    parallel_for((bytes + kSlice - 1) / kSlice, threads_, [&](std::size_t slice, unsigned) {
      const std::size_t first = slice * kSlice, size = std::min(kSlice, bytes - first);
      if (!letters_.read_at(data + first, size, at + static_cast<off_t>(first))) damaged("cut off");
    });
    in_.seekg(at + static_cast<off_t>(bytes));
    XXH3_64bits_update(&hash_, data, bytes);
  }

  // Letters become codes in place, in parts of consecutive sequences on every thread. makedb keeps
  // residues only, so each code takes its letter's place.
  void encode_letters(CodedSequences& chunk) {
    const auto& offsets = chunk.offsets;
    const std::vector<std::size_t> parts = part_starts(offsets, chunk.residues.size() / (4 * threads_) + 1);
    std::vector<UnknownLetters> unknown(parts.size() - 1);
    std::uint8_t* data = chunk.residues.data();
    parallel_for(parts.size() - 1, threads_, [&](std::size_t p, unsigned) {
      const std::uint64_t first = offsets[parts[p]], end = offsets[parts[p + 1]];
      const std::string_view letters(reinterpret_cast<const char*>(data) + first, end - first);
      if (encode_residues(letters, matrix_, data + first, unknown[p]) != letters.size()) damaged("gaps among the letters");
    });
    for (const UnknownLetters& u : unknown) unknown_.add(u);
  }

  // Sequence indices where parts of about `part_residues` letters start, then the count.
  static std::vector<std::size_t> part_starts(const LargeArray<std::size_t>& offsets, std::size_t part_residues) {
    std::vector<std::size_t> starts{0};
    const std::size_t count = offsets.size() - 1;
    for (std::size_t i = 1; i < count; ++i)
      if (offsets[i] - offsets[starts.back()] >= part_residues) starts.push_back(i);
    starts.push_back(count);
    return starts;
  }
  [[noreturn]] void damaged(std::string_view what) const {
    throw InputError(path_, fmt::format("database chunk {} is damaged ({}): rebuild the database with hyalign search "
                                        "makedb",
                                        chunk_number_, what));
  }
  std::string path_;
  std::ifstream in_;
  FileHandle letters_;  // the same file, for the letters' positioned reads
  const ScoreMatrix& matrix_;
  unsigned threads_;
  std::uint64_t file_bytes_ = 0;
  std::size_t chunk_number_ = 0;
  std::uint64_t sequences_read_ = 0;
  XXH3_state_t hash_{};
  bool done_ = false;
  UnknownLetters unknown_;
};

}  // namespace

bool is_database(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8];
  return in.read(magic, 8) && std::memcmp(magic, kMagic, 6) == 0;
}


std::unique_ptr<SequenceSource> open_database(const std::string& path, const ScoreMatrix& matrix, unsigned threads) {
  return std::make_unique<DatabaseSource>(path, matrix, threads);
}

MakeDbReport write_database(const std::string& input, const std::string& output, std::size_t chunk_residues) {
  check_not_an_input(output, std::array{input});
  SequenceReader reader(input);
  AtomicOutput out(output);
  out.write(std::string_view(kMagic, 8));
  MakeDbReport report;
  struct Entry {
    std::string name, letters;
    std::uint64_t id;
  };
  std::vector<Entry> chunk;
  std::size_t chunk_size = 0;
  auto put = [&](const void* data, std::size_t bytes) {
    out.write(std::string_view(static_cast<const char*>(data), bytes));
  };
  auto put_header = [&](ChunkHeader header) {
    header.header_hash = header.expected_header_hash();
    put(&header, sizeof header);
  };
  auto flush = [&] {
    if (chunk.empty()) return;
    // Longest first within the chunk: neighbours have similar lengths, so SIMD lanes finish together.
    std::stable_sort(chunk.begin(), chunk.end(),
                     [](const Entry& a, const Entry& b) { return a.letters.size() > b.letters.size(); });
    std::vector<std::uint64_t> ids, name_offsets{0}, offsets{0};
    std::string names, letters;
    for (const Entry& e : chunk) {
      ids.push_back(e.id);
      names += e.name;
      name_offsets.push_back(names.size());
      letters += e.letters;
      offsets.push_back(letters.size());
    }
    const std::pair<const void*, std::size_t> payload[] = {{ids.data(), ids.size() * 8},
                                                           {name_offsets.data(), name_offsets.size() * 8},
                                                           {offsets.data(), offsets.size() * 8},
                                                           {names.data(), names.size()},
                                                           {letters.data(), letters.size()}};
    XXH3_state_t hash;
    XXH3_64bits_reset(&hash);
    for (const auto& [data, bytes] : payload) XXH3_64bits_update(&hash, data, bytes);
    put_header({chunk.size(), letters.size(), names.size(), XXH3_64bits_digest(&hash), 0});
    for (const auto& [data, bytes] : payload) put(data, bytes);
    ++report.chunks;
    chunk.clear();
    chunk_size = 0;
  };
  SequenceRecord record;
  while (reader.next(record)) {
    std::string letters;
    letters.reserve(record.sequence.size());
    for (char c : record.sequence)
      if (c != '-' && c != '.') letters.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    report.residues += letters.size();
    chunk_size += letters.size();
    chunk.push_back({title_of(record), std::move(letters), report.sequences++});
    if (chunk_size >= chunk_residues) flush();
  }
  flush();
  if (report.sequences == 0) throw InputError(input, "no sequences");
  put_header({0, report.sequences, report.chunks, 0, 0});
  out.commit();
  return report;
}

}  // namespace hyalign

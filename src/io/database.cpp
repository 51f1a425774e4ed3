#include "io/database.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <vector>

#define XXH_INLINE_ALL  // header-only: no library to link or carry
#include <xxhash.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "io/atomic_output.hpp"
#include "io/sequence_reader.hpp"

namespace hyalign {
namespace {

constexpr char kMagic[8] = {'H', 'Y', 'A', 'L', 'D', 'B', '0', '2'};  // name, then format version

// Database file, format 2 (little-endian):
//   "HYALDB02"
//   chunks:  header  u64 count, u64 residues, u64 name_bytes, u64 payload_hash, u64 header_hash
//            payload u64 ids[count], u64 name_offsets[count+1], u64 offsets[count+1], names, letters
//   end:     a header with count 0, residues = all sequences, name_bytes = chunks
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

class DatabaseSource final : public SequenceSource {
 public:
  DatabaseSource(const std::string& path, const ScoreMatrix& matrix)
      : path_(path), in_(path, std::ios::binary), matrix_(matrix) {
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
    if (done_) return false;
    const ChunkHeader header = read_header();
    if (header.count == 0) {  // whole chunks can only go missing together with their count
      if (header.residues != sequences_read_ || header.name_bytes != chunk_number_ - 1)
        damaged(fmt::format("the end record counts {} sequences in {} chunks, the file holds {} in {}",
                            header.residues, header.name_bytes, sequences_read_, chunk_number_ - 1));
      done_ = true;
      return false;
    }
    sequences_read_ += header.count;
    XXH3_64bits_reset(&hash_);
    const std::size_t count = header.count, residues = header.residues, name_bytes = header.name_bytes;
    std::vector<std::uint64_t> offsets(count + 1);
    chunk.ids.resize(count);
    chunk.name_offsets.resize(count + 1);
    static_assert(sizeof(std::size_t) == sizeof(std::uint64_t), "the database stores 64-bit ids and offsets");
    read(chunk.ids.data(), count * 8);
    read(chunk.name_offsets.data(), (count + 1) * 8);
    read(offsets.data(), offsets.size() * 8);
    // Names and letters are read straight into the chunk; letters become codes in place.
    chunk.names.resize(name_bytes);
    read(chunk.names.data(), name_bytes);
    chunk.residues.resize(residues);
    read(chunk.residues.data(), residues);
    if (kVerifyChecksums && XXH3_64bits_digest(&hash_) != header.payload_hash) damaged("checksum mismatch");
    const auto& name_offsets = chunk.name_offsets;
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
    std::uint8_t* data = chunk.residues.data();
    std::size_t out = 0;
    chunk.offsets.reserve(count + 1);
    for (std::size_t i = 0; i < count; ++i) {
      out += encode_residues({reinterpret_cast<const char*>(data) + offsets[i], offsets[i + 1] - offsets[i]}, matrix_,
                             data + out, unknown_);
      chunk.offsets.push_back(out);
    }
    chunk.residues.resize(out);
    return true;
  }
  const UnknownLetters& unknown_letters() const override { return unknown_; }

 private:
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
  [[noreturn]] void damaged(std::string_view what) const {
    throw InputError(path_, fmt::format("database chunk {} is damaged ({}): rebuild the database with hyalign search "
                                        "makedb",
                                        chunk_number_, what));
  }
  std::string path_;
  std::ifstream in_;
  const ScoreMatrix& matrix_;
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


std::unique_ptr<SequenceSource> open_database(const std::string& path, const ScoreMatrix& matrix) {
  return std::make_unique<DatabaseSource>(path, matrix);
}

MakeDbReport write_database(const std::string& input, const std::string& output, std::size_t chunk_residues) {
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
    chunk.push_back({record.name.substr(0, record.id_length), std::move(letters), report.sequences++});
    if (chunk_size >= chunk_residues) flush();
  }
  flush();
  if (report.sequences == 0) throw InputError(input, "no sequences");
  put_header({0, report.sequences, report.chunks, 0, 0});
  out.commit();
  return report;
}

}  // namespace hyalign

#include "index/index_file.hpp"

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>

#include <fmt/format.h>

#define XXH_INLINE_ALL  // header-only: no library to link or carry
#include <xxhash.h>

#include "core/error.hpp"
#include "io/atomic_output.hpp"

namespace hyalign::index {
namespace {

// Fuzzing builds skip the checksum comparisons so that mutated inputs reach the checks behind them.
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
constexpr bool kVerifyChecksums = false;
#else
constexpr bool kVerifyChecksums = true;
#endif

constexpr char kMagic[8] = {'H', 'Y', 'M', 'E', 'M', 'I', '0', '1'};  // name, then format version

struct Header {
  std::uint64_t text_length, sequences, names_bytes, prefix_letters;
  std::uint64_t payload_hash;  // XXH3-64 of every section in order
  std::uint64_t header_hash;   // XXH3-64 of the words above
  std::uint64_t expected_header_hash() const { return XXH3_64bits(this, offsetof(Header, header_hash)); }
};

std::string joined_names(const ReferenceText& ref) {
  std::string names;
  for (const auto& n : ref.names) names.append(n).push_back('\n');
  return names;
}

template <typename T>
std::string_view bytes_of(std::span<const T> v) {
  return {reinterpret_cast<const char*>(v.data()), v.size_bytes()};
}

class IndexReader {
 public:
  explicit IndexReader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) throw InputError(path, "cannot open the index file");
    XXH3_64bits_reset(&hash_);
  }
  void read_raw(void* data, std::size_t bytes, bool hashed) {
    if (!in_.read(static_cast<char*>(data), static_cast<std::streamsize>(bytes)))
      throw InputError(path_, "the index file is truncated (written by an interrupted run?): build it again");
    if (hashed) XXH3_64bits_update(&hash_, data, bytes);
  }
  template <typename T>
  std::vector<T> read_vector(std::size_t count) {
    std::vector<T> v(count);
    read_raw(v.data(), count * sizeof(T), true);
    return v;
  }
  std::string read_string(std::size_t bytes) {
    std::string s(bytes, '\0');
    read_raw(s.data(), bytes, true);
    return s;
  }
  std::uint64_t digest() { return XXH3_64bits_digest(&hash_); }
  bool at_end() { return in_.peek() == std::char_traits<char>::eof(); }

 private:
  const std::string& path_;
  std::ifstream in_;
  XXH3_state_t hash_{};
};

// What the searches rely on, checked once: a file whose checksums match but whose parts disagree
// (written by a faulty program) is refused instead of read out of bounds.
void check_structure(const std::string& path, const ReferenceText& ref, const std::vector<std::uint32_t>& sa,
                     const std::vector<SaInterval>& buckets) {
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
  for (std::uint32_t pos : sa)
    if (pos >= sa.size()) damaged("suffix array");
  for (const SaInterval& b : buckets)
    if (b.lo > b.hi || b.hi > sa.size()) damaged("prefix table");
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
  const std::string_view sections[] = {names,
                                       bytes_of(std::span<const std::uint64_t>(ref.starts)),
                                       bytes_of(std::span<const std::uint64_t>(ref.lengths)),
                                       ref.text,
                                       bytes_of(index.suffix_array()),
                                       bytes_of(index.buckets())};
  XXH3_state_t hash;
  XXH3_64bits_reset(&hash);
  for (const auto& s : sections) XXH3_64bits_update(&hash, s.data(), s.size());
  Header header{ref.text.size(), ref.sequences(), names.size(), index.prefix_letters(), XXH3_64bits_digest(&hash), 0};
  header.header_hash = header.expected_header_hash();

  AtomicOutput out(path);
  out.write(std::string_view(kMagic, 8));
  out.write(std::string_view(reinterpret_cast<const char*>(&header), sizeof header));
  for (const auto& s : sections) out.write(s);
  out.commit();
}

SuffixIndex read_index(const std::string& path) {
  IndexReader in(path);
  char magic[8];
  in.read_raw(magic, 8, false);
  if (std::memcmp(magic, kMagic, 6) != 0) throw InputError(path, "not a hyalign mem index file");
  if (std::memcmp(magic, kMagic, 8) != 0)
    throw InputError(path, fmt::format("index format version {} is not the one this hyalign reads ({}): build it again",
                                       std::string_view(magic + 6, 2), std::string_view(kMagic + 6, 2)));
  Header header{};
  in.read_raw(&header, sizeof header, false);
  if ((kVerifyChecksums && header.header_hash != header.expected_header_hash()) || header.prefix_letters < 1 || header.prefix_letters > 12 ||
      header.text_length > kMaxTextLength || header.sequences > header.text_length ||
      header.names_bytes > (std::uint64_t{1} << 48))
    throw InputError(path, "the index file header is damaged (checksum mismatch)");

  const std::size_t codes = std::size_t{1} << (2 * header.prefix_letters);
  const std::uint64_t expected = 8 + sizeof header + header.names_bytes + 16 * header.sequences +
                                 5 * header.text_length + sizeof(SaInterval) * codes;
  const std::uint64_t actual = std::filesystem::file_size(path);
  if (actual < expected)
    throw InputError(path, fmt::format("the index file is truncated ({} of {} bytes): build it again", actual, expected));
  if (actual > expected) throw InputError(path, "the index file is damaged (longer than its header says)");

  ReferenceText ref;
  const std::string names = in.read_string(header.names_bytes);
  for (std::size_t start = 0, end; (end = names.find('\n', start)) != std::string::npos; start = end + 1)
    ref.names.push_back(names.substr(start, end - start));
  ref.starts = in.read_vector<std::uint64_t>(header.sequences);
  ref.lengths = in.read_vector<std::uint64_t>(header.sequences);
  ref.text = in.read_string(header.text_length);
  auto sa = in.read_vector<std::uint32_t>(header.text_length);
  auto buckets = in.read_vector<SaInterval>(codes);
  if ((kVerifyChecksums && in.digest() != header.payload_hash) || !in.at_end())
    throw InputError(path, "the index file is damaged (checksum mismatch): build it again");
  check_structure(path, ref, sa, buckets);
  return SuffixIndex(std::move(ref), std::move(sa), static_cast<unsigned>(header.prefix_letters), std::move(buckets));
}

}  // namespace hyalign::index

#pragma once
// The bytes of a file or of standard input: gzip (one member or many, as bgzip writes) decoded by
// ISA-L, anything else passed through as it is. A thread of its own reads and decodes the next
// blocks while the caller parses the last, so that a reader of a gzip file runs at the speed of
// its parsing or of the decoding, whichever is slower, not of both added.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hyalign {

class ByteSource {
 public:
  // A read or decoding failure, without a line number (the caller knows it).
  struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

  // "-" is standard input. Throws InputError if the file cannot be opened or is a directory.
  // `block` is the size of the blocks next() returns (smaller at the end of the input).
  ByteSource(const std::string& path, std::size_t block);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // The next block; empty at the end of the input. It stays valid until the next call.
  // Throws Error on a read error, corrupt or truncated gzip data.
  std::string_view next();

  // The share of the file read so far (decoded ahead included), from 0 to 1: where the caller is in
  // a long job. None for a file of no known size (a pipe).
  std::optional<double> fraction_read() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The bytes a ByteSource of `path` returns, where known without reading it: the size of a regular
// file that is not gzip (standard input too, when it is one: what is left of it). None for gzip (a
// file of many members, as bgzip writes, does not say its size decoded), pipes (never opened here)
// and paths that cannot be read (their reader reports why).
std::optional<std::uint64_t> size_as_read(const std::string& path);
// The sum of size_as_read over `paths` (empty ones left out), where every one is known.
std::optional<std::uint64_t> size_as_read(const std::vector<std::string>& paths);
// About the fewest sequence letters that ByteSources of `paths` return, where size_as_read does not
// know: the compressed bytes of the gzip files among them. Sequence text holds about as many letters
// as its gzip has bytes or more (FASTQ with varied qualities about as many, DNA FASTA three times,
// protein FASTA 1.6 times); pipes and plain files count none. A hint for planning, not a bound.
std::uint64_t letters_at_least(const std::vector<std::string>& paths);

}  // namespace hyalign

// FASTA/FASTQ reader, plain and gzip: the first byte chooses whether the rest is gzipped first (so
// the gzip path sees valid streams as well as the damaged ones a mutated .gz gives).
#include <zlib.h>

#include <vector>

#include "fuzz_support.hpp"
#include "io/sequence_reader.hpp"

namespace {

std::string gzipped(std::string_view text) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&z, text.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hyalign;
  if (size == 0) return 0;
  const std::string_view text = fuzz::bytes(data + 1, size - 1);
  const std::string path = fuzz::as_file(data[0] & 1 ? gzipped(text) : std::string(text));
  return fuzz::expect_clean_errors([&] {
    SequenceReader reader(path);
    SequenceRecord record;
    while (reader.next(record))
      if (record.id_length > record.name.size()) std::abort();
  });
}

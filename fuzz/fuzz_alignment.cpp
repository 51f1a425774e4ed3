// Reference alignments: PHYLIP (strict/relaxed, sequential/interleaved) and aligned FASTA.
#include "fuzz_support.hpp"
#include "io/alignment_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hyalign;
  const std::string path = fuzz::as_file(fuzz::bytes(data, size));
  return fuzz::expect_clean_errors([&] {
    const RawAlignment a = read_alignment(path);
    if (a.names.size() != a.rows.size()) std::abort();
    for (const auto& row : a.rows)
      if (row.size() != a.columns()) std::abort();
  });
}

// NCBI score matrix files (search -m FILE).
#include "core/score_matrix.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hyalign;
  const std::string path = fuzz::as_file(fuzz::bytes(data, size));
  return fuzz::expect_clean_errors([&] {
    const ScoreMatrix m = ScoreMatrix::from_ncbi_file(path);
    for (unsigned c = 0; c < 256; ++c) m.encode(static_cast<char>(c));
  });
}

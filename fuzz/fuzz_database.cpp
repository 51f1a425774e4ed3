// Databases written by `search makedb` (this build skips the checksum comparisons, so mutations
// reach the structure checks behind them), read chunk by chunk as a search reads them.
#include "core/score_matrix.hpp"
#include "fuzz_support.hpp"
#include "io/coded_sequences.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hyalign;
  static const ScoreMatrix matrix = ScoreMatrix::builtin("BLOSUM62");
  const std::string path = fuzz::as_file(fuzz::bytes(data, size));
  return fuzz::expect_clean_errors([&] {
    const auto source = open_sequences(path, matrix, 1000, 1);
    CodedSequences chunk;
    while (source->next_chunk(chunk))
      for (std::size_t i = 0; i < chunk.size(); ++i)
        if (chunk.sequence(i).size() != chunk.length(i) || chunk.name(i).size() > chunk.names.size()) std::abort();
  });
}

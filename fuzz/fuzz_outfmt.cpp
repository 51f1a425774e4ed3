// The --outfmt column list, then one row written with it.
#include "fuzz_support.hpp"
#include "io/blast_tabular.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hyalign;
  return fuzz::expect_clean_errors([&] {
    const TabularFormat format = TabularFormat::parse(fuzz::bytes(data, size));
    TabularHit hit;
    hit.qseqid = "q";
    hit.sseqid = "s";
    hit.length = 10;
    hit.evalue = 1e-5;
    if (format.line(hit).back() != '\n') std::abort();
  });
}

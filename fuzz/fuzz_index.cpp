// Index files written by `mem index` (this build skips the checksum comparisons, so mutations
// reach the structure checks behind them), read and searched as `mem` does.
#include "fuzz_support.hpp"
#include "index/index_file.hpp"
#include "kernels/mem_kernel.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hyalign;
  const std::string path = fuzz::as_file(fuzz::bytes(data, size));
  return fuzz::expect_clean_errors([&] {
    const index::SuffixIndex idx = index::read_index(path, 1);
    for (kernels::MemKind kind : {kernels::MemKind::maxmatch, kernels::MemKind::mumreference}) {
      const kernels::MemFinder finder(idx, {kind, 4, false});
      std::vector<kernels::MemMatch> found;
      finder.find("acgtacgtnnacgtttgacgt", found);
      // Without checksums a mutated suffix array can point a seed anywhere: matches may be wrong,
      // but every read stays inside the text.
      for (const auto& m : found)
        if (m.ref_pos >= idx.text().size()) std::abort();
    }
  });
}

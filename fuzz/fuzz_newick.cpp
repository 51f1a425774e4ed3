// Newick trees, then PaPaRa's checks and unrooting of them (with and without branch lengths).
#include "fuzz_support.hpp"
#include "io/newick.hpp"
#include "papara/tree.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hyalign;
  if (size == 0) return 0;
  const bool need_lengths = data[0] & 1;
  const std::string_view text = fuzz::bytes(data + 1, size - 1);
  return fuzz::expect_clean_errors([&] {
    const NewickTree tree = parse_newick(text, "fuzz.nwk");
    const papara::PaparaTree papara_tree(tree, "fuzz.nwk", need_lengths);
    if (papara_tree.postorder().size() != papara_tree.branch_count() + 1) std::abort();
  });
}

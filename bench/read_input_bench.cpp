// `map`'s reader: reads or pairs per second read into batches (what a rank does with its own
// batches) and passed over (what it does with other MPI ranks' batches), the same files, median of
// ROUNDS each, alternating.
// usage: hyalign_bench_read_input ROUNDS READS_1.fq[.gz] [READS_2.fq[.gz]]
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_support.hpp"
#include "map/read_input.hpp"

namespace {

constexpr std::size_t kBatchLetters = 10'000'000;  // map's default -K

// Seconds to take every batch of the files, read (`pass` false) or passed over; the fragments in `fragments`.
double take_all(const std::string& reads1, const std::string& reads2, bool pass, std::size_t& fragments) {
  const double start = hyalign::bench::now();
  hyalign::map::ReadInput input(reads1, reads2, false);
  hyalign::map::ReadBatch batch;
  fragments = 0;
  if (pass) {
    while (input.pass_over(kBatchLetters, 1)) {
    }
  } else {
    while (input.next(batch, kBatchLetters, 1)) fragments = batch.fragment_number(batch.reads.size() - 1) + 1;
  }
  return hyalign::bench::now() - start;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || std::atoi(argv[1]) < 1) {
    fmt::print(stderr, "usage: {} ROUNDS READS_1.fq[.gz] [READS_2.fq[.gz]]\n", argv[0]);
    return 2;
  }
  const int rounds = std::atoi(argv[1]);
  const std::string reads1 = argv[2], reads2 = argc > 3 ? argv[3] : "";
  std::vector<double> read, passed;
  std::size_t fragments = 0, unused = 0;
  for (int r = 0; r < rounds; ++r) {
    read.push_back(take_all(reads1, reads2, false, fragments));
    passed.push_back(take_all(reads1, reads2, true, unused));
  }
  const char* unit = reads2.empty() ? "reads" : "pairs";
  fmt::print("{} {}, median of {}\n", fragments, unit, rounds);
  fmt::print("read into batches: {:.3f} s, {:.2f} M {}/s\n", median(read), fragments / median(read) / 1e6, unit);
  fmt::print("passed over:       {:.3f} s, {:.2f} M {}/s ({:.2f}x)\n", median(passed), fragments / median(passed) / 1e6,
             unit, median(read) / median(passed));
}

// mem's text formatted a window at a time into two buffers that take turns: the same text whatever
// the window's size, down to one block a window, where each block's buffer is reused only once the
// block two windows before it is written, even when the output is read slowly.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <exception>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "mem/mem.hpp"
#include "test_support.hpp"

namespace hyalign::mem {
namespace {

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What `write` writes to a named pipe, read 16 KiB at a time with a pause after each read, so
// that the writer waits on the reader.
template <typename Write>
std::string read_slowly(const std::string& fifo, Write&& write) {
  EXPECT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string text;
  std::thread reader([&] {
    const int fd = open(fifo.c_str(), O_RDONLY);
    char chunk[16384];
    for (ssize_t got; (got = read(fd, chunk, sizeof chunk)) > 0;) {
      text.append(chunk, static_cast<std::size_t>(got));
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    close(fd);
  });
  try {
    write(fifo);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
  // Where the writer never opened the pipe, the reader still waits in open(): this ends it.
  const int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
  if (fd >= 0) close(fd);
  reader.join();
  unlink(fifo.c_str());
  return text;
}

// A genome of 30 copies of one unit, a letter changed in each, and 6,000 reads of 150 letters
// from it: -maxmatch prints about 20 matches a strand, some 260,000 lines in 8 blocks (7 MB).
void write_repeat_genome_and_reads(const test::TempDir& dir) {
  std::mt19937 rng(5);
  const std::string unit = test::random_bases(rng, 400);
  std::string genome;
  for (int copy = 0; copy < 30; ++copy) {
    std::string c = unit;
    c[rng() % c.size()] = "acgt"[rng() % 4];
    genome += c + test::random_bases(rng, 50);
  }
  std::ofstream(dir.file("genome.fa")) << ">repeats\n" << genome << "\n";
  std::ofstream reads(dir.file("reads.fa"));
  for (int r = 0; r < 6000; ++r) reads << ">r" << r << "\n" << genome.substr(rng() % (genome.size() - 150), 150) << "\n";
}

TEST(MemOutput, WindowsOfAnySizeGiveTheSameText) {
  const test::TempDir dir;
  write_repeat_genome_and_reads(dir);
  MemOptions options;
  options.reference = dir.file("genome.fa");
  options.queries = {dir.file("reads.fa")};
  options.params.kind = kernels::MemKind::maxmatch;
  options.strands = Strands::both;
  options.threads = 3;
  options.device = engine::DeviceChoice::cpu;
  options.out = dir.file("whole.txt");
  run_mem(options);
  const std::string whole = contents(options.out);
  ASSERT_GT(whole.size(), std::size_t{6} << 20);  // several blocks of 32 Ki lines
  for (const std::size_t window : {std::size_t{1}, std::size_t{3} << 20}) {
    options.output_window_bytes = window;
    const std::string text = read_slowly(dir.file("pipe"), [&](const std::string& fifo) {
      options.out = fifo;
      run_mem(options);
    });
    EXPECT_TRUE(text == whole) << "windows of " << window << " bytes: " << text.size() << " bytes, not " << whole.size();
  }
}

}  // namespace
}  // namespace hyalign::mem

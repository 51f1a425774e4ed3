// What starting CUDA costs on a machine of several GPUs, step by step: the driver's initialisation
// (which grows with the GPUs visible), a context per GPU, 512 MiB of page-locked host memory, 1 GiB
// of device memory and a first launch. Each line gives the step's start, end and length in seconds
// from the process's start (docs/performance.md, "where a multi-GPU run's seconds go").
// usage: hyalign_bench_gpu_start serial|threads|gpuN
//   serial: every GPU one after another; threads: every GPU from a thread of its own at once;
//   gpuN: GPU N alone (start several such processes at once to see whether they wait on each other).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
const Clock::time_point process_start = Clock::now();
double seconds_since_start() { return std::chrono::duration<double>(Clock::now() - process_start).count(); }

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
  std::exit(1);
}

void timed(int gpu, const char* what, void (*step)(int)) {
  const double begin = seconds_since_start();
  step(gpu);
  const double end = seconds_since_start();
  std::printf("gpu%d %-26s %.3f-%.3f (%.3f s)\n", gpu, what, begin, end, end - begin);
  std::fflush(stdout);
}

void make_context(int gpu) {
  check(cudaSetDevice(gpu), "cudaSetDevice");
  check(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync), "cudaSetDeviceFlags");
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
}

constexpr std::size_t kPinnedBytes = std::size_t{512} << 20, kDeviceBytes = std::size_t{1} << 30;

void lock_host_memory(int gpu) {
  check(cudaSetDevice(gpu), "cudaSetDevice");
  void* memory = nullptr;
  check(cudaMallocHost(&memory, kPinnedBytes), "cudaMallocHost");
  std::memset(memory, 1, kPinnedBytes);
  check(cudaFreeHost(memory), "cudaFreeHost");
}

void fill_device_memory(int gpu) {
  check(cudaSetDevice(gpu), "cudaSetDevice");
  void* memory = nullptr;
  check(cudaMalloc(&memory, kDeviceBytes), "cudaMalloc");
  check(cudaMemset(memory, 0, kDeviceBytes), "cudaMemset");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  check(cudaFree(memory), "cudaFree");
}

__global__ void write_lanes(int* out) { out[threadIdx.x] = static_cast<int>(threadIdx.x); }

void first_launch(int gpu) {
  check(cudaSetDevice(gpu), "cudaSetDevice");
  int* out = nullptr;
  check(cudaMalloc(&out, 32 * sizeof(int)), "cudaMalloc");
  write_lanes<<<1, 32>>>(out);
  check(cudaDeviceSynchronize(), "launch");
  check(cudaFree(out), "cudaFree");
}

void start_gpu(int gpu) {
  timed(gpu, "context", make_context);
  timed(gpu, "cudaMallocHost 512 MiB", lock_host_memory);
  timed(gpu, "cudaMalloc+memset 1 GiB", fill_device_memory);
  timed(gpu, "first launch", first_launch);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc > 1 ? argv[1] : "";
  if (mode != "serial" && mode != "threads" && !mode.starts_with("gpu")) {
    std::fprintf(stderr, "usage: %s serial|threads|gpuN\n", argv[0]);
    return 2;
  }
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  std::printf("%s: %d GPUs visible, CUDA initialised in %.3f s\n", argv[1], count, seconds_since_start());
  if (mode == "serial") {
    for (int gpu = 0; gpu < count; ++gpu) start_gpu(gpu);
  } else if (mode == "threads") {
    std::vector<std::thread> threads;
    for (int gpu = 0; gpu < count; ++gpu) threads.emplace_back(start_gpu, gpu);
    for (std::thread& t : threads) t.join();
  } else {
    const int gpu = std::atoi(argv[1] + 3);
    if (gpu < 0 || gpu >= count) {
      std::fprintf(stderr, "no GPU %d: %d visible\n", gpu, count);
      return 2;
    }
    start_gpu(gpu);
  }
  std::printf("all done at %.3f s\n", seconds_since_start());
  return 0;
}

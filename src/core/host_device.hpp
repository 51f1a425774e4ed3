#pragma once
// Functions the CUDA kernels call too: compiled for the host and, under nvcc, for the device.
#ifdef __CUDACC__
#define HYALIGN_HOST_DEVICE __host__ __device__
#else
#define HYALIGN_HOST_DEVICE
#endif

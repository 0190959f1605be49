#pragma once
// SCREEN_HD marks functions shared by the CPU paths and the CUDA kernels: the same source compiles
// under g++ (plain inline) and nvcc (__host__ __device__), so constants cannot drift between paths.
#if defined(__CUDACC__)
#define SCREEN_HD __host__ __device__ __forceinline__
#else
#define SCREEN_HD inline
#endif

#include "engine/cpu_features.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace hyalign::engine {

KernelChoice parse_kernel_choice(std::string_view name) {
  for (KernelChoice c : {KernelChoice::automatic, KernelChoice::scalar, KernelChoice::avx2, KernelChoice::avx512})
    if (kernel_name(c) == name) return c;
  throw UsageError(fmt::format("unknown kernel '{}': expected auto, scalar, avx2 or avx512", name));
}

std::string_view kernel_name(KernelChoice choice) {
  switch (choice) {
    case KernelChoice::automatic: return "auto";
    case KernelChoice::scalar: return "scalar";
    case KernelChoice::avx2: return "avx2";
    case KernelChoice::avx512: return "avx512";
  }
  return "?";
}

bool cpu_supports(KernelChoice choice) {
#if defined(HYALIGN_X86_KERNELS)
  switch (choice) {
    case KernelChoice::avx2: return __builtin_cpu_supports("avx2");
    case KernelChoice::avx512: return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512f");
    default: return true;
  }
#else
  return choice == KernelChoice::automatic || choice == KernelChoice::scalar;
#endif
}

KernelChoice best_cpu_kernel() {
  if (cpu_supports(KernelChoice::avx512)) return KernelChoice::avx512;
  if (cpu_supports(KernelChoice::avx2)) return KernelChoice::avx2;
  return KernelChoice::scalar;
}

KernelChoice resolve_cpu_kernel(KernelChoice choice) {
  if (choice == KernelChoice::automatic) choice = best_cpu_kernel();
  if (!cpu_supports(choice))
    throw UsageError(fmt::format("kernel '{}' needs an instruction set this CPU lacks", kernel_name(choice)));
  return choice;
}

}  // namespace hyalign::engine

#pragma once
// Which CPU kernel family runs: the instruction sets this CPU has, and the user's --kernel choice.
// x86-64 builds have AVX2 and AVX-512 kernels; other CPUs (ARM) run the scalar kernels, and a NEON
// family would be one more value here.
#include <string_view>

namespace hyalign::engine {

enum class KernelChoice { automatic, scalar, avx2, avx512 };

KernelChoice parse_kernel_choice(std::string_view name);  // throws UsageError for an unknown name
std::string_view kernel_name(KernelChoice choice);
// True when this build has the kernel and this CPU can run it.
bool cpu_supports(KernelChoice choice);
KernelChoice best_cpu_kernel();
// `automatic` becomes the best kernel of this CPU; a kernel the CPU cannot run throws UsageError.
KernelChoice resolve_cpu_kernel(KernelChoice choice);

}  // namespace hyalign::engine

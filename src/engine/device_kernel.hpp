#pragma once
// What the engine needs of any tool's kernel: a name for logs and the time it spent on its device.
// Each tool's kernel interface (PaparaKernel, SwKernel, ...) extends this with its own problem.
#include <string_view>

namespace hyalign::engine {

class DeviceKernel {
 public:
  virtual ~DeviceKernel() = default;
  virtual std::string_view name() const = 0;
  // Seconds spent inside device kernels so far (GPU kernels; 0 for CPU kernels).
  virtual double device_seconds() const { return 0; }
};

}  // namespace hyalign::engine

// Built without MPI: every run is one process. Started by a launcher anyway, each process would
// write the whole output to the same place, so that is refused.
#include <cstdlib>
#include <stdexcept>

#include "core/error.hpp"
#include "dist/transport.hpp"

namespace hyalign::dist::transport {
namespace {

bool several_processes_launched() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* size = std::getenv(name); size != nullptr && std::atoi(size) > 1) return true;
  return false;
}

[[noreturn]] void unreachable() { throw std::logic_error("dist: an MPI call in a build without MPI"); }

}  // namespace

Place start(int&, char**&) {
  if (several_processes_launched())
    throw UsageError("this hyalign was built without MPI: run it without mpirun, or build it with libopenmpi-dev");
  return {};
}
void stop() {}
void abort_job(int code) { std::_Exit(code); }
void send(Channel, int, int, std::string_view) { unreachable(); }
int receive(Channel, int, std::string&) { unreachable(); }
void max_over_ranks(std::span<std::uint64_t>) {}
std::uint64_t from_rank_zero(std::uint64_t value) { return value; }

}  // namespace hyalign::dist::transport

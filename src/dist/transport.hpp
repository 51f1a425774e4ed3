#pragma once
// The few MPI calls the job needs, behind one narrow interface: mpi_transport.cpp with MPI,
// mpi_none.cpp without (then every run is one process and nothing here is called past start()).
// Internal to dist/: tools use job.hpp, ordered_output.hpp, relay.hpp and gather.hpp.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace hyalign::dist::transport {

struct Place {
  int rank = 0, size = 1;              // in the whole job
  int local_rank = 0, local_size = 1;  // among the ranks on this node
};

// MPI started (MPI_THREAD_MULTIPLE) when a launcher (mpirun, srun) started this process, else one
// process without MPI at all: a plain run pays nothing for the feature.
Place start(int& argc, char**& argv);
void stop();                             // MPI_Finalize, when started
[[noreturn]] void abort_job(int code);  // ends every rank; the launcher exits with `code`

// Messages of different purposes travel on communicators of their own, so that a receive for one
// never takes a message of the other.
enum class Channel { output, relay, gather };
// Blocking send of a message of any size, tagged 0 to 32766 (MPI counts bytes in an int: a longer
// message travels in parts, and receive() hands it over whole).
void send(Channel channel, int to, int tag, std::string_view bytes);
// The next message from `from` on `channel`, whatever its tag: its bytes into `bytes`; returns the tag.
int receive(Channel channel, int from, std::string& bytes);

// Collectives over every rank.
void max_over_ranks(std::span<std::uint64_t> values);
std::uint64_t from_rank_zero(std::uint64_t value);

}  // namespace hyalign::dist::transport

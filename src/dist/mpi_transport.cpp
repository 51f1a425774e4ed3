// The transport over MPI (Open MPI from Debian's libopenmpi-dev, or any MPI-3 library).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "dist/transport.hpp"

namespace hyalign::dist::transport {
namespace {

bool started = false;
MPI_Comm channels[3] = {MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL};

MPI_Comm comm(Channel channel) { return channels[static_cast<int>(channel)]; }

void check(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw std::runtime_error(std::string(call) + ": " + std::string(text, static_cast<std::size_t>(length)));
}

// Set by mpirun/mpiexec (Open MPI, MPICH's Hydra) and by srun with a PMI plugin.
bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

// Waits for `ready()` to turn true, sleeping between tries: a rank waiting for another leaves its
// core to this rank's workers (Open MPI's blocking calls spin, taking a core for the whole wait:
// a rank's send waits until rank 0 writes that unit). Each try also moves MPI's transfers on (a
// TCP send goes out a socket buffer a call), so the sleeps grow only to a quarter millisecond.
template <class Ready>
void wait_polled(Ready&& ready) {
  auto pause = std::chrono::microseconds(20);
  while (!ready()) {
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(250));
  }
}

// Completes `request`; false if MPI reports an error.
bool complete(MPI_Request& request) {
  int status = MPI_SUCCESS;
  wait_polled([&] {
    int done = 0;
    status = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    return status != MPI_SUCCESS || done != 0;
  });
  return status == MPI_SUCCESS;
}

}  // namespace

Place start(int& argc, char**& argv) {
  if (!launched_by_mpi()) return {};
  int provided = 0;
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
  started = true;
  // Errors come back as codes (and then exceptions), instead of MPI ending the process silently.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  Place place;
  MPI_Comm_rank(MPI_COMM_WORLD, &place.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &place.size);
  if (place.size > 1 && provided < MPI_THREAD_MULTIPLE)
    throw UsageError("this MPI library does not allow MPI calls from several threads (MPI_THREAD_MULTIPLE)");
  MPI_Comm node;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, place.rank, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
  MPI_Comm_rank(node, &place.local_rank);
  MPI_Comm_size(node, &place.local_size);
  MPI_Comm_free(&node);
  for (MPI_Comm& c : channels) check(MPI_Comm_dup(MPI_COMM_WORLD, &c), "MPI_Comm_dup");
  return place;
}

void stop() {
  if (!started) return;
  // Every rank waits here until all are done, so a rank that fails aborts the job (abort_job) while
  // the others still run, never after one of them finalized: Open MPI's launcher can hang or crash
  // on an abort that races a rank's MPI_Finalize. Polled, not spun: a rank done early leaves its
  // core to the others.
  MPI_Request all_done;
  if (MPI_Ibarrier(MPI_COMM_WORLD, &all_done) == MPI_SUCCESS) complete(all_done);
  for (MPI_Comm& c : channels) MPI_Comm_free(&c);
  MPI_Finalize();
  started = false;
}

void abort_job(int code) {
  if (started) {
    // MPI_Abort can wait for ever on the launcher (Open MPI's PMIx abort races a rank in
    // MPI_Finalize): after a grace period this rank exits by itself, and a rank that ended without
    // MPI_Finalize makes mpirun end the others.
    std::thread([code] {
      std::this_thread::sleep_for(std::chrono::seconds(10));
      std::_Exit(code);
    }).detach();
    MPI_Abort(MPI_COMM_WORLD, code);
  }
  std::_Exit(code);
}

namespace {

// A message longer than kMostBytes goes as parts of kMostBytes tagged kPartTag, then its last part
// with its own tag: messages from one rank on one communicator arrive in the order sent.
constexpr std::size_t kMostBytes = std::size_t{1} << 30;
constexpr int kPartTag = 32767;  // the largest tag every MPI library allows

void send_one(Channel channel, int to, int tag, std::string_view bytes) {
  MPI_Request sent;
  check(MPI_Isend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag, comm(channel), &sent),
        "MPI_Isend");
  if (!complete(sent)) throw std::runtime_error("MPI_Isend: the message was not sent");
}

int receive_one(Channel channel, int from, std::string& bytes) {
  // A matched probe: the message sized is the one received, whatever other threads receive.
  MPI_Message message;
  MPI_Status status;
  int found = 0;
  wait_polled([&] {
    check(MPI_Improbe(from, MPI_ANY_TAG, comm(channel), &found, &message, &status), "MPI_Improbe");
    return found != 0;
  });
  int count = 0;
  check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
  bytes.resize(static_cast<std::size_t>(count));
  check(MPI_Mrecv(bytes.data(), count, MPI_BYTE, &message, &status), "MPI_Mrecv");
  return status.MPI_TAG;
}

}  // namespace

void send(Channel channel, int to, int tag, std::string_view bytes) {
  if (tag < 0 || tag >= kPartTag) throw std::logic_error("dist: a message tag out of range");
  for (; bytes.size() > kMostBytes; bytes.remove_prefix(kMostBytes))
    send_one(channel, to, kPartTag, bytes.substr(0, kMostBytes));
  send_one(channel, to, tag, bytes);
}

int receive(Channel channel, int from, std::string& bytes) {
  int tag = receive_one(channel, from, bytes);
  for (std::string part; tag == kPartTag; bytes += part) tag = receive_one(channel, from, part);
  return tag;
}

void max_over_ranks(std::span<std::uint64_t> values) {
  if (values.size() > INT_MAX) throw std::logic_error("dist: too many values to reduce at once");
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_MAX,
                      MPI_COMM_WORLD),
        "MPI_Allreduce");
}

std::uint64_t from_rank_zero(std::uint64_t value) {
  check(MPI_Bcast(&value, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return value;
}

}  // namespace hyalign::dist::transport

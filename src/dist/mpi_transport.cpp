// The transport over MPI (Open MPI from Debian's libopenmpi-dev, or any MPI-3 library).
#include <mpi.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <exception>
#include <future>
#include <mutex>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "dist/transport.hpp"

namespace hyalign::dist::transport {
namespace {

std::atomic<bool> started{false};  // MPI_Init was called (stop() and abort_job() have work to do)
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

// The place the launcher's environment gives (Open MPI's mpirun, MPICH's Hydra), where it gives all
// of it: the rank, the job's size, and the rank and count on this node.
std::optional<Place> place_from_environment() {
  const auto number = [](const char* name) -> std::optional<int> {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') return std::nullopt;
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (*end != '\0' || value < 0 || value > INT_MAX) return std::nullopt;
    return static_cast<int>(value);
  };
  for (const auto& names : {std::array{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
                                       "OMPI_COMM_WORLD_LOCAL_SIZE"},
                            std::array{"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"}}) {
    const auto rank = number(names[0]), size = number(names[1]), local_rank = number(names[2]),
               local_size = number(names[3]);
    if (rank && size && local_rank && local_size) return Place{*rank, *size, *local_rank, *local_size};
  }
  return std::nullopt;
}

// MPI started on a thread of its own, which later also finalizes it (MPI asks that of the thread
// that started it). MPI_Init took 0.22-0.25 s a rank with Debian's Open MPI (UCX looking for
// network hardware; docs/performance.md): where the launcher's environment names the rank, the
// run goes on meanwhile (reading, CUDA's start), and every MPI call waits for the start first.
class MpiThread {
 public:
  // A process that ends without stop() (main always calls it) still finalizes.
  ~MpiThread() {
    if (running()) finalize();
  }
  void start(std::optional<Place> expected) {
    thread_ = std::thread([this, expected] { run(expected); });
  }
  // The place MPI gives; rethrows what its start threw.
  const Place& place() {
    ready_.wait();
    if (error_) std::rethrow_exception(error_);
    return place_;
  }
  bool running() const { return thread_.joinable(); }
  void finalize() {
    {
      std::lock_guard lock(mutex_);
      finish_ = true;
    }
    finish_asked_.notify_all();
    thread_.join();
  }

 private:
  void run(std::optional<Place> expected) {
    try {
      place_ = start_mpi();
      if (expected && (expected->rank != place_.rank || expected->size != place_.size ||
                       expected->local_rank != place_.local_rank || expected->local_size != place_.local_size))
        throw std::runtime_error("the launcher's environment and MPI disagree on this rank's place in the job");
    } catch (const UsageError&) {
      error_ = std::current_exception();
    } catch (const std::exception& e) {
      error_ = std::make_exception_ptr(UsageError(std::string("cannot start the MPI job: ") + e.what()));
    }
    ready_promise_.set_value();
    std::unique_lock lock(mutex_);
    finish_asked_.wait(lock, [this] { return finish_; });
    if (started) stop_mpi();
  }
  static Place start_mpi();
  static void stop_mpi();

  std::thread thread_;
  std::promise<void> ready_promise_;
  std::shared_future<void> ready_ = ready_promise_.get_future().share();
  Place place_;
  std::exception_ptr error_;
  std::mutex mutex_;
  std::condition_variable finish_asked_;
  bool finish_ = false;
};

MpiThread mpi;

// Every MPI call of the run waits for MPI's start.
void wait_for_start() { mpi.place(); }

Place MpiThread::start_mpi() {
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
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

void MpiThread::stop_mpi() {
  // Every rank waits here until all are done, so a rank that fails aborts the job (abort_job) while
  // the others still run, never after one of them finalized: Open MPI's launcher can hang or crash
  // on an abort that races a rank's MPI_Finalize. Polled, not spun: a rank done early leaves its
  // core to the others.
  MPI_Request all_done;
  if (MPI_Ibarrier(MPI_COMM_WORLD, &all_done) == MPI_SUCCESS) complete(all_done);
  for (MPI_Comm& c : channels)
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  MPI_Finalize();
  started = false;
}

}  // namespace

Place start(int&, char**&) {
  if (!launched_by_mpi()) return {};
  const std::optional<Place> from_environment = place_from_environment();
  mpi.start(from_environment);
  if (from_environment) return *from_environment;
  try {
    return mpi.place();
  } catch (...) {
    mpi.finalize();
    throw;
  }
}

void stop() {
  if (!mpi.running()) return;
  mpi.finalize();
}

void abort_job(int code) {
  if (!mpi.running()) std::_Exit(code);
  // MPI_Abort can wait for ever on the launcher (Open MPI's PMIx abort races a rank in
  // MPI_Finalize), and MPI's start on another rank that failed: after a grace period this rank
  // exits by itself, and a rank that ended without MPI_Finalize makes mpirun end the others.
  std::thread([code] {
    std::this_thread::sleep_for(std::chrono::seconds(10));
    std::_Exit(code);
  }).detach();
  try {
    wait_for_start();  // an error before MPI's start is done still ends every rank
  } catch (...) {
  }
  if (started) MPI_Abort(MPI_COMM_WORLD, code);
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
  wait_for_start();
  if (tag < 0 || tag >= kPartTag) throw std::logic_error("dist: a message tag out of range");
  for (; bytes.size() > kMostBytes; bytes.remove_prefix(kMostBytes))
    send_one(channel, to, kPartTag, bytes.substr(0, kMostBytes));
  send_one(channel, to, tag, bytes);
}

int receive(Channel channel, int from, std::string& bytes) {
  wait_for_start();
  int tag = receive_one(channel, from, bytes);
  for (std::string part; tag == kPartTag; bytes += part) tag = receive_one(channel, from, part);
  return tag;
}

void max_over_ranks(std::span<std::uint64_t> values) {
  wait_for_start();
  if (values.size() > INT_MAX) throw std::logic_error("dist: too many values to reduce at once");
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_MAX,
                      MPI_COMM_WORLD),
        "MPI_Allreduce");
}

std::uint64_t from_rank_zero(std::uint64_t value) {
  wait_for_start();
  check(MPI_Bcast(&value, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return value;
}

}  // namespace hyalign::dist::transport

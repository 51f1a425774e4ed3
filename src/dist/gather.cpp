#include "dist/gather.hpp"

#include <stdexcept>
#include <string>

#include "dist/job.hpp"
#include "dist/transport.hpp"

namespace hyalign::dist {

void send_to_rank_zero(std::string_view bytes) {
  if (rank() == 0) throw std::logic_error("dist: rank 0 sent itself its result");
  transport::send(transport::Channel::gather, 0, 0, bytes);
}

void receive_from_other_ranks(const std::function<void(int rank, std::string_view bytes)>& take) {
  std::string message;
  for (int from = 1; from < size(); ++from) {
    transport::receive(transport::Channel::gather, from, message);
    take(from, message);
  }
}

}  // namespace hyalign::dist

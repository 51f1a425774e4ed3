#include "dist/gather.hpp"

#include <stdexcept>
#include <string>

#include "dist/job.hpp"
#include "dist/transport.hpp"

namespace hyalign::dist {
namespace {

using transport::Channel;

// Tags on the gather channel: bytes longer than one message go as parts, the last one tagged kLast.
constexpr int kPart = 1, kLast = 2;

}  // namespace

void send_to_rank_zero(std::string_view bytes) {
  if (rank() == 0) throw std::logic_error("dist: rank 0 sent itself its result");
  while (bytes.size() > transport::kMostBytes) {
    transport::send(Channel::gather, 0, kPart, bytes.substr(0, transport::kMostBytes));
    bytes.remove_prefix(transport::kMostBytes);
  }
  transport::send(Channel::gather, 0, kLast, bytes);
}

void receive_from_other_ranks(const std::function<void(int rank, std::string_view bytes)>& take) {
  std::string message, whole;
  for (int from = 1; from < size(); ++from) {
    whole.clear();
    while (transport::receive(Channel::gather, from, message) == kPart) whole += message;
    whole += message;
    take(from, whole);
  }
}

}  // namespace hyalign::dist

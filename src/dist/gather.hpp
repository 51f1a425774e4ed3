#pragma once
// Each rank's result to rank 0, for a merge there: search's top hits when the ranks split the
// database between them. Rank 0 takes one rank's bytes at a time, so its memory holds its own
// result and one other.
#include <functional>
#include <string_view>

namespace hyalign::dist {

// Every rank but 0 calls send_to_rank_zero once; rank 0 calls receive_from_other_ranks, which
// hands take(rank, bytes) the bytes of ranks 1, 2, ... in turn, each whole. In a one-process run
// neither is needed (receive_from_other_ranks returns at once).
void send_to_rank_zero(std::string_view bytes);
void receive_from_other_ranks(const std::function<void(int rank, std::string_view bytes)>& take);

}  // namespace hyalign::dist

#pragma once
// A value handed from each unit to the next, in unit order across the ranks: what a unit's result
// depends on from the units before it (map's insert sizes, each part's estimate falling back on the
// one before). The wait is only for that value; the units' other work runs on every rank at once.
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "dist/job.hpp"
#include "dist/transport.hpp"

namespace hyalign::dist {

template <class T>
class Relay {
  static_assert(std::is_trivially_copyable_v<T>, "a relayed value travels as its bytes");

 public:
  explicit Relay(const T& first) : value_(first) {}

  // What the unit before `unit` passed on (`first` for unit 0): waits for it from its owner.
  T take(std::size_t unit) {
    if (unit == 0 || mine(unit - 1)) return value_;
    std::string bytes;
    transport::receive(transport::Channel::relay, owner(unit - 1), bytes);
    T value;
    std::memcpy(&value, bytes.data(), sizeof value);
    return value;
  }
  // Passes `value` on from `unit` to the next unit.
  void pass(std::size_t unit, const T& value) {
    if (mine(unit + 1))
      value_ = value;
    else
      transport::send(transport::Channel::relay, owner(unit + 1), 0,
                      {reinterpret_cast<const char*>(&value), sizeof value});
  }
  // After the last of `units` units: takes the value it passed on to no unit, so that no message
  // is left unreceived.
  void finish(std::size_t units) {
    if (units > 0 && mine(units) && !mine(units - 1)) take(units);
  }

 private:
  T value_;
};

}  // namespace hyalign::dist

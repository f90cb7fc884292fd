#include "engine/scale/communicator.hpp"

#include <chrono>

#include "base/error.hpp"

namespace pfmc::engine {

DeviceMask device_mask(const std::vector<int>& ordinals) {
  DeviceMask mask = 0;
  for (int d : ordinals) {
    PFMC_EXPECTS(d >= 0 && d < 64, "a GPU ordinal fits a device mask");
    mask |= DeviceMask{1} << d;
  }
  return mask;
}

TurnPartners turn_partners(const std::vector<DeviceMask>& masks, int host_rank) {
  TurnPartners partners;
  const DeviceMask mine = masks.at(static_cast<std::size_t>(host_rank));
  for (int r = 0; r < static_cast<int>(masks.size()); ++r) {
    if (r == host_rank || (masks[static_cast<std::size_t>(r)] & mine) == 0)
      continue;
    (r < host_rank ? partners.before : partners.after).push_back(r);
  }
  return partners;
}

std::vector<std::string> Communicator::gather(const std::string& message) {
  if (!turn_begun_)
    begin_turn(0); // the host's ranks wait for this rank's mask: none
  end_turn();
  exchanged_ = true;
  return gather_messages(message);
}

void Communicator::begin_turn(DeviceMask devices) {
  PFMC_EXPECTS(!turn_begun_, "a rank takes one turn");
  turn_begun_ = true;
  const TurnPartners partners = turn_partners(host_masks(devices), host_rank());
  turn_after_ = partners.after;
  if (partners.before.empty())
    return;
  const auto start = std::chrono::steady_clock::now();
  for (int r : partners.before)
    receive_turn(r);
  turn_wait_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void Communicator::end_turn() {
  if (!turn_begun_ || turn_ended_)
    return;
  turn_ended_ = true;
  for (int r : turn_after_)
    send_turn(r);
}

} // namespace pfmc::engine

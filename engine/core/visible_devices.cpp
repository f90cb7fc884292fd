#include "engine/core/visible_devices.hpp"

#include <dirent.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace pfmc::engine {

namespace {

int g_moved_to = -1; ///< narrow_to_device's ordinal, -1 if none

bool turned_off() {
  const char* setting = std::getenv("PFMC_NARROW_DEVICES");
  return setting != nullptr && std::string(setting) == "0";
}

/// The entries CUDA would show, as CUDA_VISIBLE_DEVICES would name them (empty: not set).
std::vector<std::string> visible_entries() {
  std::vector<std::string> entries;
  const char* list = std::getenv("CUDA_VISIBLE_DEVICES");
  if (list == nullptr)
    return entries;
  std::string text = list;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string entry =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!entry.empty())
      entries.push_back(entry);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return entries;
}

/// The first `count` entries from `first`: the user's CUDA_VISIBLE_DEVICES's, or ordinals.
bool set_visible(int first, int count) {
  if (turned_off() || first < 0 || count < 1)
    return false;
  const bool given = std::getenv("CUDA_VISIBLE_DEVICES") != nullptr;
  const std::vector<std::string> entries = visible_entries();
  if (given && static_cast<std::size_t>(first) >= entries.size())
    return false; // not there: CUDA's own error says so
  std::string list;
  for (int k = first; k < first + count; ++k) {
    if (given && static_cast<std::size_t>(k) >= entries.size())
      break;
    list += (list.empty() ? "" : ",") +
            (given ? entries[static_cast<std::size_t>(k)] : std::to_string(k));
  }
  setenv("CUDA_VISIBLE_DEVICES", list.c_str(), 1);
  return true;
}

} // namespace

int local_rank() {
  for (const char* name :
       {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PMIX_LOCAL_RANK"}) {
    if (const char* value = std::getenv(name)) {
      const int rank = std::atoi(value);
      if (rank >= 0)
        return rank;
    }
  }
  return 0;
}

int gpus_without_cuda() {
  if (std::getenv("CUDA_VISIBLE_DEVICES") != nullptr)
    return static_cast<int>(visible_entries().size());
  DIR* dir = opendir("/proc/driver/nvidia/gpus");
  if (dir == nullptr)
    return -1;
  int count = 0;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.')
      ++count;
  }
  closedir(dir);
  return count;
}

bool narrow_visible_devices(int count) {
  return set_visible(0, count);
}

bool narrow_to_device(int ordinal) {
  if (!set_visible(ordinal, 1))
    return false;
  g_moved_to = ordinal;
  return true;
}

int physical_ordinal(int cuda_ordinal) {
  return g_moved_to >= 0 && cuda_ordinal == 0 ? g_moved_to : cuda_ordinal;
}

void forget_narrowing() {
  g_moved_to = -1;
}

} // namespace pfmc::engine

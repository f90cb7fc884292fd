// pfmc_philox_stream: the raw 32-bit words of pfmc's counter-based generator on stdout, for
// dieharder's stdin_input_raw (`pfmc_philox_stream --rounds 7 | dieharder -g 200 -a`).
//
// The stream is kernels::philox_words(seed, group 0, call, row 0) for call = 0, 1, 2, ...: the
// four words of each call in order, in the machine's byte order (what -g 200 reads). The same
// function, so the same counter and key layout, as the draws: --rounds 7 is math::Fast's
// Philox4x32-7, 10 math::Accurate's Philox4x32-10, and 1 or 2 rounds are weak controls that a
// battery should reject (tests/dieharder_battery.sh checks that it does).
//
// Usage: pfmc_philox_stream [--rounds 1|2|7|10] [--seed N] [--words N]  (N = 0: endless)
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/counter_draws.cuh"

namespace {

/// A profile with only a round count: philox_words reads nothing else, so the weak controls
/// share the counter layout with the real profiles instead of restating it.
template <int Rounds>
struct RoundsOnly {
  static constexpr int philox_rounds = Rounds;
};

struct StreamOptions {
  int rounds = 7;
  std::uint64_t seed = 42;
  std::uint64_t words = 0; ///< 32-bit words to write; 0 = until the reader closes the pipe
};

/// 64 KiB per fwrite: dieharder reads hundreds of millions of words, so the calls are few.
constexpr std::size_t kBufferWords = 16384;

/// Writes the stream of Profile's generator; returns the exit code (0 also when the reader
/// closed the pipe: dieharder stops reading once it has what it needs).
template <class Profile>
int write_stream(const StreamOptions& options) {
  std::vector<std::uint32_t> buffer(kBufferWords);
  std::uint64_t written = 0;
  for (std::uint64_t call = 0;; ++call) {
    const std::size_t slot = static_cast<std::size_t>((call * 4) % kBufferWords);
    const pfmc::kernels::PhiloxWords out =
        pfmc::kernels::philox_words<Profile>(options.seed, 0, call, 0);
    std::memcpy(&buffer[slot], out.w, sizeof(out.w));
    std::size_t filled = slot + 4;
    const bool last = options.words != 0 && written + filled >= options.words;
    if (last)
      filled = static_cast<std::size_t>(options.words - written);
    if (filled == kBufferWords || last) {
      if (std::fwrite(buffer.data(), sizeof(std::uint32_t), filled, stdout) != filled)
        return errno == EPIPE ? 0 : 1;
      written += filled;
    }
    if (last)
      return std::fflush(stdout) == 0 || errno == EPIPE ? 0 : 1;
  }
}

bool parse_number(const char* text, std::uint64_t& value) {
  if (text == nullptr || *text == '\0' || *text == '-')
    return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtoull(text, &end, 0);
  return errno == 0 && *end == '\0';
}

int usage(const char* problem) {
  std::fprintf(
      stderr,
      "pfmc_philox_stream: %s\n"
      "usage: pfmc_philox_stream [--rounds 1|2|7|10] [--seed N] [--words N (0: endless)]\n",
      problem);
  return 2;
}

} // namespace

int main(int argc, char** argv) {
  StreamOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    std::uint64_t value = 0;
    if (flag != "--rounds" && flag != "--seed" && flag != "--words")
      return usage(("unknown option " + flag).c_str());
    if (!parse_number(i + 1 < argc ? argv[i + 1] : nullptr, value))
      return usage((flag + " needs a non-negative integer").c_str());
    ++i;
    if (flag == "--rounds")
      options.rounds = static_cast<int>(value);
    else if (flag == "--seed")
      options.seed = value;
    else
      options.words = value;
  }
  // A closed pipe is a failed fwrite with EPIPE, not a signal that kills the process.
  std::signal(SIGPIPE, SIG_IGN);
  switch (options.rounds) {
  case 1:
    return write_stream<RoundsOnly<1>>(options);
  case 2:
    return write_stream<RoundsOnly<2>>(options);
  case 7:
    return write_stream<pfmc::math::Fast>(options);
  case 10:
    return write_stream<pfmc::math::Accurate>(options);
  default:
    return usage("--rounds must be 1, 2, 7 (math::Fast) or 10 (math::Accurate)");
  }
}

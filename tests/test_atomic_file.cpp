// base::write_file_atomically: the destination holds the old contents or the new ones, never
// a part, and no temporary file outlives a write, whether it succeeded or failed; links,
// devices, FIFOs and folders are never replaced by a file.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/atomic_file.hpp"
#include "base/error.hpp"

namespace pfmc {
namespace {

namespace fs = std::filesystem;

class AtomicFile : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pfmc_atomic_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(dir_);
  }
  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  /// The names in the test's folder: a leftover temporary file shows up here.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_))
      names.push_back(e.path().filename().string());
    return names;
  }
  fs::path dir_;
};

TEST_F(AtomicFile, WritesANewFileWithTheUsualPermissions) {
  const fs::path target = dir_ / "out.csv";
  const mode_t previous = ::umask(022);
  base::write_file_atomically(target.string(), std::string("a,b\n1,2\n\0x", 10));
  ::umask(previous);
  EXPECT_EQ(read(target), std::string("a,b\n1,2\n\0x", 10));
  EXPECT_EQ(entries(), std::vector<std::string>{"out.csv"});
  struct stat info {};
  ASSERT_EQ(::stat(target.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u); // not mkstemp's 0600
}

TEST_F(AtomicFile, ReplacesAnExistingFile) {
  const fs::path target = dir_ / "cache.json";
  base::write_file_atomically(target.string(), std::string(100000, 'x'));
  base::write_file_atomically(target.string(), "{}\n");
  EXPECT_EQ(read(target), "{}\n");
  EXPECT_EQ(entries(), std::vector<std::string>{"cache.json"});
  base::write_file_atomically(target.string(), "");
  EXPECT_EQ(read(target), "");
}

TEST_F(AtomicFile, MissingFolderNamesThePath) {
  const std::string target = (dir_ / "absent" / "out.json").string();
  try {
    base::write_file_atomically(target, "text");
    FAIL() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find(target), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("temporary file"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(entries().empty());
}

TEST_F(AtomicFile, UnwritableFolderLeavesNothingBehind) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root writes into a read-only folder";
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  const std::string target = (dir_ / "out.json").string();
  EXPECT_THROW(base::write_file_atomically(target, "text"), RuntimeError);
  fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
  EXPECT_TRUE(entries().empty());
}

TEST_F(AtomicFile, DirectoryIsRefusedByName) {
  // Renaming over an empty folder would succeed (and a non-empty one fail only after the write):
  // a folder is refused before anything is created.
  const fs::path target = dir_ / "results";
  fs::create_directories(target);
  try {
    base::write_file_atomically(target.string(), "text");
    FAIL() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write " + target.string() + ": it is a directory");
  }
  EXPECT_EQ(entries(), std::vector<std::string>{"results"});
  EXPECT_TRUE(fs::is_directory(target));
  EXPECT_TRUE(fs::is_empty(target));
}

TEST_F(AtomicFile, SymbolicLinkIsFollowedAndKept) {
  // link -> chain -> real/out.csv (relative targets, read against each link's folder): the
  // final target is replaced in its own folder and keeps its permissions; the links stay.
  fs::create_directories(dir_ / "real");
  const fs::path target = dir_ / "real" / "out.csv";
  base::write_file_atomically(target.string(), "old\n");
  fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write);
  fs::create_symlink("real/out.csv", dir_ / "chain");
  fs::create_symlink("chain", dir_ / "link");
  base::write_file_atomically((dir_ / "link").string(), "new\n");
  EXPECT_EQ(read(target), "new\n");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link"));
  EXPECT_EQ(fs::read_symlink(dir_ / "link"), "chain");
  EXPECT_TRUE(fs::is_symlink(dir_ / "chain"));
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  auto names = entries();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"chain", "link", "real"}));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "real"), fs::directory_iterator()), 1);
}

TEST_F(AtomicFile, DanglingSymbolicLinkCreatesItsTarget) {
  fs::create_symlink("made.json", dir_ / "link");
  base::write_file_atomically((dir_ / "link").string(), "{}\n");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link"));
  EXPECT_EQ(read(dir_ / "made.json"), "{}\n");
}

TEST_F(AtomicFile, FifoIsWrittenForItsReader) {
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string text(200000, 'f'); // more than a pipe holds: the reader must drain it
  std::string received;
  std::thread reader([&] { received = read(fifo); });
  try {
    base::write_file_atomically(fifo.string(), text);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
    ::close(::open(fifo.c_str(), O_WRONLY | O_CLOEXEC)); // lets the reader see the end
  }
  reader.join();
  EXPECT_EQ(received, text);
  struct stat info {};
  ASSERT_EQ(::lstat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
  EXPECT_EQ(entries(), std::vector<std::string>{"pipe"});
}

TEST_F(AtomicFile, CharacterDeviceIsWrittenInPlace) {
  // Through links made here: the real /dev entries are only read and written, never replaced
  // (as root, a rename onto them would succeed).
  fs::create_symlink("/dev/null", dir_ / "null");
  base::write_file_atomically((dir_ / "null").string(), std::string(1 << 20, 'z'));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "null"));
  EXPECT_EQ(entries(), std::vector<std::string>{"null"});
}

TEST_F(AtomicFile, FullDeviceIsAnErrorNamingThePathAndTheReason) {
  const fs::path link = dir_ / "full.csv";
  fs::create_symlink("/dev/full", link);
  try {
    base::write_file_atomically(link.string(), "a,b\n");
    FAIL() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write " + link.string() +
                  " (-> /dev/full): writing failed: " + std::strerror(ENOSPC));
  }
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(entries(), std::vector<std::string>{"full.csv"});
  for (const auto& e : fs::directory_iterator("/dev"))
    EXPECT_EQ(e.path().filename().string().rfind(".full.", 0), std::string::npos) << e.path();
}

TEST_F(AtomicFile, DashIsStandardOutput) {
  const fs::path captured = dir_ / "stdout.txt";
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  const int file = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(file, 0);
  ::dup2(file, STDOUT_FILENO);
  ::close(file);
  std::printf("before ");
  base::write_file_atomically("-", "results\n");
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  EXPECT_EQ(read(captured), "before results\n"); // what was printed first comes first
  EXPECT_EQ(entries(), std::vector<std::string>{"stdout.txt"});
}

TEST_F(AtomicFile, FailedWriteKeepsTheOldContents) {
  // A file-size limit makes write(2) fail part-way (EFBIG once SIGXFSZ is ignored): the old
  // file stays whole and the partial temporary file goes.
  const fs::path target = dir_ / "out.csv";
  base::write_file_atomically(target.string(), "old\n");
  rlimit previous{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &previous), 0);
  const auto previous_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = previous;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  EXPECT_THROW(base::write_file_atomically(target.string(), std::string(1 << 20, 'n')),
               RuntimeError);
  ::setrlimit(RLIMIT_FSIZE, &previous);
  std::signal(SIGXFSZ, previous_handler);
  EXPECT_EQ(read(target), "old\n");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.csv"});
}

TEST_F(AtomicFile, ConcurrentWritersEachLeaveAWholeFile) {
  // Two `pfmc tune` runs saving one cache at once: each write is whole, the last rename wins.
  const fs::path target = dir_ / "tuning.json";
  const std::string a(50000, 'a'), b(70000, 'b');
  auto writer = [&](const std::string& text) {
    for (int i = 0; i < 10; ++i)
      base::write_file_atomically(target.string(), text);
  };
  std::thread first(writer, std::cref(a)), second(writer, std::cref(b));
  first.join();
  second.join();
  const std::string result = read(target);
  EXPECT_TRUE(result == a || result == b) << result.size() << " bytes";
  EXPECT_EQ(entries(), std::vector<std::string>{"tuning.json"});
}

} // namespace
} // namespace pfmc

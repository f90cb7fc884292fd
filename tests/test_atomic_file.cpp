// engine::write_file_atomically: the destination holds the old contents or the new ones, never
// a part, and no temporary file outlives a write, whether it succeeded or failed.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/atomic_file.hpp"
#include "kernels/error.hpp"

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
  engine::write_file_atomically(target.string(), std::string("a,b\n1,2\n\0x", 10));
  ::umask(previous);
  EXPECT_EQ(read(target), std::string("a,b\n1,2\n\0x", 10));
  EXPECT_EQ(entries(), std::vector<std::string>{"out.csv"});
  struct stat info {};
  ASSERT_EQ(::stat(target.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u); // not mkstemp's 0600
}

TEST_F(AtomicFile, ReplacesAnExistingFile) {
  const fs::path target = dir_ / "cache.json";
  engine::write_file_atomically(target.string(), std::string(100000, 'x'));
  engine::write_file_atomically(target.string(), "{}\n");
  EXPECT_EQ(read(target), "{}\n");
  EXPECT_EQ(entries(), std::vector<std::string>{"cache.json"});
  engine::write_file_atomically(target.string(), "");
  EXPECT_EQ(read(target), "");
}

TEST_F(AtomicFile, MissingFolderNamesThePath) {
  const std::string target = (dir_ / "absent" / "out.json").string();
  try {
    engine::write_file_atomically(target, "text");
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
  EXPECT_THROW(engine::write_file_atomically(target, "text"), RuntimeError);
  fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
  EXPECT_TRUE(entries().empty());
}

TEST_F(AtomicFile, FailedRenameRemovesTheTemporaryFile) {
  // A destination that is a non-empty folder: the data is written, the rename fails (also for
  // root, unlike a read-only folder).
  const fs::path target = dir_ / "busy";
  fs::create_directories(target / "inside");
  try {
    engine::write_file_atomically(target.string(), "text");
    FAIL() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find(target.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("renaming"), std::string::npos) << e.what();
  }
  EXPECT_EQ(entries(), std::vector<std::string>{"busy"});
}

TEST_F(AtomicFile, FailedWriteKeepsTheOldContents) {
  // A file-size limit makes write(2) fail part-way (EFBIG once SIGXFSZ is ignored): the old
  // file stays whole and the partial temporary file goes.
  const fs::path target = dir_ / "out.csv";
  engine::write_file_atomically(target.string(), "old\n");
  rlimit previous{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &previous), 0);
  const auto previous_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = previous;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  EXPECT_THROW(engine::write_file_atomically(target.string(), std::string(1 << 20, 'n')),
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
      engine::write_file_atomically(target.string(), text);
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

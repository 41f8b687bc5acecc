//===- AtomicFileTest.cpp - files written whole or not at all ------------===//

#include "ember/Support/AtomicFile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using ember::support::commitBeside;
using ember::support::writeBeside;
using ember::support::writeFileWhole;

namespace {

std::string contentsOf(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The names in `dir`, to see that no temporary file is left behind.
std::vector<std::string> namesIn(const fs::path &dir) {
  std::vector<std::string> names;
  for (const auto &entry : fs::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  return names;
}

class AtomicFile : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ember-atomic-file-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(AtomicFile, WritesThePiecesInOrderAndReplacesTheOldFile) {
  std::string path = (dir_ / "out.bin").string();
  std::string_view first[] = {"abc", "", "de"};
  EXPECT_EQ(writeFileWhole(path, first), "");
  EXPECT_EQ(contentsOf(path), "abcde");
  std::string_view second[] = {std::string_view("x\0y", 3)};
  EXPECT_EQ(writeFileWhole(path, second, /*sync=*/false), "");
  EXPECT_EQ(contentsOf(path), std::string("x\0y", 3));
  EXPECT_EQ(namesIn(dir_), std::vector<std::string>{"out.bin"});
}

TEST_F(AtomicFile, FailureGivesTheReasonAndLeavesNothing) {
  std::string_view pieces[] = {"data"};
  std::string missing = (dir_ / "no-such-dir" / "out.bin").string();
  std::string why = writeFileWhole(missing, pieces);
  EXPECT_NE(why.find("cannot create a temporary file: No such file or directory"),
            std::string::npos)
      << why;
  // A path that is a directory: the temporary is written, the rename fails
  // and the temporary is removed.
  fs::create_directories(dir_ / "taken");
  std::string_view more[] = {"data"};
  why = writeFileWhole((dir_ / "taken").string(), more);
  EXPECT_NE(why, "");
  EXPECT_EQ(namesIn(dir_), std::vector<std::string>{"taken"});
  EXPECT_TRUE(fs::is_empty(dir_ / "taken"));
}

TEST_F(AtomicFile, StagedFilesAppearOnlyWhenCommitted) {
  // Two outputs put in place together: both are staged beside their names,
  // nothing under the names until the commits.
  std::string a = (dir_ / "a.o").string(), b = (dir_ / "b.h").string();
  std::string_view objectPieces[] = {"object"};
  std::string stagedA, stagedB;
  EXPECT_EQ(writeBeside(a, objectPieces, stagedA), "");
  EXPECT_EQ(writeBeside(b, {}, stagedB, /*sync=*/false), ""); // empty: for a tool to fill
  EXPECT_EQ(fs::path(stagedA).parent_path(), dir_);
  EXPECT_NE(stagedA, stagedB);
  EXPECT_FALSE(fs::exists(a));
  EXPECT_TRUE(fs::exists(stagedB) && fs::file_size(stagedB) == 0);
  EXPECT_EQ(commitBeside(stagedA, a), "");
  EXPECT_EQ(commitBeside(stagedB, b), "");
  EXPECT_EQ(contentsOf(a), "object");
  EXPECT_EQ(contentsOf(b), "");
  // A commit that cannot rename removes the staged file and says why.
  std::string stagedC;
  EXPECT_EQ(writeBeside(a, objectPieces, stagedC), "");
  EXPECT_NE(commitBeside(stagedC, (dir_ / "no-such-dir" / "c").string()), "");
  EXPECT_FALSE(fs::exists(stagedC));
  auto names = namesIn(dir_);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a.o", "b.h"}));
}

} // namespace

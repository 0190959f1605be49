// The journal of completed shards (torn last lines) and the output-folder lock.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "store/journal.hpp"
#include "store/lock.hpp"
#include "store_test_util.hpp"

namespace screen::store {
namespace {

using testing::TempDir;

JournalEntry entry(std::int64_t id) { return {id, "part-" + std::to_string(id) + ".h5", sha256_hex(std::to_string(id))}; }

void expect_entry(const JournalEntry& a, const JournalEntry& b) {
  EXPECT_EQ(a.shard_id, b.shard_id);
  EXPECT_EQ(a.part_file, b.part_file);
  EXPECT_EQ(a.checksum, b.checksum);
}

TEST(Journal, RecordsAndReadsBack) {
  TempDir dir;
  const std::string path = dir.file("journal");
  EXPECT_TRUE(read_journal(path).entries.empty());  // missing: empty
  {
    Journal j(path);
    j.record(entry(0));
    j.record(entry(7));
  }
  {
    Journal j(path);  // reopened: appends after what is there
    j.record(entry(3));
  }
  const std::string text = testing::slurp(path);
  EXPECT_EQ(text.rfind("# screen journal 1\n", 0), 0u) << text;
  EXPECT_EQ(text, "# screen journal 1\nshard\t0\tpart-0.h5\t" + sha256_hex("0") + "\nshard\t7\tpart-7.h5\t" +
                      sha256_hex("7") + "\nshard\t3\tpart-3.h5\t" + sha256_hex("3") + "\n");
  const JournalContents c = read_journal(path);
  EXPECT_FALSE(c.torn_tail);
  ASSERT_EQ(c.entries.size(), 3u);
  expect_entry(c.entries[0], entry(0));
  expect_entry(c.entries[1], entry(7));
  expect_entry(c.entries[2], entry(3));
}

TEST(Journal, TornLastLineIsIgnoredThenCutOff) {
  TempDir dir;
  const std::string path = dir.file("journal");
  {
    Journal j(path);
    j.record(entry(1));
    j.record(entry(2));
  }
  const std::string whole = testing::slurp(path);
  // A crash in the middle of writing shard 3's line: every prefix of it is a torn tail.
  const std::string line3 = "shard\t3\tpart-3.h5\t" + sha256_hex("3");
  for (std::size_t cut : {std::size_t{1}, std::size_t{6}, std::size_t{20}, line3.size()}) {
    testing::spit(path, whole + line3.substr(0, cut));
    const JournalContents c = read_journal(path);
    EXPECT_TRUE(c.torn_tail) << cut;
    EXPECT_EQ(c.torn_text, line3.substr(0, cut));
    ASSERT_EQ(c.entries.size(), 2u) << cut;
    expect_entry(c.entries[1], entry(2));
  }
  {
    Journal j(path);  // cuts the torn line off before appending
    j.record(entry(4));
  }
  const JournalContents c = read_journal(path);
  EXPECT_FALSE(c.torn_tail);
  ASSERT_EQ(c.entries.size(), 3u);
  expect_entry(c.entries[2], entry(4));

  // A torn header alone (a crash right after creating the file).
  testing::spit(path, "# scre");
  EXPECT_TRUE(read_journal(path).torn_tail);
  {
    Journal j(path);
    j.record(entry(9));
  }
  EXPECT_EQ(testing::slurp(path), "# screen journal 1\nshard\t9\tpart-9.h5\t" + sha256_hex("9") + "\n");
}

TEST(Journal, CorruptCompleteLinesAreErrors) {
  TempDir dir;
  const std::string path = dir.file("journal");
  const std::string good = "shard\t1\tp.h5\t" + sha256_hex("1") + "\n";
  for (const std::string& bad : std::vector<std::string>{"shard\t1\tp.h5\n", "shard\tx\tp.h5\t" + sha256_hex("1") + "\n",
                                "shard\t1\tp.h5\t" + sha256_hex("1").substr(1) + "\n", "done\t1\tp.h5\t" + sha256_hex("1") + "\n",
                                "shard\t1\t\t" + sha256_hex("1") + "\n"}) {
    testing::spit(path, "# screen journal 1\n" + good + bad + good);
    try {
      read_journal(path);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(path + ":3"), std::string::npos) << e.what();
    }
  }
  Journal j(dir.file("j2"));
  EXPECT_THROW(j.record({1, "a\tb.h5", sha256_hex("x")}), Error);
  EXPECT_THROW(j.record({1, "dir/b.h5", sha256_hex("x")}), Error);
  EXPECT_THROW(j.record({1, "b.h5", "not a checksum"}), Error);
  EXPECT_TRUE(read_journal(dir.file("j2")).entries.empty());
}

std::string conflict_message(const std::string& dir) {
  try {
    OutputLock again(dir);
  } catch (const ConflictError& e) {
    EXPECT_EQ(e.code(), ExitCode::conflict);
    return e.what();
  }
  ADD_FAILURE() << "the second lock was granted";
  return "";
}

TEST(OutputLock, SecondLockerInTheSameProcessIsRefused) {
  TempDir dir;
  {
    OutputLock first(dir.path().string());
    const std::string content = testing::slurp(first.path());
    EXPECT_NE(content.find("pid " + std::to_string(::getpid()) + "\n"), std::string::npos) << content;
    const std::string msg = conflict_message(dir.path().string());
    EXPECT_NE(msg.find("pid " + std::to_string(::getpid())), std::string::npos) << msg;
    EXPECT_NE(msg.find("host " + host_name()), std::string::npos) << msg;
    EXPECT_NE(msg.find(dir.path().string()), std::string::npos) << msg;
  }
  OutputLock after(dir.path().string());  // released with the first
  EXPECT_TRUE(testing::fs::exists(after.path()));
}

TEST(OutputLock, HeldByAnotherProcess) {
  TempDir dir;
  int to_parent[2], to_child[2];
  ASSERT_EQ(::pipe(to_parent), 0);
  ASSERT_EQ(::pipe(to_child), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int rc = 0;
    try {
      OutputLock held(dir.path().string());
      char c = 'L';
      if (::write(to_parent[1], &c, 1) != 1) rc = 2;
      if (::read(to_child[0], &c, 1) != 1) rc = 3;  // hold until the parent is done
    } catch (...) {
      rc = 1;
    }
    ::_exit(rc);
  }
  char c = 0;
  ASSERT_EQ(::read(to_parent[0], &c, 1), 1);
  const std::string msg = conflict_message(dir.path().string());
  EXPECT_NE(msg.find("pid " + std::to_string(child)), std::string::npos) << msg;
  EXPECT_NE(msg.find("host " + host_name()), std::string::npos) << msg;
  ASSERT_EQ(::write(to_child[1], &c, 1), 1);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  OutputLock mine(dir.path().string());  // the child exited: free again
  for (int fd : {to_parent[0], to_parent[1], to_child[0], to_child[1]}) ::close(fd);
}

TEST(OutputLock, LockIsReleasedWhenTheHolderDies) {
  TempDir dir;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto* leaked = new OutputLock(dir.path().string());  // never destroyed: the process just dies
    (void)leaked;
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_NO_THROW(OutputLock(dir.path().string()));
}

TEST(OutputLock, MissingFolderIsAResourceError) {
  TempDir dir;
  EXPECT_THROW(OutputLock(dir.file("no/such/folder")), ResourceError);
}

}  // namespace
}  // namespace screen::store

// SHA-256 (libcrypto behind our interface) against the FIPS 180-4 example vectors, in pieces,
// copied and moved, and over files.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "test_files.hpp"

namespace screen {
namespace {

struct Vector {
  std::string message;
  const char* digest;
};

std::vector<Vector> fips_vectors() {
  return {
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
      {std::string(1000000, 'a'), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
  };
}

TEST(Sha256, FipsVectors) {
  for (const auto& v : fips_vectors()) EXPECT_EQ(sha256_hex(v.message), v.digest) << "length " << v.message.size();
}

TEST(Sha256, MillionAInUnevenPieces) {
  {
    Sha256 h;
    const std::string a(1000, 'a');
    std::size_t done = 0, step = 1;
    while (done < 1000000) {
      const std::size_t n = std::min({step, a.size(), 1000000 - done});
      h.update(a.data(), n);
      done += n;
      step = step * 3 % 997 + 1;  // 1, 4, 13, 40, ... a mix of sizes around the 64-byte block
    }
    EXPECT_EQ(h.hex_digest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  }
}

TEST(Sha256, DigestResetsTheObject) {
  Sha256 h;
  h.update("abc");
  EXPECT_EQ(h.hex_digest(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(h.hex_digest(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  h.update("abc");
  const auto bytes = h.digest();
  EXPECT_EQ(bytes[0], 0xba);
  EXPECT_EQ(bytes[31], 0xad);
}

TEST(Sha256, ACopyContinuesFromTheSameState) {
  Sha256 h;
  h.update("ab");
  Sha256 copy = h;
  h.update("c");
  copy.update("c");
  EXPECT_EQ(copy.hex_digest(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(h.hex_digest(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  Sha256 moved = std::move(copy);
  moved.update("abc");
  EXPECT_EQ(moved.hex_digest(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, FileEqualsHashOfItsBytes) {
  seq::test::TempDir dir;
  std::mt19937_64 rng(11);
  std::string bytes(3 * 1024 * 1024 + 17, '\0');  // more than one read chunk
  for (auto& c : bytes) c = static_cast<char>(rng());
  const std::string path = dir.file("blob.bin");
  seq::test::write_file(path, bytes);
  EXPECT_EQ(sha256_file(path), sha256_hex(bytes));
  seq::test::write_file(dir.file("abc.txt"), "abc");
  EXPECT_EQ(sha256_file(dir.file("abc.txt")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, MissingFileNamesPathAndReason) {
  seq::test::TempDir dir;
  const std::string path = dir.file("absent.fa");
  try {
    sha256_file(path);
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace screen

// Unit tests for engine/media_store on a temp directory: logical keys map to
// fanned-out paths (and nothing else maps at all), a blob and its sidecar
// round-trip, bytes that do not match their hash are refused with nothing
// left behind, a blob without a sidecar stays invisible, a second put of a
// blob writes nothing, ranged reads, the sidecar JSON (upstream field order,
// older sidecars without uploaded_at), and the start-up sweep of stale temp
// files.
#include "engine/media_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <utime.h>

#include <filesystem>
#include <fstream>

#include "tests/test_images.h"
#include "tests/temp_dir.h"

namespace buzz::engine {
namespace {

namespace fs = std::filesystem;

class MediaStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("buzz_media_test");
    ASSERT_FALSE(dir_.empty());
    auto store = MediaStore::open(dir_ + "/media");
    ASSERT_TRUE(store.ok()) << store.error();
    store_.emplace(std::move(*store));
  }
  void TearDown() override { fs::remove_all(dir_); }

  size_t files_in(const std::string& sub) const {
    size_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir_ + "/media/" + sub)) n += e.is_regular_file();
    return n;
  }

  std::string dir_;
  std::optional<MediaStore> store_;
};

MediaMeta png_meta(const std::string& png) {
  return MediaMeta{"16x16", "", "", "png", "image/png", png.size(), 1767225600, std::nullopt, ""};
}

TEST_F(MediaStoreTest, KeysMapToFannedOutPaths) {
  const std::string sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
  const std::string root = dir_ + "/media";
  EXPECT_EQ(store_->path_of(sha + ".png"), root + "/blobs/9f/86/" + sha + ".png");
  EXPECT_EQ(store_->path_of(sha + ".thumb.jpg"), root + "/blobs/9f/86/" + sha + ".thumb.jpg");
  EXPECT_EQ(store_->path_of("_meta/" + sha + ".json"), root + "/meta/9f/86/" + sha + ".json");
  for (const std::string& bad : {sha, sha + ".", sha + "..png", sha + ".p/g", sha + ".PNG", "../" + sha + ".png",
                                 std::string(63, 'a') + ".png", "9F" + sha.substr(2) + ".png", "_meta/" + sha + ".txt",
                                 "_meta/../" + sha + ".json", std::string("")}) {
    EXPECT_EQ(store_->path_of(bad), "") << bad;
  }
}

TEST_F(MediaStoreTest, BlobAndSidecarRoundTrip) {
  const std::string png = test::make_png(16, 16);
  const std::string sha = test::sha256_hex(png);
  ASSERT_TRUE(store_->put_blob(sha, "png", png).ok());
  ASSERT_TRUE(store_->put_meta(sha, png_meta(png)).ok());
  auto meta = store_->meta(sha);
  ASSERT_TRUE(meta.ok()) << meta.error();
  ASSERT_TRUE(*meta);
  EXPECT_EQ(**meta, png_meta(png));
  auto blob = store_->open_blob(sha + ".png");
  ASSERT_TRUE(blob.ok() && *blob);
  EXPECT_EQ((*blob)->size(), png.size());
  EXPECT_EQ(*(*blob)->read(0, png.size()), png);
  EXPECT_EQ(*(*blob)->read(8, 8), png.substr(8, 8));
  EXPECT_EQ(*(*blob)->read(png.size() - 4, 100), png.substr(png.size() - 4));  // short only at the end
  EXPECT_EQ(files_in("tmp"), 0u);
  struct stat st {};
  ASSERT_EQ(::stat(store_->path_of(sha + ".png").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST_F(MediaStoreTest, BytesThatDoNotMatchTheirHashAreRefused) {
  const std::string png = test::make_png(4, 4);
  const std::string other = test::sha256_hex("something else");
  Status s = store_->put_blob(other, "png", png);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error().find("do not hash"), std::string::npos) << s.error();
  EXPECT_EQ(files_in("blobs"), 0u);
  EXPECT_EQ(files_in("tmp"), 0u);
  EXPECT_FALSE(store_->put_blob(test::sha256_hex(png), "../x", png).ok());
}

TEST_F(MediaStoreTest, ABlobWithoutASidecarIsInvisible) {
  const std::string png = test::make_png(2, 2);
  const std::string sha = test::sha256_hex(png);
  ASSERT_TRUE(store_->put_blob(sha, "png", png).ok());
  auto meta = store_->meta(sha);
  ASSERT_TRUE(meta.ok());
  EXPECT_FALSE(*meta);
  auto missing = store_->open_blob(test::sha256_hex("never stored") + ".png");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(*missing);
}

TEST_F(MediaStoreTest, StoringABlobAgainWritesNothing) {
  const std::string png = test::make_png(3, 3);
  const std::string sha = test::sha256_hex(png);
  ASSERT_TRUE(store_->put_blob(sha, "png", png).ok());
  const std::string path = store_->path_of(sha + ".png");
  struct stat before {};
  ASSERT_EQ(::stat(path.c_str(), &before), 0);
  ASSERT_TRUE(store_->put_blob(sha, "png", png).ok());
  struct stat after {};
  ASSERT_EQ(::stat(path.c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);  // not replaced
  EXPECT_EQ(files_in("blobs"), 1u);
}

TEST_F(MediaStoreTest, SidecarJson) {
  MediaMeta m{"1024x768", "LEHV6nWB2yk8pyo0adR*.7kCMdnj", "https://b.example/media/x.thumb.jpg", "png", "image/png", 48213,
              1767225600, std::nullopt, ""};
  const std::string json = media_meta_json(m);
  EXPECT_EQ(json,
            R"({"dim":"1024x768","blurhash":"LEHV6nWB2yk8pyo0adR*.7kCMdnj","thumb_url":"https://b.example/media/x.thumb.jpg",)"
            R"("ext":"png","mime_type":"image/png","size":48213,"uploaded_at":1767225600})");
  EXPECT_EQ(*parse_media_meta(json), m);
  auto old = parse_media_meta(R"({"dim":"","blurhash":"","thumb_url":"","ext":"bin","mime_type":"application/pdf","size":3})");
  ASSERT_TRUE(old.ok()) << old.error();
  EXPECT_EQ(old->uploaded_at, 0u);
  EXPECT_FALSE(parse_media_meta(R"({"dim":"","ext":"png"})").ok());
  EXPECT_FALSE(parse_media_meta("not json").ok());
  EXPECT_FALSE(parse_media_meta(R"({"dim":"","blurhash":"","thumb_url":"","ext":"png","mime_type":"image/png","size":-1})").ok());
  // A video's sidecar adds duration_secs (§5.2), and only a video's.
  MediaMeta video{"1920x1080", "", "", "mp4", "video/mp4", 5242880, 1767225600, 12.48, ""};
  const std::string video_json = media_meta_json(video);
  EXPECT_TRUE(video_json.ends_with(R"("uploaded_at":1767225600,"duration_secs":12.48})")) << video_json;
  EXPECT_EQ(*parse_media_meta(video_json), video);
  EXPECT_FALSE(parse_media_meta(R"({"dim":"","blurhash":"","thumb_url":"","ext":"mp4","mime_type":"video/mp4","size":1,)"
                                R"("duration_secs":"long"})").ok());
  // A channel's blob (§6.5) names its channel last; every other sidecar has no such field.
  MediaMeta track{"", "", "", "ogg", "audio/ogg", 4096, 1767225600, 3.0, "0b9f2c1e-6a55-4c1d-9a57-51a8f1f0c0de"};
  const std::string track_json = media_meta_json(track);
  EXPECT_TRUE(track_json.ends_with(R"("duration_secs":3,"channel":"0b9f2c1e-6a55-4c1d-9a57-51a8f1f0c0de"})")) << track_json;
  EXPECT_EQ(*parse_media_meta(track_json), track);
  EXPECT_EQ(json.find("channel"), std::string::npos);
  EXPECT_FALSE(parse_media_meta(R"({"dim":"","blurhash":"","thumb_url":"","ext":"ogg","mime_type":"audio/ogg","size":1,)"
                                R"("channel":7})").ok());
}

TEST_F(MediaStoreTest, AnUnreadableSidecarIsAnError) {
  const std::string sha = test::sha256_hex("x");
  const std::string path = store_->path_of("_meta/" + sha + ".json");
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << "{broken";
  auto meta = store_->meta(sha);
  EXPECT_FALSE(meta.ok());
}

TEST_F(MediaStoreTest, OpenSweepsStaleTempFiles) {
  const std::string tmp = dir_ + "/media/tmp/";
  std::ofstream(tmp + "old.part") << "left by a crash";
  std::ofstream(tmp + "young.part") << "an upload in progress";
  struct utimbuf two_hours_ago {};
  two_hours_ago.actime = two_hours_ago.modtime = ::time(nullptr) - 7200;
  ASSERT_EQ(::utime((tmp + "old.part").c_str(), &two_hours_ago), 0);
  ASSERT_TRUE(MediaStore::open(dir_ + "/media").ok());
  EXPECT_FALSE(fs::exists(tmp + "old.part"));
  EXPECT_TRUE(fs::exists(tmp + "young.part"));
}

}  // namespace
}  // namespace buzz::engine

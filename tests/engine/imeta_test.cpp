// ImetaChecker (docs/reference/media.md §8) on a real media store in a temp directory: a tag
// that matches a stored image (and a video's poster frame) passes, and each
// structural rule (§8.1) and storage cross-check (§8.2) refuses with the
// spec's exact words.
#include "engine/imeta.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/test_images.h"
#include "tests/temp_dir.h"

namespace buzz::engine {
namespace {

namespace fs = std::filesystem;

const std::string kBase = "https://buzz.example.com/media";

class ImetaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("buzz_imeta_test");
    ASSERT_FALSE(dir_.empty());
    auto store = MediaStore::open(dir_ + "/media");
    ASSERT_TRUE(store) << store.error();
    store_.emplace(std::move(*store));
    checker_.emplace(*store_, kBase);
    png_ = test::make_png(8, 8);
    sha_ = test::sha256_hex(png_);
    ASSERT_TRUE(store_->put_blob(sha_, "png", png_));
    ASSERT_TRUE(store_->put_thumbnail(sha_, "jpeg bytes"));
    ASSERT_TRUE(store_->put_meta(sha_, {"8x8", "", sha_ + ".thumb.jpg", "png", "image/png", png_.size(), 1, std::nullopt, ""}));
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The refusal for an event with these imeta items ("" when accepted).
  std::string verdict(std::vector<std::string> items) {
    Event e;
    e.kind = 9;
    items.insert(items.begin(), "imeta");
    e.tags.push_back(items);
    auto refused = checker_->check(e);
    return refused.value_or("");
  }
  std::vector<std::string> good() {
    return {"url /media/" + sha_ + ".png", "m image/png", "x " + sha_, "size " + std::to_string(png_.size())};
  }
  std::vector<std::string> with(std::vector<std::string> items, const std::string& extra) {
    items.push_back(extra);
    return items;
  }

  std::string dir_, png_, sha_;
  std::optional<MediaStore> store_;
  std::optional<ImetaChecker> checker_;
};

TEST_F(ImetaTest, ATagThatMatchesTheStoreIsAccepted) {
  EXPECT_EQ(verdict(good()), "");
  auto full = good();
  full[0] = "url " + kBase + "/" + sha_ + ".png";  // the base URL form
  for (std::string extra : {"dim 8x8", "blurhash LEHV6nWB2yk8", "alt a picture", "fallback https://x/y.png",
                            "fallback https://x/z.png", "filename photo.png"}) {
    full.push_back(extra);
  }
  full.push_back("thumb /media/" + sha_ + ".thumb.jpg");
  EXPECT_EQ(verdict(full), "");
  Event plain;
  plain.kind = 9;
  EXPECT_FALSE(ImetaChecker::has_imeta(plain));
}

TEST_F(ImetaTest, StructuralRules) {
  const std::string sha = sha_;
  EXPECT_EQ(verdict(with(good(), "color red")), "disallowed imeta key: color");
  EXPECT_EQ(verdict(with(good(), "m image/png")), "duplicate imeta key: m");
  for (std::string url : {"https://elsewhere.example/media/" + sha + ".png", "/media/" + sha + ".png?x=1",
                          "/media/" + sha + ".PNG", "/media/" + sha.substr(1) + ".png", "/media/../" + sha + ".png"}) {
    auto items = good();
    items[0] = "url " + url;
    EXPECT_EQ(verdict(items), "imeta url must be a local /media/ path") << url;
  }
  auto thumb_url = good();
  thumb_url[0] = "url /media/" + sha + ".thumb.jpg";
  EXPECT_EQ(verdict(thumb_url), "imeta url must not be a thumbnail path; use thumb field");
  auto bad_m = good();
  bad_m[1] = "m imagepng";
  EXPECT_EQ(verdict(bad_m), "imeta m must be a valid MIME type");
  auto bad_x = good();
  bad_x[2] = "x " + std::string(64, 'A');
  EXPECT_EQ(verdict(bad_x), "imeta x must be a 64-char lowercase hex SHA-256");
  auto bad_size = good();
  bad_size[3] = "size 0";
  EXPECT_EQ(verdict(bad_size), "imeta size must be a positive integer");
  EXPECT_EQ(verdict(with(good(), "thumb /media/" + sha + ".png")), "imeta thumb must be a local .thumb.jpg path");
  EXPECT_EQ(verdict(with(good(), "duration soon")), "imeta duration must be a valid float");
  EXPECT_EQ(verdict(with(good(), "duration -1")), "imeta duration must be a positive finite number");
  EXPECT_EQ(verdict(with(good(), "bitrate x")), "imeta bitrate must be a positive integer");
  EXPECT_EQ(verdict(with(good(), "image https://x/y.png")), "imeta image must be a local /media/ path");
  EXPECT_EQ(verdict(with(good(), "image /media/" + sha + ".thumb.jpg")),
            "imeta image must reference a standalone poster frame, not a thumbnail");
  EXPECT_EQ(verdict(with(good(), "image /media/" + sha + ".mp4")),
            "imeta image must reference an image file (jpg, png, gif, webp), not video");
  EXPECT_EQ(verdict(with(good(), "filename " + std::string(256, 'a'))), "imeta filename must be 1–255 chars");
  EXPECT_EQ(verdict(with(good(), "filename ../etc/passwd")),
            "imeta filename must not contain path separators or control characters");
  auto missing = good();
  missing.pop_back();
  EXPECT_EQ(verdict(missing), "imeta tag must include url, m, x, and size");
  EXPECT_EQ(verdict(with(good(), "duration 1.5")), "imeta duration is only valid for video/mp4, not image/png");
  auto other_hash = good();
  other_hash[2] = "x " + std::string(64, 'a');
  EXPECT_EQ(verdict(other_hash), "imeta url hash does not match x");
  auto wrong_ext = good();
  wrong_ext[0] = "url /media/" + sha + ".jpg";
  EXPECT_EQ(verdict(wrong_ext), "imeta url extension does not match m");
  EXPECT_EQ(verdict(with(good(), "thumb /media/" + std::string(64, 'b') + ".thumb.jpg")), "imeta thumb hash does not match x");
}

TEST_F(ImetaTest, StorageCrossChecks) {
  const std::string text = "not stored";
  const std::string absent = test::sha256_hex(text);
  EXPECT_EQ(verdict({"url /media/" + absent + ".bin", "m application/octet-stream", "x " + absent, "size 10"}),
            "imeta references nonexistent blob: " + absent);
  // A sidecar whose object is gone.
  ASSERT_TRUE(store_->put_meta(absent, {"", "", "", "bin", "application/octet-stream", 10, 1, std::nullopt, ""}));
  EXPECT_EQ(verdict({"url /media/" + absent + ".bin", "m application/octet-stream", "x " + absent, "size 10"}),
            "imeta blob object missing in storage: " + absent);
  auto wrong_mime = good();
  wrong_mime[1] = "m application/pdf";
  EXPECT_EQ(verdict(wrong_mime), "imeta m (application/pdf) does not match stored MIME (image/png)");
  auto wrong_size = good();
  wrong_size[3] = "size 7";
  EXPECT_EQ(verdict(wrong_size), "imeta size (7) does not match stored size (" + std::to_string(png_.size()) + ")");
  // A stored file without a thumbnail.
  ASSERT_TRUE(store_->put_blob(absent, "bin", text));
  EXPECT_EQ(verdict({"url /media/" + absent + ".bin", "m application/octet-stream", "x " + absent, "size 10",
                     "thumb /media/" + absent + ".thumb.jpg"}),
            "imeta thumb references missing thumbnail: " + absent);
}

TEST_F(ImetaTest, AVideosPosterFrame) {
  const std::string video = "pretend mp4 bytes";
  const std::string vsha = test::sha256_hex(video);
  ASSERT_TRUE(store_->put_blob(vsha, "mp4", video));
  ASSERT_TRUE(store_->put_meta(vsha, {"640x360", "", "", "mp4", "video/mp4", video.size(), 1, std::nullopt, ""}));
  auto tag = [&](const std::string& image) {
    return verdict({"url /media/" + vsha + ".mp4", "m video/mp4", "x " + vsha, "size " + std::to_string(video.size()),
                    "duration 12.5", "bitrate 800000", "image " + image});
  };
  EXPECT_EQ(tag("/media/" + sha_ + ".png"), "");
  EXPECT_EQ(tag("/media/" + std::string(64, 'c') + ".png"), "imeta image references nonexistent poster: " + std::string(64, 'c'));
  EXPECT_EQ(tag("/media/" + sha_ + ".jpg"), "imeta image extension (jpg) does not match stored extension (png)");
  EXPECT_EQ(tag("/media/" + vsha + ".png"), "imeta image poster MIME must be image type, got video/mp4");
}

}  // namespace
}  // namespace buzz::engine

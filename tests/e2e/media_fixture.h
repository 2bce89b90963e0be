// What the media end-to-end tests share (media_test.cpp, media_video_test.cpp):
// Blossom kind-24242 authorizations, a raw upload head, and a fixture with an
// open relay and helpers to upload, fetch and count what the store holds.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/base64.h"
#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"
#include "tests/test_images.h"

namespace buzz::test {

namespace media_fs = std::filesystem;

inline const std::string kAuthFailed = R"({"error":"authentication failed"})";

struct AuthOptions {
  std::string verb = "upload";
  uint16_t kind = 24242;
  int64_t age_secs = 0;          // how long ago it was signed
  int64_t expires_in = 600;
  std::vector<engine::Tag> extra_tags;
  bool standard_base64 = false;  // nostr-tools style instead of BUD-11's URL-safe
};

// Default options with one change: opts([](AuthOptions& o) { o.verb = "list"; }).
template <class Change>
AuthOptions opts(Change change) {
  AuthOptions o;
  change(o);
  return o;
}

// `Authorization: Nostr <base64 kind-24242>` allowing an upload of `sha`.
inline std::string blossom_auth(const engine::Keypair& key, const std::string& sha, const AuthOptions& o = {}) {
  std::vector<engine::Tag> tags = {{"t", o.verb}, {"x", sha}, {"expiration", std::to_string(int64_t(unix_now()) + o.expires_in)}};
  tags.insert(tags.end(), o.extra_tags.begin(), o.extra_tags.end());
  engine::Event e = make_event(key, o.kind, "Upload file", tags, unix_now() - uint64_t(o.age_secs));
  return "Nostr " + (o.standard_base64 ? engine::encode_base64(e.raw) : engine::encode_base64url_unpadded(e.raw));
}

inline std::string upload_head(const std::string& authorization, const std::string& sha, uint64_t length,
                        const std::string& extra = "") {
  return "PUT /media/upload HTTP/1.1\r\nHost: x\r\nAuthorization: " + authorization + "\r\nX-SHA-256: " + sha +
         "\r\nContent-Length: " + std::to_string(length) + "\r\n" + extra + "\r\n";
}

class MediaTest : public ::testing::Test {
 protected:
  void SetUp() override { relay_ = start({"--open"}); }

  std::unique_ptr<RelayProcess> start(std::vector<std::string> args, std::vector<std::pair<std::string, std::string>> env = {},
                                      std::string data_dir = "") {
    std::string error;
    auto relay = RelayProcess::start(RelayOptions{std::move(args), std::move(env), std::move(data_dir)}, &error);
    EXPECT_NE(relay, nullptr) << error;
    return relay;
  }

  // PUT /media/upload with a Blossom auth for the body's own hash unless given.
  HttpReply upload(const std::string& body, const engine::Keypair& key, const AuthOptions& o = {}, std::string sha = "",
                   const std::string& content_type = "application/octet-stream", RelayProcess* relay = nullptr) {
    if (sha.empty()) sha = sha256_hex(body);
    return put(body, {{"Authorization", blossom_auth(key, sha, o)}, {"X-SHA-256", sha}, {"Content-Type", content_type}},
               relay);
  }
  HttpReply put(const std::string& body, const std::vector<std::pair<std::string, std::string>>& headers,
                RelayProcess* relay = nullptr) {
    return http_call((relay ? relay : relay_.get())->port(), "PUT", "/media/upload", headers, body);
  }
  HttpReply get(const std::string& path, const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    return http_call(relay_->port(), "GET", path, headers);
  }
  std::string media_url(const std::string& name) const {
    return "http://localhost:" + std::to_string(relay_->port()) + "/media/" + name;
  }
  // Regular files under <data-dir>/media/<sub>.
  size_t files_in(const std::string& sub, RelayProcess* relay = nullptr) const {
    size_t n = 0;
    media_fs::path dir = media_fs::path((relay ? relay : relay_.get())->data_dir()) / "media" / sub;
    for (const auto& e : media_fs::recursive_directory_iterator(dir)) n += e.is_regular_file();
    return n;
  }
  void expect_nothing_stored(RelayProcess* relay = nullptr) {
    EXPECT_EQ(files_in("blobs", relay), 0u);
    EXPECT_EQ(files_in("meta", relay), 0u);
    EXPECT_EQ(files_in("tmp", relay), 0u);
  }

  std::unique_ptr<RelayProcess> relay_;
  engine::Keypair alice_ = engine::generate_keypair();
};

}  // namespace buzz::test

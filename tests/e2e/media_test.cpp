// End-to-end tests of media (docs/reference/media.md) against the real binary: a real PNG
// uploaded (descriptor fields, idempotent again), fetched (Content-Type and
// the cache and safety headers, bare name, wrong extension), probed with HEAD,
// ranged (206 and 416); its audit entry and upload metric. Every refusal: each
// authentication failure is the same 401 (before and after the body), a
// non-member of a closed relay and a missing API token, oversize bodies and
// GIFs (413), a head refused before its body is sent (and 100-continue), pixel
// bombs, types that are not images (400 / 415), a declared
// Content-Type that is ignored, the Blossom routes Buzz leaves out, and that
// nothing refused, cut off or uncommitted ever becomes visible.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "engine/image_info.h"
#include "engine/signature.h"
#include "tests/e2e/media_fixture.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/raw_connection.h"
#include "tests/e2e/relay_process.h"
#include "tests/e2e/scratch_dir.h"
#include "tests/test_images.h"

namespace buzz::test {
namespace {

namespace fs = std::filesystem;
using engine::Keypair;

// `buzz audit <args>`'s output.
std::string run_audit(const std::string& args) {
  int status = -1;
  return run_buzz("audit " + args, &status);
}

TEST_F(MediaTest, PngRoundTrip) {
  const std::string png = make_png(16, 16);
  const std::string sha = sha256_hex(png);
  HttpReply up = upload(png, alice_);
  ASSERT_EQ(up.status, 200) << up.body;
  EXPECT_EQ(up.headers["content-type"], "application/json");
  const uint64_t uploaded = std::stoull(up.body.substr(up.body.find("\"uploaded\":") + 11));
  EXPECT_LE(uploaded, unix_now());
  EXPECT_GE(uploaded + 5, unix_now());
  // The blurhash's value is the unit tests' business (media_image_test.cpp): here, its place and shape.
  const size_t bh = up.body.find(",\"blurhash\":\"");
  ASSERT_NE(bh, std::string::npos) << up.body;
  const std::string blurhash = up.body.substr(bh + 13, 28);
  EXPECT_EQ(up.body, "{\"url\":\"" + media_url(sha + ".png") + "\",\"sha256\":\"" + sha + "\",\"size\":" +
                         std::to_string(png.size()) + ",\"type\":\"image/png\",\"uploaded\":" + std::to_string(uploaded) +
                         ",\"dim\":\"16x16\",\"blurhash\":\"" + blurhash + "\",\"thumb\":\"" +
                         media_url(sha + ".thumb.jpg") + "\"}");
  // The thumbnail: a JPEG of the same 16 × 16 (never enlarged).
  HttpReply thumb = get("/media/" + sha + ".thumb.jpg");
  ASSERT_EQ(thumb.status, 200);
  EXPECT_EQ(thumb.headers["content-type"], "image/jpeg");
  EXPECT_EQ(engine::read_image_size("image/jpeg", thumb.body), (engine::ImageSize{16, 16}));

  HttpReply got = get("/media/" + sha + ".png");
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(got.body, png);
  EXPECT_EQ(got.headers["content-type"], "image/png");
  EXPECT_EQ(got.headers["content-length"], std::to_string(png.size()));
  EXPECT_EQ(got.headers["content-disposition"], "inline");
  EXPECT_EQ(got.headers["cache-control"], "public, max-age=31536000, immutable");
  EXPECT_EQ(got.headers["content-security-policy"], "default-src 'none'");
  EXPECT_EQ(got.headers["x-content-type-options"], "nosniff");
  EXPECT_EQ(got.headers["accept-ranges"], "bytes");
  EXPECT_EQ(got.headers["access-control-allow-origin"], "*");
  EXPECT_EQ(get("/media/" + sha).body, png);  // the extension comes from the sidecar
  EXPECT_EQ(get("/media/" + sha + ".jpg").status, 404);

  HttpReply head = http_call(relay_->port(), "HEAD", "/media/" + sha + ".png");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.headers["content-length"], std::to_string(png.size()));
  EXPECT_EQ(head.headers["content-type"], "image/png");
  EXPECT_EQ(head.headers["accept-ranges"], "bytes");
  EXPECT_EQ(head.headers["cache-control"], "public, max-age=31536000, immutable");
  EXPECT_EQ(head.body, "");
  EXPECT_EQ(http_call(relay_->port(), "HEAD", "/media/" + sha256_hex("other") + ".png").status, 404);

  // On disk: the fanned-out blob and its sidecar, nothing left in tmp/.
  fs::path root = fs::path(relay_->data_dir()) / "media";
  EXPECT_TRUE(fs::exists(root / "blobs" / sha.substr(0, 2) / sha.substr(2, 2) / (sha + ".png")));
  EXPECT_TRUE(fs::exists(root / "blobs" / sha.substr(0, 2) / sha.substr(2, 2) / (sha + ".thumb.jpg")));
  EXPECT_TRUE(fs::exists(root / "meta" / sha.substr(0, 2) / sha.substr(2, 2) / (sha + ".json")));
  EXPECT_EQ(files_in("tmp"), 0u);

  // Again, by someone else: the same descriptor, from the first upload's sidecar.
  HttpReply again = upload(png, engine::generate_keypair(), opts([](AuthOptions& o) { o.standard_base64 = true; }));
  EXPECT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.body, up.body);
  EXPECT_NE(http_get(relay_->port(), "/metrics").body.find("buzz_media_uploads_total{mime=\"image/png\"} 2"),
            std::string::npos);
}

TEST_F(MediaTest, Ranges) {
  const std::string png = make_png(32, 32);
  const std::string sha = sha256_hex(png);
  ASSERT_EQ(upload(png, alice_).status, 200);
  const std::string path = "/media/" + sha + ".png", total = std::to_string(png.size());

  HttpReply first = get(path, {{"Range", "bytes=0-9"}});
  EXPECT_EQ(first.status, 206);
  EXPECT_EQ(first.body, png.substr(0, 10));
  EXPECT_EQ(first.headers["content-range"], "bytes 0-9/" + total);
  EXPECT_EQ(first.headers["content-length"], "10");
  EXPECT_EQ(first.headers["content-type"], "image/png");
  HttpReply tail = get(path, {{"Range", "bytes=-4"}});
  EXPECT_EQ(tail.status, 206);
  EXPECT_EQ(tail.body, png.substr(png.size() - 4));
  HttpReply open_ended = get(path, {{"Range", "bytes=8-"}});
  EXPECT_EQ(open_ended.status, 206);
  EXPECT_EQ(open_ended.body, png.substr(8));
  EXPECT_EQ(open_ended.headers["content-range"], "bytes 8-" + std::to_string(png.size() - 1) + "/" + total);
  EXPECT_EQ(get(path, {{"Range", "bytes=0-1,4-5"}}).status, 200);  // multi-range: the whole object

  for (const std::string& range : {"bytes=" + total + "-", std::string("bytes=5-4"), std::string("bytes=-0"),
                                  std::string("lines=0-1")}) {
    HttpReply refused = get(path, {{"Range", range}});
    EXPECT_EQ(refused.status, 416) << range;
    EXPECT_EQ(refused.headers["content-range"], "bytes */" + total) << range;
    EXPECT_EQ(refused.body, "") << range;
  }
}

TEST_F(MediaTest, UploadIsAuditedWithItsSigner) {
  const ScratchDir scratch("media-e2e");
  const std::string& dir = scratch.path();
  const std::string png = make_png(4, 4);
  {
    auto relay = start({"--open"}, {}, dir);
    ASSERT_TRUE(relay);
    ASSERT_EQ(upload(png, alice_, {}, "", "image/png", relay.get()).status, 200);
  }  // the relay drains its audit queue as it stops
  std::string chain = run_audit("tail -n 100 --data-dir " + dir);
  const std::string sha = sha256_hex(png);
  EXPECT_NE(chain.find("\"event_id\":\"" + sha + "\""), std::string::npos) << chain;
  EXPECT_NE(chain.find("\"kind\":49001"), std::string::npos) << chain;
  EXPECT_NE(chain.find("\"actor\":\"" + engine::to_hex(alice_.pubkey) + "\""), std::string::npos) << chain;
  EXPECT_NE(chain.find("\"action\":\"media_uploaded\""), std::string::npos) << chain;
  EXPECT_NE(chain.find("{\"mime\":\"image/png\",\"sha256\":\"" + sha + "\",\"size\":" + std::to_string(png.size()) + "}"),
            std::string::npos)
      << chain;
}

TEST_F(MediaTest, EveryAuthenticationFailureIsTheSame401) {
  const std::string png = make_png(8, 8);
  const std::string sha = sha256_hex(png);
  std::vector<std::pair<std::string, HttpReply>> refused = {
      {"no Authorization", put(png, {{"X-SHA-256", sha}})},
      {"another scheme", put(png, {{"Authorization", "Bearer " + blossom_auth(alice_, sha).substr(6)}, {"X-SHA-256", sha}})},
      {"bad base64", put(png, {{"Authorization", "Nostr %%%"}, {"X-SHA-256", sha}})},
      {"wrong kind", upload(png, alice_, opts([](AuthOptions& o) { o.kind = 27235; }))},
      {"wrong verb", upload(png, alice_, opts([](AuthOptions& o) { o.verb = "delete"; }))},
      {"expired", upload(png, alice_, opts([](AuthOptions& o) { o.expires_in = -1; }))},
      {"signed two hours ago", upload(png, alice_, opts([](AuthOptions& o) { o.age_secs = 7200; }))},
      {"signed in the future", upload(png, alice_, opts([](AuthOptions& o) { o.age_secs = -60; }))},
      {"another server", upload(png, alice_, opts([](AuthOptions& o) { o.extra_tags = {{"server", "elsewhere.example"}}; }))},
      {"no X-SHA-256", put(png, {{"Authorization", blossom_auth(alice_, sha)}})},
      {"uppercase X-SHA-256", upload(png, alice_, {}, std::string(64, 'A'))},
      {"x tag for another hash", put(png, {{"Authorization", blossom_auth(alice_, sha256_hex("x"))}, {"X-SHA-256", sha}})},
      // The head is honest, the body is not what was signed: caught after reading it.
      {"body hash mismatch", put(png + "tail", {{"Authorization", blossom_auth(alice_, sha)}, {"X-SHA-256", sha}})},
      // Twenty minutes old passes before the body (one hour) but not after it (ten minutes for images).
      {"too old for an image", upload(png, alice_, opts([](AuthOptions& o) { o.age_secs = 1200; }))},
  };
  for (const auto& [why, reply] : refused) {
    EXPECT_EQ(reply.status, 401) << why << ": " << reply.body;
    EXPECT_EQ(reply.body, kAuthFailed) << why;
  }
  const std::string us = "localhost:" + std::to_string(relay_->port());
  EXPECT_EQ(upload(png, alice_, opts([&](AuthOptions& o) { o.extra_tags = {{"server", us}}; })).status, 200);
}

TEST_F(MediaTest, NothingRefusedIsStored) {
  const std::string png = make_png(8, 8);
  EXPECT_EQ(upload(png, alice_, opts([](AuthOptions& o) { o.verb = "list"; })).status, 401);
  EXPECT_EQ(put(png + "x", {{"Authorization", blossom_auth(alice_, sha256_hex(png))}, {"X-SHA-256", sha256_hex(png)}}).status,
            401);
  EXPECT_EQ(upload("<!DOCTYPE html><html><body>hi</body></html>\n", alice_).status, 415);
  EXPECT_EQ(upload(png.substr(0, png.size() / 2), alice_).status, 400);  // does not decode
  EXPECT_EQ(get("/media/" + sha256_hex(png) + ".png").status, 404);
  expect_nothing_stored();
}

TEST_F(MediaTest, OversizeUploadIs413AndNothingIsStored) {
  // A body over 50 MiB is refused from its head, and the relay reads the rest
  // away so the client still gets the answer.
  std::string big = make_png(16, 16);
  big.resize((50u << 20) + 1, '\0');
  HttpReply r = upload(big, alice_);
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.body, R"j({"error":"file too large: 52428801 bytes (max 52428800)"})j");
  EXPECT_EQ(r.headers["connection"], "close");
  // GIFs stop at 10 MiB, decided once the bytes say GIF.
  std::string gif = tiny_gif();
  gif.resize((10u << 20) + 1, '\0');
  HttpReply g = upload(gif, alice_);
  EXPECT_EQ(g.status, 413);
  EXPECT_EQ(g.body, R"j({"error":"file too large: 10485761 bytes (max 10485760)"})j");
  EXPECT_EQ(get("/media/" + sha256_hex(big)).status, 404);
  EXPECT_EQ(get("/media/" + sha256_hex(gif)).status, 404);
  expect_nothing_stored();
  // The limit is media's alone: other routes keep 1 MiB.
  HttpReply api = http_call(relay_->port(), "PUT", "/api/presence", {}, std::string((1 << 20) + 1, 'x'));
  EXPECT_EQ(api.status, 413);
}

TEST_F(MediaTest, TheHeadIsJudgedBeforeTheBodyIsSent) {
  const std::string png = make_png(8, 8);
  const std::string sha = sha256_hex(png);
  // Unauthenticated or too large: answered and closed with no body byte sent.
  RawConnection stranger(relay_->port());
  stranger.send(upload_head("Nostr e30", sha, 40u << 20));
  std::string refused = stranger.read("\r\n\r\n" + kAuthFailed);
  EXPECT_TRUE(refused.starts_with("HTTP/1.1 401 ")) << refused;
  EXPECT_NE(refused.find("Connection: close"), std::string::npos) << refused;
  RawConnection large(relay_->port());
  large.send(upload_head(blossom_auth(alice_, sha), sha, 101u << 20));  // over the 100 MiB file limit
  EXPECT_TRUE(large.read("}").starts_with("HTTP/1.1 413 "));
  // A client that waits for the go-ahead gets it, then its answer.
  RawConnection patient(relay_->port());
  patient.send(upload_head(blossom_auth(alice_, sha), sha, png.size(), "Expect: 100-continue\r\n"));
  EXPECT_EQ(patient.read("\r\n\r\n"), "HTTP/1.1 100 Continue\r\n\r\n");
  patient.send(png);
  EXPECT_TRUE(patient.read("}").starts_with("HTTP/1.1 200 "));
}

// Every previewable type gets its 320 px JPEG thumbnail and a blurhash (docs/reference/media.md §4);
// a file that does not decode is refused and leaves nothing behind.
TEST_F(MediaTest, EveryPreviewableTypeGetsAThumbnail) {
  struct Case {
    std::string mime, bytes, dim;
    engine::ImageSize thumb;
  };
  for (const Case& c : std::vector<Case>{{"image/jpeg", make_jpeg(1000, 500), "1000x500", {320, 160}},
                                         {"image/png", make_rgba_png(300, 600, true), "300x600", {160, 320}},
                                         {"image/webp", make_webp(640, 480, true), "640x480", {320, 240}},
                                         {"image/gif", make_animated_gif(50, 40), "50x40", {50, 40}}}) {
    SCOPED_TRACE(c.mime);
    const std::string sha = sha256_hex(c.bytes);
    HttpReply up = upload(c.bytes, alice_);
    ASSERT_EQ(up.status, 200) << up.body;
    EXPECT_NE(up.body.find("\"type\":\"" + c.mime + "\""), std::string::npos) << up.body;
    EXPECT_NE(up.body.find("\"dim\":\"" + c.dim + "\""), std::string::npos) << up.body;
    EXPECT_NE(up.body.find("\"blurhash\":\"L"), std::string::npos) << up.body;  // 4 × 3 components
    EXPECT_NE(up.body.find("\"thumb\":\"" + media_url(sha + ".thumb.jpg") + "\""), std::string::npos) << up.body;
    HttpReply thumb = get("/media/" + sha + ".thumb.jpg");
    ASSERT_EQ(thumb.status, 200);
    EXPECT_EQ(engine::read_image_size("image/jpeg", thumb.body), c.thumb);
  }
  const std::string jpeg = make_jpeg(200, 200);
  const std::string truncated = jpeg.substr(0, jpeg.size() * 2 / 3);
  HttpReply bad = upload(truncated, alice_);
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body, R"({"error":"invalid image data"})");
  EXPECT_EQ(get("/media/" + sha256_hex(truncated)).status, 404);
  EXPECT_EQ(files_in("tmp"), 0u);
}

TEST_F(MediaTest, ImagesAreBoundedInPixels) {
  HttpReply bomb = upload(png_header_only(10000, 10000), alice_);
  EXPECT_EQ(bomb.status, 413);
  EXPECT_EQ(bomb.body, R"({"error":"image dimensions too large"})");
  // Exactly 25 Mpx passes the header check, and then the decoder finds no pixels.
  HttpReply at_limit = upload(png_header_only(5000, 5000), alice_);
  EXPECT_EQ(at_limit.status, 400);
  EXPECT_EQ(at_limit.body, R"({"error":"invalid image data"})");
  HttpReply unreadable = upload(png_header_only(0, 10), alice_);
  EXPECT_EQ(unreadable.status, 400);
  EXPECT_EQ(unreadable.body, R"({"error":"invalid image data"})");
}

TEST_F(MediaTest, TheTypeComesFromTheBytes) {
  // No signature: a download, whatever the client says it is (docs/reference/media.md §3.4).
  const std::string plain = "just some text\n";
  HttpReply text = upload(plain, alice_, {}, "", "image/png");
  ASSERT_EQ(text.status, 200) << text.body;
  EXPECT_NE(text.body.find("\"url\":\"" + media_url(sha256_hex(plain) + ".bin") + "\""), std::string::npos) << text.body;
  EXPECT_NE(text.body.find("\"type\":\"application/octet-stream\""), std::string::npos) << text.body;
  EXPECT_EQ(text.body.find("\"dim\""), std::string::npos) << text.body;
  EXPECT_EQ(text.body.find("\"thumb\""), std::string::npos) << text.body;
  HttpReply served = get("/media/" + sha256_hex(plain) + ".bin");
  EXPECT_EQ(served.body, plain);
  EXPECT_EQ(served.headers["content-type"], "application/octet-stream");
  EXPECT_EQ(served.headers["content-disposition"], "attachment");
  EXPECT_EQ(get("/media/" + sha256_hex(plain) + ".thumb.jpg").status, 404);
  std::ifstream in("/proc/self/exe", std::ios::binary);
  std::string elf(65536, '\0');
  in.read(elf.data(), std::streamsize(elf.size()));
  HttpReply exe = upload(elf, alice_, {}, "", "image/png");
  EXPECT_EQ(exe.status, 415);
  EXPECT_TRUE(exe.body.starts_with(R"({"error":"disallowed content type: application/x-)")) << exe.body;
  HttpReply svg = upload(R"(<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>)", alice_, {}, "",
                         "image/png");
  EXPECT_EQ(svg.status, 415);
  EXPECT_EQ(svg.body, R"({"error":"disallowed content type: image/svg+xml"})");
  HttpReply html = upload("<!DOCTYPE html>\n<html><head><title>x</title></head><body><script>alert(1)</script></body></html>\n",
                          alice_);
  EXPECT_EQ(html.status, 415);
  EXPECT_EQ(html.body, R"({"error":"disallowed content type: text/html"})");
  // Files with a signature keep their type and extension, and download as attachments.
  const std::string pdf = "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n";
  HttpReply doc = upload(pdf, alice_);
  ASSERT_EQ(doc.status, 200) << doc.body;
  EXPECT_NE(doc.body.find("\"url\":\"" + media_url(sha256_hex(pdf) + ".pdf") + "\""), std::string::npos) << doc.body;
  EXPECT_NE(doc.body.find("\"type\":\"application/pdf\""), std::string::npos) << doc.body;
  EXPECT_EQ(get("/media/" + sha256_hex(pdf)).headers["content-disposition"], "attachment");
  const std::string gz("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00", 20);
  HttpReply archive = upload(gz, alice_);
  ASSERT_EQ(archive.status, 200) << archive.body;
  EXPECT_NE(archive.body.find(".gz\""), std::string::npos) << archive.body;

  // A GIF declared as PNG is stored, described and served as the GIF it is.
  const std::string gif = tiny_gif();
  const std::string sha = sha256_hex(gif);
  HttpReply up = upload(gif, alice_, {}, "", "image/png");
  ASSERT_EQ(up.status, 200) << up.body;
  EXPECT_NE(up.body.find("\"url\":\"" + media_url(sha + ".gif") + "\""), std::string::npos) << up.body;
  EXPECT_NE(up.body.find("\"type\":\"image/gif\""), std::string::npos) << up.body;
  EXPECT_NE(up.body.find("\"dim\":\"1x1\""), std::string::npos) << up.body;
  EXPECT_EQ(get("/media/" + sha + ".gif").headers["content-type"], "image/gif");
  EXPECT_EQ(get("/media/" + sha + ".png").status, 404);
}

// An upload authorization sent as an EVENT is refused, never broadcast (docs/reference/media.md §8.4).
TEST_F(MediaTest, BlossomAuthEventsAreNotRelayed) {
  std::string error;
  auto sender = NostrClient::connect_authed(*relay_, alice_, &error);
  ASSERT_TRUE(sender) << error;
  Keypair watcher_key = engine::generate_keypair();
  auto watcher = NostrClient::connect_authed(*relay_, watcher_key, &error);
  ASSERT_TRUE(watcher) << error;
  watcher->send(R"(["REQ","b",{"kinds":[24242]}])");
  ASSERT_TRUE(watcher->wait_for([](const RelayMessage& m) { return m.type == "EOSE"; }).has_value());
  OkReply ok = sender->publish(make_event(alice_, 24242, "upload", {{"t", "upload"}}));
  EXPECT_FALSE(ok.accepted);
  EXPECT_EQ(ok.reason, "restricted: blossom auth events are not relayed");
  EXPECT_FALSE(watcher->wait_for([](const RelayMessage& m) { return m.type == "EVENT"; }, 300).has_value());
}

// A message's attachments (NIP-92 imeta) must be blobs stored here, as stored (docs/reference/media.md §8).
TEST_F(MediaTest, ImetaTagsMustMatchTheStoredBlob) {
  const std::string png = make_png(12, 12);
  const std::string sha = sha256_hex(png);
  ASSERT_EQ(upload(png, alice_).status, 200);
  std::string error;
  auto c = NostrClient::connect_authed(*relay_, alice_, &error);
  ASSERT_TRUE(c) << error;
  auto imeta = [&](const std::string& size) {
    return std::vector<std::string>{"imeta", "url " + media_url(sha + ".png"), "m image/png", "x " + sha, "size " + size,
                                     "dim 12x12", "thumb " + media_url(sha + ".thumb.jpg")};
  };
  OkReply ok = c->publish(make_event(alice_, 1, "look", {imeta(std::to_string(png.size()))}));
  EXPECT_TRUE(ok.accepted) << ok.reason;
  OkReply wrong = c->publish(make_event(alice_, 1, "look again", {imeta("5")}));
  EXPECT_FALSE(wrong.accepted);
  EXPECT_EQ(wrong.reason, "invalid: imeta size (5) does not match stored size (" + std::to_string(png.size()) + ")");
  const std::string other = sha256_hex("never uploaded");
  OkReply missing = c->publish(make_event(alice_, 1, "ghost", {{"imeta", "url /media/" + other + ".png", "m image/png",
                                                                 "x " + other, "size 3"}}));
  EXPECT_EQ(missing.reason, "invalid: imeta references nonexistent blob: " + other);
  OkReply foreign = c->publish(make_event(alice_, 1, "hotlink", {{"imeta", "url https://cdn.example/" + sha + ".png",
                                                                  "m image/png", "x " + sha, "size 3"}}));
  EXPECT_EQ(foreign.reason, "invalid: imeta url must be a local /media/ path");
}

TEST_F(MediaTest, ClosedRelayNeedsAMember) {
  Keypair owner = engine::generate_keypair();
  auto closed = start({}, {{"RELAY_OWNER_PUBKEY", engine::to_hex(owner.pubkey)}});
  ASSERT_TRUE(closed);
  const std::string png = make_png(8, 8);
  HttpReply stranger = upload(png, alice_, {}, "", "image/png", closed.get());
  EXPECT_EQ(stranger.status, 403);
  EXPECT_EQ(stranger.body, R"({"error":"relay membership required"})");
  expect_nothing_stored(closed.get());
  EXPECT_EQ(upload(png, owner, {}, "", "image/png", closed.get()).status, 200);
}

// Dev mode with BUZZ_PUBKEY_ALLOWLIST (docs/reference/media.md §2.3): only a listed signer may upload.
TEST_F(MediaTest, DevModeUploadsNeedAnAllowlistedSignerWhenTheListIsOn) {
  auto gated = start({"--open", "--pubkey-allowlist", "true"});
  ASSERT_TRUE(gated);
  const std::string png = make_png(8, 8);
  HttpReply refused = upload(png, alice_, {}, "", "image/png", gated.get());
  EXPECT_EQ(refused.status, 401);
  EXPECT_EQ(refused.body, R"({"error":"authentication failed"})");
  expect_nothing_stored(gated.get());
}

// NIP-OA (docs/reference/media.md §2.2 step 16): with BUZZ_ALLOW_NIP_OA_AUTH, an X-Auth-Tag
// in which a member vouches for the signer admits its upload; anything else does not.
TEST_F(MediaTest, ClosedRelayTakesAMembersAttestationForItsAgent) {
  Keypair owner = engine::generate_keypair();
  auto closed = start({"--allow-nip-oa-auth", "true"}, {{"RELAY_OWNER_PUBKEY", engine::to_hex(owner.pubkey)}});
  ASSERT_TRUE(closed);
  const std::string png = make_png(8, 8), sha = sha256_hex(png);
  auto upload_with = [&](const std::string& auth_tag) {
    return put(png, {{"Authorization", blossom_auth(alice_, sha)}, {"X-SHA-256", sha}, {"X-Auth-Tag", auth_tag}},
               closed.get());
  };
  const std::string for_uploads = nip_oa_header(nip_oa_tag(owner, alice_.pubkey, "kind=24242"));
  const std::string for_auth_only = nip_oa_header(nip_oa_tag(owner, alice_.pubkey, "kind=22242"));
  const std::string by_a_stranger = nip_oa_header(nip_oa_tag(engine::generate_keypair(), alice_.pubkey, ""));
  EXPECT_EQ(upload_with(for_auth_only).status, 403);
  EXPECT_EQ(upload_with(by_a_stranger).status, 403);
  expect_nothing_stored(closed.get());
  HttpReply vouched = upload_with(for_uploads);
  EXPECT_EQ(vouched.status, 200) << vouched.body;
}

TEST_F(MediaTest, RequiredApiTokensAreRefusedUntilTokensExist) {
  auto strict = start({"--open"}, {{"BUZZ_REQUIRE_AUTH_TOKEN", "true"}});
  ASSERT_TRUE(strict);
  const std::string png = make_png(8, 8);
  const std::string sha = sha256_hex(png);
  HttpReply none = upload(png, alice_, {}, "", "image/png", strict.get());
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.body, kAuthFailed);
  HttpReply token = put(png, {{"Authorization", blossom_auth(alice_, sha)}, {"X-SHA-256", sha},
                              {"X-Auth-Token", "buzz_" + std::string(64, '0')}}, strict.get());
  EXPECT_EQ(token.status, 401);
  EXPECT_EQ(token.body, kAuthFailed);
  expect_nothing_stored(strict.get());
}

TEST_F(MediaTest, CutOffOrUncommittedUploadsAreInvisible) {
  const std::string png = make_png(8, 8);
  const std::string sha = sha256_hex(png);
  // The client hangs up halfway through the body.
  RawConnection(relay_->port()).send(upload_head(blossom_auth(alice_, sha), sha, png.size()) + png.substr(0, png.size() / 2));
  EXPECT_EQ(http_get(relay_->port(), "/health").status, 200);
  EXPECT_EQ(get("/media/" + sha + ".png").status, 404);
  expect_nothing_stored();
  // A blob whose sidecar was never written (a crash between the two) is not served.
  fs::path blob = fs::path(relay_->data_dir()) / "media" / "blobs" / sha.substr(0, 2) / sha.substr(2, 2) / (sha + ".png");
  fs::create_directories(blob.parent_path());
  std::ofstream(blob, std::ios::binary) << png;
  EXPECT_EQ(get("/media/" + sha + ".png").status, 404);
  EXPECT_EQ(get("/media/" + sha).status, 404);
  EXPECT_EQ(http_call(relay_->port(), "HEAD", "/media/" + sha + ".png").status, 404);
  // Uploading it commits the sidecar, and then it is served.
  ASSERT_EQ(upload(png, alice_).status, 200);
  EXPECT_EQ(get("/media/" + sha + ".png").body, png);
}

TEST_F(MediaTest, RoutesAndNamesBuzzDoesNotServe) {
  const std::string sha = sha256_hex("anything");
  EXPECT_EQ(http_call(relay_->port(), "HEAD", "/media/upload").status, 405);  // BUD-06 preflight
  EXPECT_EQ(http_call(relay_->port(), "GET", "/media/upload").status, 405);
  EXPECT_EQ(http_call(relay_->port(), "DELETE", "/media/" + sha).status, 405);
  EXPECT_EQ(http_call(relay_->port(), "PUT", "/media/mirror", {}, "{}").status, 405);
  EXPECT_EQ(get("/media/list/" + engine::to_hex(alice_.pubkey)).status, 404);
  for (const std::string& name : {sha.substr(0, 63), std::string(64, 'A'), sha + ".PNG", sha + ".toolongext", sha + ".a.b",
                                 sha + ".", "_" + sha.substr(1), "..%2f" + sha, "_meta/" + sha + ".json"}) {
    HttpReply r = get("/media/" + name);
    EXPECT_EQ(r.status, 404) << name;
    EXPECT_EQ(r.body, R"({"error":"not found"})") << name;
  }
}

}  // namespace
}  // namespace buzz::test

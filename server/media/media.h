// Media: the /media/ area of the relay's port (docs/reference/media.md) — Blossom uploads
// (PUT /media/upload, authorized by a kind 24242 and, when the operator asks,
// an API token) and the blobs they stored (GET/HEAD /media/<sha256>.<ext>,
// with ranges; a blob of a channel, such as a huddle recording's track, only
// to a proven reader of that channel), plus 404/405 for the Blossom routes
// Buzz leaves out.
//
// Threads: routing and serving run on the loop that owns the request; an
// upload (hashing, decoding, the thumbnail, the fsyncs: up to seconds for a
// large image; a video's body was streamed to a file and hashed by the loop's
// spool writer, net/body_spool.h) runs on the media worker thread, which answers through the
// request's `Later`. At most kMaxQueuedUploads wait; past that, 503.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include "engine/api_tokens.h"
#include "engine/media_store.h"
#include "engine/team_state.h"
#include "net/http.h"
#include "net/service.h"
#include "server/access/gatekeeper.h"
#include "server/access/key_proof.h"
#include "server/access/nip98.h"
#include "server/access/relay_membership.h"
#include "server/media/upload_budget.h"
#include "server/pipeline/relay_stats.h"
#include "server/pipeline/store_writer.h"
#include "server/pipeline/throttle.h"

namespace buzz::server {

class Media {
 public:
  struct Options {
    bool require_auth_token = false;  // false = dev mode: an upload needs no API token
    uint64_t max_image_bytes = 50 << 20;
    uint64_t max_gif_bytes = 10 << 20;
    uint64_t max_file_bytes = 100 << 20;  // every other type (docs/reference/media.md §3.4)
    uint64_t max_video_bytes = 500 << 20;  // a video/* upload, streamed to a file (§3.3)
    // Bodies in flight (admitted, not yet answered) across the relay and per
    // pubkey; 0 = no bound (upload_budget.h).
    uint64_t upload_bytes_in_flight = uint64_t(2) << 30;
    uint64_t upload_bytes_per_pubkey = uint64_t(1) << 30;
    uint32_t min_upload_bytes_per_sec = 4096;  // a streamed body slower than this is refused (408)
    std::string spool_dir;  // where a body past kBufferedUploadBytes is streamed: the media store's tmp/ (same filesystem)
    std::string base_url;   // descriptor URLs: <base>/<sha>.<ext>
    std::string authority;  // what Blossom `server` tags must name
    std::string relay_http_url;  // what NIP-98 signatures name (RELAY_URL as http), besides base_url's host
  };
  struct Services {
    engine::MediaStore& blobs;
    const engine::TeamState& team;  // who may read a channel's blob
    const RelayMembership& membership;
    engine::ApiTokens& tokens;
    Gatekeeper& gatekeeper;
    KeyProver& prover;  // a channel blob's reader, as REST proves a caller
    Throttle& throttle;
    StoreWriter& writer;
    RelayStats& stats;
  };
  Media(Options options, const Services& services);

  Media(const Media&) = delete;
  ~Media();

  // An answer given later, from the media worker.
  using Later = std::function<void(net::HttpResponse)>;
  // Any request under /media/: answered now, or (an upload) nullopt and later through `later`.
  std::optional<net::HttpResponse> route(const net::HttpRequest& req, Later later);
  // Starts the media worker; stop() finishes the uploads it holds and ends it.
  void start();
  void stop();
  // PUT /media/upload before its body is read: refused, or buffered when it
  // declares at most kBufferedUploadBytes, or else streamed to a file up to the
  // larger of the image and file limits (the type is known only from the
  // bytes), or the video limit with a video/* Content-Type. A streamed body
  // holds its length against the UploadBudget until it is answered.
  net::HeadDecision admit_upload(const net::HttpRequest& head);
  // Bodies up to this are buffered in memory; larger ones go to disk as they arrive.
  static constexpr uint64_t kBufferedUploadBytes = 256 << 10;

 private:
  // Steps 1–17 of docs/reference/media.md §2.2 (and 18 given the body's hash): the refusal,
  // or nullopt with *who set to the signer.
  std::optional<net::HttpResponse> authorize_upload(const net::HttpRequest& req, uint64_t max_age,
                                                    std::string_view body_sha256, engine::Pubkey* who);
  engine::Result<std::vector<std::string>> upload_scopes(std::string_view token, const engine::Pubkey& signer) const;
  net::HttpResponse upload(const net::HttpRequest& req);
  // An image or any other file, its body in memory.
  net::HttpResponse upload_file(const net::HttpRequest& req, const std::string& body);
  // The video path (§3.3): the body is the spooled file.
  net::HttpResponse upload_video(const net::HttpRequest& req);
  // What storing a new blob gives: its sidecar (not yet written), or the refusal.
  using StoredOrRefused = std::variant<engine::MediaMeta, net::HttpResponse>;
  // §5.3 from the body's hash on: the second authorization, then the
  // idempotent answer from an existing sidecar or `store` (the blob and
  // thumbnail) and the sidecar; then the audit entry and the descriptor.
  net::HttpResponse commit_upload(const net::HttpRequest& req, const std::string& sha, uint64_t size,
                                  const std::function<StoredOrRefused()>& store);
  net::HttpResponse serve(const net::HttpRequest& req, std::string_view name);
  // §6.5: whether this request for a blob of `channel` proves a key that may
  // read the channel now; nullopt, or the refusal (401 without a proof that
  // holds, the 404 of a missing blob without the right).
  std::optional<net::HttpResponse> authorize_read(const net::HttpRequest& req, std::string_view sha,
                                                  std::string_view channel);
  // Every authentication failure of the area answers this one 401 (§7).
  static constexpr std::string_view kAuthFailed = "authentication failed";

  struct Upload {
    net::HttpRequest req;
    Later later;
  };
  static constexpr size_t kMaxQueuedUploads = 8;
  void work();

  const Options options_;
  engine::MediaStore& blobs_;
  const engine::TeamState& team_;
  engine::ApiTokens& tokens_;
  Gatekeeper& gatekeeper_;
  KeyProver& prover_;
  Throttle& throttle_;
  StoreWriter& writer_;
  RelayStats& stats_;
  UploadBudget budget_;

  std::mutex mu_;  // guards the queue and stopping_
  std::condition_variable cv_;
  std::deque<Upload> uploads_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace buzz::server

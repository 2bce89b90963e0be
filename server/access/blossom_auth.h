// Blossom authorization (BUD-02/BUD-11, docs/reference/media.md §2.2): the
// `Authorization: Nostr <base64 kind-24242 event>` header of PUT /media/upload,
// checked against the X-SHA-256 header and, once the body is read, its hash;
// and of a GET of a channel's blob (§6.5), naming that blob.
//
// The checks run in the spec's order and the first failure is returned as an
// internal reason for the log; the client only ever sees the generic 401
// (§7), so the answer cannot be used as an oracle. Scope, a ban and relay membership
// (steps 15–17) are the caller's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/hex.h"
#include "engine/kind_numbers.h"
#include "engine/result.h"

namespace buzz::server {

// created_at may lie this far in the future (clock skew).
inline constexpr int64_t kBlossomFutureSkewSecs = 5;
// How old the auth event may be: before the body is read, and after it for an
// image (the re-check; video would keep an hour).
inline constexpr uint64_t kBlossomMaxAgeBeforeBody = 3600;
inline constexpr uint64_t kBlossomMaxAgeImage = 600;
inline constexpr uint64_t kBlossomMaxAgeVideo = 3600;  // the window after a video body (docs/reference/media.md §2.2)

struct BlossomUpload {
  std::string_view authorization;    // the Authorization header; "" if absent
  std::string_view declared_sha256;  // the X-SHA-256 header; "" if absent
  std::string_view body_sha256;      // hex SHA-256 of the body once it is read; "" before
};

// The server authority `server` tags must name (§2.2 step 11):
// BUZZ_MEDIA_SERVER_DOMAIN if set, else RELAY_URL's host, with its port unless
// it is the scheme's default ("ws://localhost:3000" → "localhost:3000").
std::string blossom_server_authority(std::string_view media_server_domain, std::string_view relay_url);

// Steps 1–14 (and 17 when body_sha256 is set): the signer's pubkey, or the
// internal reason for refusing. An empty server_authority refuses every
// `server` tag (fail closed).
engine::Result<engine::Pubkey> verify_blossom_upload(const BlossomUpload& upload, std::string_view server_authority,
                                                     uint64_t now, uint64_t max_age_secs);

// A BUD-01 `get` authorization of a channel's blob (docs/reference/media.md
// §6.5): steps 1–11 with the verb `get` and the hour-long window, and an `x`
// tag naming the blob, so it is good for that blob alone until it expires.
engine::Result<engine::Pubkey> verify_blossom_get(std::string_view authorization, std::string_view sha256,
                                                  std::string_view server_authority, uint64_t now);

}  // namespace buzz::server

// NIP-92 `imeta` tags on events (docs/reference/media.md §8): each one must describe a blob
// this relay stores, exactly as stored. The structural rules (§8.1) need only
// the tag; the cross-checks (§8.2) read the blob's sidecar and look for its
// objects. Every refusal is the spec's text, which the caller prefixes with
// "invalid: ".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/event.h"
#include "engine/media_store.h"

namespace buzz::engine {

class ImetaChecker {
 public:
  // `media_base_url`: BUZZ_MEDIA_BASE_URL, the other prefix (beside /media/)
  // a local media URL may have.
  ImetaChecker(const MediaStore& store, std::string media_base_url)
      : store_(store), base_url_(std::move(media_base_url)) {}

  // The first refusal among the event's imeta tags, or nullopt. Reads the
  // store only for tags that pass §8.1. Any thread.
  std::optional<std::string> check(const Event& e) const;

  static bool has_imeta(const Event& e);

 private:
  std::optional<std::string> check_tag(const Tag& tag) const;

  const MediaStore& store_;
  const std::string base_url_;
};

}  // namespace buzz::engine

// Kind 40008, a code diff posted to a channel (§B.4): its tags, the
// truncation of a diff longer than 60 KiB at a hunk boundary, and the
// language guessed from the file's extension.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/event.h"

namespace buzz::cli {

struct DiffMessage {
  std::string channel, diff, repo, commit;
  std::optional<std::string> file, parent_commit, source_branch, target_branch, lang, description, reply_to;
  std::optional<uint64_t> pr;
};

// Checks the repo URL, the commit SHAs and the PR number (user_error), then builds the event.
engine::Event diff_event(DiffMessage d);

// A diff cut to fit 61,440 bytes with the truncation notice, or nullopt if it fits.
std::optional<std::string> truncated_diff(const std::string& diff);

// "rust", "cpp", ... for a path's extension; nullopt when unknown.
std::optional<std::string> language_of(const std::string& path);

}  // namespace buzz::cli

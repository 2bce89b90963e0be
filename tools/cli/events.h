// The events the CLI signs, with the tag layouts of docs/reference/agents-and-cli.md §B.4.
// Each maker returns the unsigned event (kind, content, tags in order);
// Session::post_event stamps, signs and sends it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/event.h"

namespace buzz::cli {

// An event of one channel: ["h",channel] first, then the extra tags.
engine::Event channel_event(uint16_t kind, const std::string& channel, std::vector<engine::Tag> extra = {},
                            std::string content = "");

// Kind 9: h, the reply e tag, one p per mention (lowercased, deduplicated,
// at most 50), then ["broadcast","1"].
engine::Event message_event(const std::string& channel, std::string content, const std::optional<std::string>& reply_to,
                            const std::vector<std::string>& mentions, bool broadcast);

// The reply e tags of a message or diff: the CLI passes the reply target as
// both root and parent, so one ["e",parent,"","reply"], and the relay
// resolves the real root.
void append_reply_tags(std::vector<engine::Tag>& tags, const std::string& root, const std::string& parent);

// Kind 9007 with a fresh channel UUID in its h tag.
engine::Event create_channel_event(const std::string& name, const std::string& type, const std::string& visibility,
                                   const std::optional<std::string>& about);

}  // namespace buzz::cli

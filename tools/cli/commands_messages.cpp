// Messages, threads, search, edits, votes and reactions (§B.2).
#include "engine/canonical.h"
#include "engine/event_parse.h"
#include "engine/kind_numbers.h"
#include "tools/cli/cli_error.h"
#include "tools/cli/command.h"
#include "tools/cli/diff_message.h"
#include "tools/cli/events.h"
#include "tools/cli/json_read.h"
#include "tools/cli/session.h"
#include "tools/cli/validate.h"

namespace buzz::cli {
namespace {

std::optional<std::string> optional_hex64(const Args& a, const char* flag) {
  if (auto v = a.get(flag)) return checked_hex64(*v);
  return std::nullopt;
}

// The channel an event belongs to: its h tag, read with GET /api/events/{id}.
std::string channel_of(Session& s, const std::string& event) {
  const std::string body = s.request("GET", "/api/events/" + event);
  auto parsed = engine::parse_event_json(body);
  if (!parsed) throw CliError(Category::kOther, "the relay's event " + event + " did not parse: " + parsed.error());
  std::string_view h = parsed->first_tag_value("h");
  if (h.empty()) throw CliError(Category::kUser, "event " + event + " has no channel (h) tag");
  return std::string(h);
}

std::string send_message(Session& s, const Args& a) {
  const std::string channel = checked_uuid(a.value("channel"));
  const std::string& content = a.value("content");
  check_content_size(content);
  auto reply_to = optional_hex64(a, "reply-to");
  std::vector<std::string> mentions;
  for (const std::string& m : a.all("mention")) mentions.push_back(checked_hex64(m));
  return s.post_event(message_event(channel, content, reply_to, mentions, a.has("broadcast")));
}

std::string send_diff_message(Session& s, const Args& a) {
  DiffMessage d;
  d.channel = checked_uuid(a.value("channel"));
  d.repo = a.value("repo");
  d.commit = a.value("commit");
  d.file = a.get("file");
  d.parent_commit = a.get("parent-commit");
  d.source_branch = a.get("source-branch");
  d.target_branch = a.get("target-branch");
  d.lang = a.get("lang");
  d.description = a.get("description");
  d.reply_to = optional_hex64(a, "reply-to");
  if (auto pr = a.get("pr")) d.pr = checked_number("pr", *pr);
  d.diff = a.text("diff");
  return s.post_event(diff_event(std::move(d)));
}

std::string delete_message(Session& s, const Args& a) {
  const std::string event = checked_hex64(a.value("event"));
  s.key();  // a write: fail before the lookup when there is no key
  return s.post_event(channel_event(kind::kDeleteEvent, channel_of(s, event), {{"e", event}}));
}

std::string edit_message(Session& s, const Args& a) {
  const std::string event = checked_hex64(a.value("event"));
  const std::string& content = a.value("content");
  check_content_size(content);
  s.key();
  return s.post_event(channel_event(kind::kMessageEdit, channel_of(s, event), {{"e", event}}, content));
}

std::string vote_on_post(Session& s, const Args& a) {
  const std::string event = checked_hex64(a.value("event"));
  const std::string& direction = a.value("direction");
  if (direction != "up" && direction != "down") {
    throw CliError(Category::kUser, "--direction must be 'up' or 'down' (got: " + direction + ")");
  }
  s.key();
  return s.post_event(
      channel_event(kind::kForumVote, channel_of(s, event), {{"e", event}}, direction == "up" ? "+" : "-"));
}

std::string get_messages(Session& s, const Args& a) {
  const std::string channel = checked_uuid(a.value("channel"));
  std::optional<std::string> before, since;
  if (auto v = a.get("before")) before = std::to_string(checked_number("before", *v));
  if (auto v = a.get("since")) since = std::to_string(checked_number("since", *v));
  const std::string limit = std::to_string(clamped_limit("limit", a.get("limit"), 50, 200));
  return s.request("GET", "/api/channels/" + channel + "/messages" +
                              query_string({{"limit", limit}, {"before", before}, {"since", since}, {"kinds", a.get("kinds")}}));
}

std::string get_thread(Session& s, const Args& a) {
  const std::string channel = checked_uuid(a.value("channel"));
  const std::string event = checked_hex64(a.value("event"));
  std::optional<std::string> depth;
  if (auto v = a.get("depth-limit")) depth = std::to_string(checked_number("depth-limit", *v));
  const std::string limit = std::to_string(clamped_limit("limit", a.get("limit"), 100, 500));
  return s.request("GET", "/api/channels/" + channel + "/threads/" + event +
                              query_string({{"limit", limit}, {"depth_limit", depth}, {"cursor", a.get("cursor")}}));
}

std::string search(Session& s, const Args& a) {
  const std::string limit = std::to_string(clamped_limit("limit", a.get("limit"), 20, 100));
  return s.request("GET", "/api/search" + query_string({{"q", a.value("query")}, {"limit", limit}}));
}

std::string add_reaction(Session& s, const Args& a) {
  const std::string event = checked_hex64(a.value("event"));
  const std::string& emoji = a.value("emoji");
  size_t chars = 0;
  for (char c : emoji) chars += (uint8_t(c) & 0xC0) != 0x80;
  if (chars > 64) throw CliError(Category::kUser, "emoji exceeds 64 characters (" + std::to_string(chars) + ")");
  engine::Event e;
  e.kind = kind::kReaction;
  e.content = emoji;
  e.tags = {{"e", event}};
  return s.post_event(std::move(e));
}

std::string remove_reaction(Session& s, const Args& a) {
  const std::string event = checked_hex64(a.value("event"));
  const std::string& emoji = a.value("emoji");
  const std::string me = engine::to_hex(s.key().pubkey);
  for (const ReactionRow& r : reaction_rows(s.request("GET", "/api/messages/" + event + "/reactions"))) {
    if (r.emoji == emoji && r.pubkey == me) {
      engine::Event e;
      e.kind = kind::kDeletion;
      e.tags = {{"e", r.reaction_event_id}};
      return s.post_event(std::move(e));
    }
  }
  throw CliError(Category::kUser, "no reaction with emoji '" + emoji + "' found for your pubkey on event " + event);
}

std::string get_reactions(Session& s, const Args& a) {
  return s.request("GET", "/api/messages/" + checked_hex64(a.value("event")) + "/reactions");
}

}  // namespace

std::vector<Command> message_commands() {
  using F = Flag;
  return {
      {"send-message", "Send a message to a channel (kind 9)",
       {{"channel", F::kValue, true, "channel UUID"},
        {"content", F::kValue, true, "message text (at most 65,536 bytes)"},
        {"kind", F::kValue, false, "accepted for compatibility, ignored"},
        {"reply-to", F::kValue, false, "event id (64 hex) to reply to"},
        {"broadcast", F::kSwitch, false, "a reply that also shows in the channel"},
        {"mention", F::kRepeated, false, "pubkey (64 hex) to mention"}},
       send_message},
      {"send-diff-message", "Send a code diff to a channel (kind 40008)",
       {{"channel", F::kValue, true, "channel UUID"},
        {"diff", F::kValue, true, "unified diff text, or - for stdin"},
        {"repo", F::kValue, true, "repository URL (http:// or https://)"},
        {"commit", F::kValue, true, "commit SHA (at least 7 hex)"},
        {"file", F::kValue, false, "file path (also sets the language)"},
        {"parent-commit", F::kValue, false, "parent commit SHA"},
        {"source-branch", F::kValue, false, "source branch (with --target-branch)"},
        {"target-branch", F::kValue, false, "target branch (with --source-branch)"},
        {"pr", F::kValue, false, "pull request number"},
        {"lang", F::kValue, false, "language (default: from the file extension)"},
        {"description", F::kValue, false, "what the diff does"},
        {"reply-to", F::kValue, false, "event id (64 hex) to reply to"}},
       send_diff_message},
      {"delete-message", "Delete a message (kind 9005)", {{"event", F::kValue, true, "event id (64 hex)"}}, delete_message},
      {"get-messages", "Read a channel's messages",
       {{"channel", F::kValue, true, "channel UUID"},
        {"limit", F::kValue, false, "rows (default 50, max 200)"},
        {"before", F::kValue, false, "only before this unix time"},
        {"since", F::kValue, false, "only after this unix time"},
        {"kinds", F::kValue, false, "comma-separated kinds, e.g. 9,40008"}},
       get_messages},
      {"get-thread", "Read a thread's replies",
       {{"channel", F::kValue, true, "channel UUID"},
        {"event", F::kValue, true, "root event id (64 hex)"},
        {"depth-limit", F::kValue, false, "only replies this deep or less"},
        {"limit", F::kValue, false, "rows (default 100, max 500)"},
        {"cursor", F::kValue, false, "the next_cursor of the previous page"}},
       get_thread},
      {"search", "Full-text search over the messages you can read",
       {{"query", F::kValue, true, "search text"}, {"limit", F::kValue, false, "hits (default 20, max 100)"}}, search},
      {"edit-message", "Edit one of your messages (kind 40003)",
       {{"event", F::kValue, true, "event id (64 hex)"}, {"content", F::kValue, true, "the new text"}}, edit_message},
      {"vote-on-post", "Vote on a forum post (kind 45002)",
       {{"event", F::kValue, true, "event id (64 hex)"}, {"direction", F::kValue, true, "up or down"}}, vote_on_post},
      {"add-reaction", "React to a message (kind 7)",
       {{"event", F::kValue, true, "event id (64 hex)"}, {"emoji", F::kValue, true, "the reaction (at most 64 characters)"}},
       add_reaction},
      {"remove-reaction", "Remove your reaction (kind 5)",
       {{"event", F::kValue, true, "event id (64 hex)"}, {"emoji", F::kValue, true, "the reaction to remove"}},
       remove_reaction},
      {"get-reactions", "List a message's reactions", {{"event", F::kValue, true, "event id (64 hex)"}}, get_reactions},
  };
}

}  // namespace buzz::cli

// Channels: listing, metadata, membership and the canvas (§B.2). Every change
// is a signed event (§B.4); reads are REST.
#include "engine/kind_numbers.h"
#include "tools/cli/cli_error.h"
#include "tools/cli/command.h"
#include "tools/cli/events.h"
#include "tools/cli/session.h"
#include "tools/cli/validate.h"

namespace buzz::cli {
namespace {

std::string channel_of(const Args& a) { return checked_uuid(a.value("channel")); }

std::string list_channels(Session& s, const Args& a) {
  std::optional<std::string> visibility;
  if (auto v = a.get("visibility")) visibility = checked_choice("visibility", *v, {"open", "private"});
  return s.request("GET", "/api/channels" + query_string({{"visibility", visibility},
                                                          {"member", a.has("member") ? "true" : "false"}}));
}

std::string get_channel(Session& s, const Args& a) { return s.request("GET", "/api/channels/" + channel_of(a)); }

std::string list_channel_members(Session& s, const Args& a) {
  return s.request("GET", "/api/channels/" + channel_of(a) + "/members");
}

std::string get_canvas(Session& s, const Args& a) { return s.request("GET", "/api/channels/" + channel_of(a) + "/canvas"); }

std::string create_channel(Session& s, const Args& a) {
  const std::string type = checked_choice("type", a.value("type"), {"stream", "forum"});
  const std::string visibility = checked_choice("visibility", a.value("visibility"), {"open", "private"});
  return s.post_event(create_channel_event(a.value("name"), type, visibility, a.get("description")));
}

std::string update_channel(Session& s, const Args& a) {
  const std::string channel = channel_of(a);
  std::vector<engine::Tag> tags;
  if (auto name = a.get("name")) tags.push_back({"name", *name});
  if (auto about = a.get("description")) tags.push_back({"about", *about});
  if (tags.empty()) throw CliError(Category::kUser, "at least one of --name or --description must be provided");
  return s.post_event(channel_event(kind::kEditMetadata, channel, std::move(tags)));
}

std::string set_topic(Session& s, const Args& a) {
  return s.post_event(channel_event(kind::kEditMetadata, channel_of(a), {{"topic", a.value("topic")}}));
}

std::string set_purpose(Session& s, const Args& a) {
  return s.post_event(channel_event(kind::kEditMetadata, channel_of(a), {{"purpose", a.value("purpose")}}));
}

std::string archive(Session& s, const Args& a) {
  return s.post_event(channel_event(kind::kEditMetadata, channel_of(a), {{"archived", "true"}}));
}
std::string unarchive(Session& s, const Args& a) {
  return s.post_event(channel_event(kind::kEditMetadata, channel_of(a), {{"archived", "false"}}));
}
std::string join(Session& s, const Args& a) { return s.post_event(channel_event(kind::kJoinRequest, channel_of(a))); }
std::string leave(Session& s, const Args& a) { return s.post_event(channel_event(kind::kLeaveRequest, channel_of(a))); }
std::string delete_channel(Session& s, const Args& a) {
  return s.post_event(channel_event(kind::kDeleteGroup, channel_of(a)));
}

std::string add_member(Session& s, const Args& a) {
  const std::string channel = channel_of(a);
  std::vector<engine::Tag> tags = {{"p", checked_hex64(a.value("pubkey"))}};
  if (auto role = a.get("role")) tags.push_back({"role", checked_choice("role", *role, {"owner", "admin", "member", "guest", "bot"})});
  return s.post_event(channel_event(kind::kPutUser, channel, std::move(tags)));
}

std::string remove_member(Session& s, const Args& a) {
  const std::string channel = channel_of(a);
  return s.post_event(channel_event(kind::kRemoveUser, channel, {{"p", checked_hex64(a.value("pubkey"))}}));
}

std::string set_canvas(Session& s, const Args& a) {
  const std::string channel = channel_of(a);
  return s.post_event(channel_event(kind::kCanvas, channel, {}, a.text("content")));
}

}  // namespace

std::vector<Command> channel_commands() {
  using F = Flag;
  const Flag channel = {"channel", F::kValue, true, "channel UUID"};
  return {
      {"list-channels", "List channels",
       {{"visibility", F::kValue, false, "open or private"}, {"member", F::kSwitch, false, "only channels you are in"}},
       list_channels},
      {"get-channel", "Show one channel", {channel}, get_channel},
      {"create-channel", "Create a channel (kind 9007, a new UUID)",
       {{"name", F::kValue, true, "channel name"},
        {"type", F::kValue, true, "stream or forum"},
        {"visibility", F::kValue, true, "open or private"},
        {"description", F::kValue, false, "what the channel is for"}},
       create_channel},
      {"update-channel", "Rename a channel or change its description (kind 9002)",
       {channel, {"name", F::kValue, false, "new name"}, {"description", F::kValue, false, "new description"}},
       update_channel},
      {"set-channel-topic", "Set a channel's topic (kind 9002)", {channel, {"topic", F::kValue, true, "the topic"}}, set_topic},
      {"set-channel-purpose", "Set a channel's purpose (kind 9002)", {channel, {"purpose", F::kValue, true, "the purpose"}},
       set_purpose},
      {"join-channel", "Join an open channel (kind 9021)", {channel}, join},
      {"leave-channel", "Leave a channel (kind 9022)", {channel}, leave},
      {"archive-channel", "Archive a channel (kind 9002)", {channel}, archive},
      {"unarchive-channel", "Unarchive a channel (kind 9002)", {channel}, unarchive},
      {"delete-channel", "Delete a channel (kind 9008)", {channel}, delete_channel},
      {"list-channel-members", "List a channel's members", {channel}, list_channel_members},
      {"add-channel-member", "Add a member to a channel (kind 9000)",
       {channel, {"pubkey", F::kValue, true, "member pubkey (64 hex)"},
        {"role", F::kValue, false, "owner, admin, member, guest or bot"}},
       add_member},
      {"remove-channel-member", "Remove a member from a channel (kind 9001)",
       {channel, {"pubkey", F::kValue, true, "member pubkey (64 hex)"}}, remove_member},
      {"get-canvas", "Read a channel's canvas", {channel}, get_canvas},
      {"set-canvas", "Replace a channel's canvas (kind 40100)",
       {channel, {"content", F::kValue, true, "markdown, or - for stdin"}}, set_canvas},
  };
}

}  // namespace buzz::cli

// The prompt text; see prompt_text.h.
#include "tools/acp/prompt_text.h"

#include <ctime>

#include "engine/canonical.h"
#include "engine/nip19.h"

namespace buzz::acp {
namespace {

std::string channel_line(const ChannelInfo& c) {
  return c.name.empty() ? c.id : c.name + " (#" + c.id + ")";
}

const std::string* label_of(const PromptInput& in, const std::string& hex) {
  auto it = in.labels.find(hex);
  return it == in.labels.end() || it->second.empty() ? nullptr : &it->second;
}

std::string event_block(const PromptInput& in, const engine::Event& e) {
  const std::string hex = e.pubkey_hex();
  const std::string npub = engine::encode_npub(e.pubkey);
  std::string out = "Event ID: " + e.id_hex() + "\nChannel: " + channel_line(in.channel) +
                    "\nKind: " + std::to_string(e.kind) + "\nFrom: ";
  if (const std::string* label = label_of(in, hex)) {
    out += *label + " (npub: " + npub + ", hex: " + hex + ")";
  } else {
    out += npub + " (hex: " + hex + ")";
  }
  out += "\nTime: " + rfc3339(e.created_at) + "\nContent: " + e.content + "\nTags: ";
  engine::append_json_tags(out, e.tags);
  std::vector<std::string> parsed;
  const ThreadRef ref = thread_ref(e);
  if (ref.parent) parsed.push_back("parent=" + *ref.parent);
  if (ref.root) parsed.push_back("root=" + *ref.root);
  std::string mentions;
  for (const engine::Tag& t : e.tags) {
    if (t.size() < 2 || t[0] != "p") continue;
    if (!mentions.empty()) mentions += ", ";
    const std::string* label = label_of(in, t[1]);
    mentions += label ? *label + " (" + t[1] + ")" : t[1];
  }
  if (!mentions.empty()) parsed.push_back("mentions=[" + mentions + "]");
  if (!parsed.empty()) {
    out += "\nParsed: ";
    for (size_t i = 0; i < parsed.size(); ++i) out += (i ? ", " : "") + parsed[i];
  }
  return out;
}

// "--- Event i (tag) ---" sections, each after a blank line.
std::string numbered(const PromptInput& in, const std::vector<TaggedEvent>& events) {
  std::string out;
  for (size_t i = 0; i < events.size(); ++i) {
    out += "\n\n--- Event " + std::to_string(i + 1) + " (" + events[i].tag + ") ---\n" + event_block(in, events[i].event);
  }
  return out;
}

std::string context_section(const PromptInput& in) {
  const engine::Event& last = in.events.back().event;
  const ThreadRef ref = thread_ref(last);
  const bool dm = in.channel.type == "dm";
  std::string out = "[Context]\nScope: ";
  out += dm ? "dm" : ref.root ? "thread" : "channel";
  out += "\nChannel: " + channel_line(in.channel);
  if (ref.root) {
    out += "\nThread root: " + *ref.root;
    if (ref.parent && *ref.parent != *ref.root) out += "\nParent: " + *ref.parent;
  }
  if (in.context) {
    out += in.context->thread ? "\nHint: Thread context included below." : "\nHint: Conversation context included below.";
  } else if (ref.root) {
    out += "\nHint: Use get_thread() to read the whole thread if needed.";
  } else {
    out += "\nHint: Use get_channel_history() for recent messages if needed.";
  }
  return out;
}

std::string context_block(const PromptInput& in) {
  const ContextBlock& c = *in.context;
  std::string out = c.thread ? "[Thread Context (" : "[Conversation Context (";
  out += std::to_string(c.messages.size()) + " of " + std::to_string(c.total) + " messages" +
         (c.truncated ? ", truncated" : "") + ")]";
  for (size_t i = 0; i < c.messages.size(); ++i) {
    const ContextMessage& m = c.messages[i];
    const std::string* label = label_of(in, m.pubkey);
    out += "\n[" + std::to_string(i + 1) + "] " + (label ? *label : m.pubkey) + " (" + m.pubkey + ") (" +
           rfc3339(m.created_at) + "): " + m.content;
  }
  return out;
}

}  // namespace

ThreadRef thread_ref(const engine::Event& e) {
  ThreadRef ref;
  for (const engine::Tag& t : e.tags) {
    if (t.size() < 4 || t[0] != "e") continue;
    if (t[3] == "root" && !ref.root) ref.root = t[1];
    if (t[3] == "reply" && !ref.parent) ref.parent = t[1];
  }
  if (ref.root && !ref.parent) ref.parent = ref.root;
  if (ref.parent && !ref.root) ref.root = ref.parent;
  return ref;
}

std::string sanitize_label(std::string_view name) {
  std::string kept;
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) continue;
    kept += char(c);
  }
  const size_t first = kept.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  kept = kept.substr(first, kept.find_last_not_of(" \t") - first + 1);
  size_t chars = 0, at = 0;
  for (; at < kept.size(); ++at) {
    if ((uint8_t(kept[at]) & 0xC0) != 0x80 && ++chars > 64) break;  // a code point starts here
  }
  kept.resize(at);
  return kept;
}

std::string rfc3339(uint64_t unix_seconds) {
  const time_t t = time_t(unix_seconds);
  tm utc{};
  gmtime_r(&t, &utc);
  char text[40];
  strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S+00:00", &utc);
  return text;
}

std::string build_prompt(const PromptInput& in) {
  std::vector<std::string> sections;
  if (in.system_prompt) sections.push_back("[System]\n" + *in.system_prompt);
  sections.push_back(context_section(in));
  if (in.context) sections.push_back(context_block(in));
  const size_t n = in.events.size();
  if (!in.cancelled.empty()) {
    sections.push_back("[Previous request — interrupted before completion]" + numbered(in, in.cancelled));
    sections.push_back(n == 1 ? "[New request — supersedes previous]\n" + event_block(in, in.events[0].event)
                              : "[New request — supersedes previous — " + std::to_string(n) + " events]" +
                                    numbered(in, in.events));
    sections.push_back("Address the new request. The previous one was interrupted; finish it only if the new "
                       "request asks for it.");
  } else if (n == 1) {
    sections.push_back("[Buzz event: " + in.events[0].tag + "]\n" + event_block(in, in.events[0].event));
  } else {
    sections.push_back("[Buzz events — " + std::to_string(n) + " events]" + numbered(in, in.events));
  }
  std::string out;
  for (const std::string& s : sections) out += (out.empty() ? "" : "\n\n") + s;
  return out;
}

std::string heartbeat_prompt(uint64_t now) {
  return "[System: Heartbeat]\nTime: " + rfc3339(now) +
         "\n\nNo new messages have arrived for you. This is a periodic check-in.\n"
         "1. Check your feed (get_feed) for items that need action from you, such as workflow approvals, and act "
         "on them.\n"
         "2. Then look for mentions of you that nobody has answered yet, and answer them.\n"
         "If there is nothing to do, end the turn at once: do not invent work and do not list channels.";
}

}  // namespace buzz::acp

// AgentSlot; see agent_slot.h.
#include "tools/acp/agent_slot.h"

#include <signal.h>
#include <simdjson.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdio>

#include "engine/clock.h"
#include "engine/json_text.h"
#include "tools/acp/rest_client.h"
#include "tools/cli/cli_error.h"

namespace buzz::acp {
namespace {

constexpr auto kRequestTimeout = std::chrono::seconds(60);
constexpr auto kConfigTimeout = std::chrono::seconds(5);

void log(int slot, const std::string& text) { std::fprintf(stderr, "buzz acp: agent %d: %s\n", slot, text.c_str()); }

}  // namespace

AgentSlot::AgentSlot(int index, const SlotSettings& settings, Done done)
    : index_(index), settings_(settings), done_(std::move(done)) {
  cancel_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  process_.set_liveness(settings_.turn_liveness);
  thread_ = std::thread([this] { loop(); });
}

AgentSlot::~AgentSlot() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  cancel();
  if (const pid_t pid = running_pid_.load(); pid > 0) kill(-pid, SIGKILL);  // EOF ends a running turn at once
  thread_.join();
  process_.stop();
  close(cancel_fd_);
}

void AgentSlot::run(SlotJob job) {
  {
    std::lock_guard lock(mu_);
    job_ = std::move(job);
  }
  cv_.notify_all();
}

void AgentSlot::cancel() {
  const uint64_t one = 1;
  (void)!write(cancel_fd_, &one, sizeof one);
}

void AgentSlot::loop() {
  for (;;) {
    SlotJob job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || job_.has_value(); });
      if (stopping_) return;
      job = std::move(*job_);
      job_.reset();
    }
    uint64_t stale;
    while (read(cancel_fd_, &stale, sizeof stale) > 0) {}  // a cancel meant for an earlier turn
    SlotReport report;
    switch (job.kind) {
      case SlotJob::Kind::kSpawn: report = spawn(job); break;
      case SlotJob::Kind::kTurn: report = turn(job); break;
      case SlotJob::Kind::kHeartbeat: report = heartbeat(job); break;
    }
    if (job.kind != SlotJob::Kind::kSpawn && needs_respawn(report.ending)) {
      log(index_, std::string(ending_name(report.ending)) + (report.detail.empty() ? "" : ": " + report.detail) +
                      "; stopping the agent");
      running_pid_ = -1;
      process_.stop();
      sessions_.clear();
    }
    for (const auto& [key, s] : sessions_) {
      if (!key.empty()) report.session_channels.insert(key);
    }
    report.kind = job.kind;
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
    }
    done_(index_, std::move(report));
  }
}

SlotReport AgentSlot::spawn(const SlotJob& job) {
  SlotReport r;
  if (job.delay.count() > 0) {
    std::unique_lock lock(mu_);
    if (cv_.wait_for(lock, job.delay, [&] { return stopping_; })) return r;
  }
  running_pid_ = -1;
  process_.stop();
  sessions_.clear();
  std::string error;
  if (!process_.start(settings_.agent_command, settings_.agent_args, &error)) {
    r.detail = error;
    return r;
  }
  running_pid_ = process_.pid();
  const Answer a = acp_.initialize(kRequestTimeout);
  if (a.ending != Ending::kOk) {
    r.detail = std::string("initialize: ") + ending_name(a.ending) + (a.detail.empty() ? "" : ": " + a.detail);
    running_pid_ = -1;
    process_.stop();
    return r;
  }
  r.started = true;
  return r;
}

Ending AgentSlot::ensure_session(const std::string& key, Session** out, std::string* detail) {
  if (auto it = sessions_.find(key); it != sessions_.end()) {
    *out = &it->second;
    return Ending::kOk;
  }
  const Answer a = acp_.new_session(settings_.cwd, settings_.mcp_servers_json, kRequestTimeout);
  if (a.ending != Ending::kOk) {
    *detail = "session/new: " + a.detail;
    return a.ending;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element result;
  std::string_view id;
  if (parser.parse(a.result).get(result) || result["sessionId"].get(id)) {
    *detail = "session/new response missing sessionId";
    return Ending::kTransport;
  }
  const std::string sid(id);
  // The model (§A.6.2): a config option of category "model" offering it, else
  // session/set_model when it is among the models, else the agent's default.
  if (settings_.model) {
    const std::string& want = *settings_.model;
    std::string config_id;
    simdjson::dom::array options, models;
    if (!result["configOptions"].get(options)) {
      for (simdjson::dom::element o : options) {
        std::string_view category, cid;
        simdjson::dom::array values;
        if (o["category"].get(category) || category != "model" || o["id"].get(cid) || o["options"].get(values)) continue;
        for (simdjson::dom::element v : values) {
          std::string_view value;
          if (!v["value"].get(value) && value == want) config_id = std::string(cid);
        }
      }
    }
    bool listed = false;
    if (config_id.empty() && !result["models"]["availableModels"].get(models)) {
      for (simdjson::dom::element m : models) {
        std::string_view mid;
        if (!m["modelId"].get(mid) && mid == want) listed = true;
      }
    }
    Answer set;
    if (!config_id.empty()) {
      set =
          acp_.request("session/set_config_option",
                       JsonFields().string("sessionId", sid).string("configId", config_id).string("value", want).str(),
                       kConfigTimeout);
    } else if (listed) {
      set = acp_.request("session/set_model", JsonFields().string("sessionId", sid).string("modelId", want).str(),
                         kConfigTimeout);
    } else {
      log(index_, "model " + want + " is not offered by the agent; keeping its default");
    }
    if (needs_respawn(set.ending)) {
      *detail = "setting the model: " + set.detail;
      return set.ending;
    }
    if (set.ending != Ending::kOk) log(index_, "setting the model failed: " + std::string(ending_name(set.ending)));
  }
  // The permission mode, only when the agent lists it (some crash on unknown values).
  if (settings_.permission_mode != "default") {
    simdjson::dom::array modes;
    bool offered = false;
    if (!result["modes"]["availableModes"].get(modes)) {
      for (simdjson::dom::element m : modes) {
        std::string_view mid;
        if (!m["id"].get(mid) && mid == settings_.permission_mode) offered = true;
      }
    }
    if (offered) {
      const std::string params = JsonFields()
                                     .string("sessionId", sid)
                                     .string("configId", "mode")
                                     .string("value", settings_.permission_mode)
                                     .str();
      const Answer set = acp_.request("session/set_config_option", params, kConfigTimeout);
      if (needs_respawn(set.ending)) {
        *detail = "setting the permission mode: " + set.detail;
        return set.ending;
      }
    }
  }
  Session& s = sessions_[key];
  s.id = sid;
  *out = &s;
  if (settings_.initial_message && !key.empty()) {
    const Answer first = acp_.prompt(sid, *settings_.initial_message, settings_.idle_timeout,
                                     Clock::now() + settings_.max_turn, cancel_fd_);
    if (first.ending != Ending::kOk) {
      sessions_.erase(key);
      *detail = "initial message: " + first.detail;
      return first.ending;
    }
  }
  return Ending::kOk;
}

SlotReport AgentSlot::prompt_on(const std::string& key, const std::string& text) {
  SlotReport r;
  Session* s = nullptr;
  r.ending = ensure_session(key, &s, &r.detail);
  if (r.ending != Ending::kOk) return r;
  // A session's first prompt opens with the base prompt; the agent keeps it in
  // the session's history, so later turns need not repeat it.
  const std::string sent = s->turns == 0 && settings_.base_prompt ? "[Base]\n" + *settings_.base_prompt + "\n\n" + text : text;
  const Answer a = acp_.prompt(s->id, sent, settings_.idle_timeout, Clock::now() + settings_.max_turn, cancel_fd_);
  r.ending = a.ending;
  r.stop_reason = a.stop_reason;
  r.detail = a.detail;
  ++s->turns;
  const bool rotate = a.stop_reason == "max_tokens" || a.stop_reason == "max_turn_requests" ||
                      (settings_.max_turns_per_session > 0 && s->turns >= settings_.max_turns_per_session);
  if (a.ending == Ending::kCancelled || rotate || a.ending != Ending::kOk) sessions_.erase(key);
  return r;
}

PromptInput AgentSlot::gather(const SlotJob& job) {
  PromptInput in;
  in.system_prompt = settings_.system_prompt;
  in.channel = job.channel;
  in.events = job.events;
  in.cancelled = job.cancelled;
  try {
    if (!rest_) rest_ = std::make_unique<RestClient>(settings_.rest_url, settings_.token, settings_.private_key_hex);
    const engine::Event& last = job.events.back().event;
    const ThreadRef ref = thread_ref(last);
    if (settings_.context_message_limit > 0) {
      if (ref.root) in.context = rest_->thread_context(job.channel.id, *ref.root, settings_.context_message_limit);
      else if (job.channel.type == "dm") in.context = rest_->recent_context(job.channel.id, settings_.context_message_limit);
    }
    std::vector<std::string> keys;
    auto add = [&](const std::string& k) {
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    };
    for (const auto* list : {&job.cancelled, &job.events}) {
      for (const TaggedEvent& t : *list) {
        add(t.event.pubkey_hex());
        for (const engine::Tag& tag : t.event.tags) {
          if (tag.size() >= 2 && tag[0] == "p" && tag[1].size() == 64) add(tag[1]);
        }
      }
    }
    if (in.context) {
      for (const ContextMessage& m : in.context->messages) add(m.pubkey);
    }
    in.labels = rest_->labels(keys);
  } catch (const std::exception& e) {
    log(index_, std::string("prompt context unavailable: ") + e.what());  // the prompt goes without it
  }
  return in;
}

SlotReport AgentSlot::turn(const SlotJob& job) {
  for (const std::string& ch : job.drop_sessions) sessions_.erase(ch);
  if (!process_.running()) return {SlotJob::Kind::kTurn, false, Ending::kExited, "", "no agent process", {}};
  return prompt_on(job.channel.id, build_prompt(gather(job)));
}

SlotReport AgentSlot::heartbeat(const SlotJob& job) {
  for (const std::string& ch : job.drop_sessions) sessions_.erase(ch);
  if (!process_.running()) return {SlotJob::Kind::kHeartbeat, false, Ending::kExited, "", "no agent process", {}};
  return prompt_on("", job.heartbeat_text);
}

}  // namespace buzz::acp

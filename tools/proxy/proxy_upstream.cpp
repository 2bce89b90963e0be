// ProxyService, the relay side: the upstream AUTH with the API token, the
// subscriptions (history per client, live shared), the replay after a
// reconnect, and each upstream message routed to the sessions it is for
// (docs/reference/proxy.md §4, §6.3, §6.4).
#include <cstdio>

#include "engine/clock.h"
#include "engine/event_parse.h"
#include "tools/client/relay_auth.h"
#include "tools/proxy/proxy_messages.h"
#include "tools/proxy/proxy_service.h"
#include "tools/proxy/proxy_state.h"
#include "tools/proxy/relay_fetch.h"
#include "tools/proxy/upstream_link.h"

namespace buzz::proxy {

namespace {

constexpr const char* kMembersSub = "proxy:members";  // 44100/44101 naming the proxy: its channels changed
constexpr size_t kTranslatedCache = 4096;

}  // namespace

void ProxyService::to_upstream(std::string text) {
  if (upstream_authed_) return link_->send(std::move(text));
  if (text.starts_with("[\"EVENT\"") && upstream_queue_.size() < kUpstreamQueue) upstream_queue_.push_back(std::move(text));
  // A REQ is replayed from upstream_reqs_ after the AUTH; a CLOSE is moot then.
}

void ProxyService::send_upstream_req(const std::string& id, const std::string& filters_json) {
  std::string req = req_msg(id, filters_json);
  if (upstream_authed_) link_->send(req);
  upstream_reqs_[id] = std::move(req);
  stats_.upstream_subs = upstream_reqs_.size() + live_.size();
}

void ProxyService::upstream_open() {
  upstream_authed_ = false;
  upstream_auth_id_.clear();
}

void ProxyService::upstream_closed(const std::string& why) {
  const bool was_authed = upstream_authed_;
  upstream_authed_ = false;
  upstream_auth_id_.clear();
  if (!was_authed) {
    std::fprintf(stderr, "buzz proxy: upstream %s: %s\n", config_.upstream_url.c_str(), why.c_str());
    return;
  }
  std::fprintf(stderr, "buzz proxy: upstream connection lost (%s); reconnecting\n", why.c_str());
  disconnected_at_ = engine::unix_now();
  // What was sent and not answered never will be.
  for (const auto& [internal, p] : pending_ok_) {
    send(p.session, ok_msg(p.client_id, false, "error: upstream unavailable"));
    if (auto it = sessions_.find(p.session); it != sessions_.end() && it->second->pending) --it->second->pending;
  }
  pending_ok_.clear();
}

void ProxyService::on_upstream_auth(const std::string& challenge) {
  const engine::Event auth = client::auth_event(config_.server_key, config_.upstream_url, challenge, config_.api_token);
  upstream_auth_id_ = auth.id_hex();
  link_->send("[\"AUTH\"," + auth.raw + "]");
}

void ProxyService::upstream_messages(const std::vector<std::string>& messages) {
  for (const std::string& text : messages) {
    simdjson::dom::array msg;
    std::string_view verb;
    if (upstream_parser_.parse(text).get_array().get(msg) || msg.size() < 2 || msg.at(0).get_string().get(verb)) continue;
    std::string_view a, reason;
    if (verb == "EVENT") {
      simdjson::dom::element ev;
      if (msg.size() < 3 || msg.at(1).get_string().get(a) || msg.at(2).get(ev)) continue;
      on_upstream_event(std::string(a), ev, simdjson::minify(ev));
    } else if (verb == "EOSE") {
      if (!msg.at(1).get_string().get(a)) on_upstream_eose(std::string(a));
    } else if (verb == "CLOSED") {
      if (msg.at(1).get_string().get(a)) continue;
      if (msg.size() < 3 || msg.at(2).get_string().get(reason)) reason = "";
      on_upstream_closed(std::string(a), std::string(reason));
    } else if (verb == "OK") {
      bool accepted = false;
      if (msg.size() < 3 || msg.at(1).get_string().get(a) || msg.at(2).get_bool().get(accepted)) continue;
      if (msg.size() < 4 || msg.at(3).get_string().get(reason)) reason = "";
      on_upstream_ok(std::string(a), accepted, std::string(reason));
    } else if (verb == "AUTH") {
      if (!msg.at(1).get_string().get(a)) on_upstream_auth(std::string(a));
    } else if (verb == "NOTICE") {
      if (!msg.at(1).get_string().get(a)) std::fprintf(stderr, "buzz proxy: relay notice: %.*s\n", int(a.size()), a.data());
    }
    // COUNT and anything else is never forwarded.
  }
}

void ProxyService::on_upstream_ok(const std::string& id, bool accepted, const std::string& reason) {
  if (!upstream_auth_id_.empty() && id == upstream_auth_id_) {
    upstream_auth_id_.clear();
    if (!accepted) {
      std::fprintf(stderr, "buzz proxy: the relay refused the proxy's AUTH: %s\n", reason.c_str());
      return link_->drop();
    }
    upstream_authed_ = true;
    std::fprintf(stderr, "buzz proxy: connected to %s\n", config_.upstream_url.c_str());
    // Replay: the proxy's own follow, every open subscription, then what waited.
    link_->send(req_msg(kMembersSub, "{\"kinds\":[44100,44101],\"#p\":[\"" + server_pubkey_ + "\"],\"limit\":0}"));
    for (const auto& [sub_id, req] : upstream_reqs_) link_->send(req);
    for (auto& [key, live] : live_) {
      std::optional<uint64_t> catch_up;
      if (disconnected_at_) catch_up = disconnected_at_ - 1;  // what the members missed
      live->replaying = true;
      live->forward_history = catch_up.has_value();
      link_->send(req_msg(live->id, join_live(live->filters, catch_up)));
    }
    for (std::string& frame : upstream_queue_) link_->send(std::move(frame));
    upstream_queue_.clear();
    refresh_presence();  // the relay may have let the statuses lapse meanwhile
    return;
  }
  auto it = pending_ok_.find(id);
  if (it == pending_ok_.end()) return;
  const PendingOk p = it->second;
  pending_ok_.erase(it);
  if (auto s = sessions_.find(p.session); s != sessions_.end() && s->second->pending) --s->second->pending;
  send(p.session, ok_msg(p.client_id, accepted, reason));
}

std::optional<ProxyService::Translated> ProxyService::translate_out(const engine::Event& e, std::function<void()> retry) {
  const std::string internal = e.id_hex();
  if (auto it = translated_.find(internal); it != translated_.end()) return it->second;
  Translator::Outbound out = translator_.outbound(e);
  if (!out.missing.empty()) {
    if (!retry) return std::nullopt;
    // Fetch the targets; each fetched message fills the caches on its way through.
    auto left = std::make_shared<size_t>(out.missing.size());
    for (const std::string& id : out.missing) {
      fetch_->get("/api/events/" + id, [this, left, retry](FetchAnswer a) {
        loop_->post([this, left, retry, a = std::move(a)] {
          if (a.status == 200) {
            if (auto fetched = engine::parse_event_json(a.body)) (void)translator_.outbound(*fetched);
          }
          if (--*left == 0) retry();
        });
      });
    }
    return std::nullopt;
  }
  if (!out.event) return std::nullopt;
  if (translated_.size() >= kTranslatedCache) translated_.clear();
  Translated t{std::make_shared<const std::string>(std::move(out.event->raw)), out.channel};
  translated_.emplace(internal, t);
  return t;
}

void ProxyService::deliver(uint64_t session, const std::string& client_sub, const Translated& t) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  Session& s = *it->second;
  if (!s.allowed.count(t.channel) || !s.subs.count(client_sub)) return;
  net::Connection* c = loop_->find(s.conn);
  if (!c) return;
  std::string prefix = "[\"EVENT\",";
  engine::append_json_string(prefix, client_sub);
  prefix += ',';
  loop_->send_shared(*c, prefix, t.raw, "]");
  ++stats_.events_out;
}

void ProxyService::on_upstream_event(const std::string& sub, simdjson::dom::element ev, std::string_view raw) {
  if (sub == kMembersSub) return refresh_channels();
  auto parsed = engine::parse_event(ev, raw);
  if (!parsed) return;
  const engine::Event& e = *parsed;
  if (auto h = history_.find(sub); h != history_.end()) {
    const HistoryRoute route = h->second;
    auto retry = [this, route, e] {
      if (auto t = translate_out(e, nullptr)) deliver(route.session, route.client_sub, *t);
    };
    if (auto t = translate_out(e, retry)) deliver(route.session, route.client_sub, *t);
    return;
  }
  auto l = live_by_id_.find(sub);
  if (l == live_by_id_.end()) return;
  LiveSub* live = l->second;
  if (live->replaying && !live->forward_history) return;  // each member has its own history
  const std::string id = live->id;
  auto to_members = [this, id](const Translated& t) {
    auto now = live_by_id_.find(id);
    if (now == live_by_id_.end()) return;
    for (const auto& [session, client_sub] : now->second->members) deliver(session, client_sub, t);
  };
  auto retry = [this, e, to_members] {
    if (auto t = translate_out(e, nullptr)) to_members(*t);
  };
  if (auto t = translate_out(e, retry)) to_members(*t);
}

void ProxyService::on_upstream_eose(const std::string& sub) {
  if (auto l = live_by_id_.find(sub); l != live_by_id_.end()) {
    l->second->replaying = false;
    l->second->forward_history = false;
    return;
  }
  auto h = history_.find(sub);
  if (h == history_.end()) return;
  const HistoryRoute route = h->second;
  history_.erase(h);
  upstream_reqs_.erase(sub);
  to_upstream(close_msg(sub));  // live events come through the shared subscription
  auto s = sessions_.find(route.session);
  if (s == sessions_.end()) return;
  auto cs = s->second->subs.find(route.client_sub);
  if (cs == s->second->subs.end()) return;
  cs->second.history.erase(sub);
  if (cs->second.history.empty()) send(route.session, eose_msg(route.client_sub));
}

void ProxyService::on_upstream_closed(const std::string& sub, const std::string& reason) {
  if (reason.empty()) return;  // the answer to our CLOSE
  std::vector<std::pair<uint64_t, std::string>> ended;
  if (auto h = history_.find(sub); h != history_.end()) {
    ended.emplace_back(h->second.session, h->second.client_sub);
  } else if (auto l = live_by_id_.find(sub); l != live_by_id_.end()) {
    ended.assign(l->second->members.begin(), l->second->members.end());
  }
  for (const auto& [session, client_sub] : ended) {
    auto s = sessions_.find(session);
    if (s == sessions_.end() || !s->second->subs.count(client_sub)) continue;
    close_client_sub(*s->second, client_sub);
    send(session, closed_msg(client_sub, reason));
  }
}

void ProxyService::join_live_sub(Session& s, const std::string& client_sub, const std::vector<UpstreamFilter>& filters) {
  const std::string key = join_live(filters);
  auto it = live_.find(key);
  if (it == live_.end()) {
    auto live = std::make_unique<LiveSub>();
    live->id = "live:" + std::to_string(next_live_++);
    live->filters = filters;
    live_by_id_[live->id] = live.get();
    if (upstream_authed_) link_->send(req_msg(live->id, key));
    it = live_.emplace(key, std::move(live)).first;
    stats_.upstream_subs = upstream_reqs_.size() + live_.size();
  }
  it->second->members.emplace(s.key, client_sub);
  s.subs[client_sub].live.push_back(key);
}

void ProxyService::leave_live_sub(uint64_t session, const std::string& client_sub, const std::string& key) {
  auto it = live_.find(key);
  if (it == live_.end()) return;
  it->second->members.erase({session, client_sub});
  if (!it->second->members.empty()) return;
  to_upstream(close_msg(it->second->id));
  live_by_id_.erase(it->second->id);
  live_.erase(it);
  stats_.upstream_subs = upstream_reqs_.size() + live_.size();
}

void ProxyService::refresh_channels() {
  last_refresh_ = engine::unix_now();
  fetch_->get("/api/channels", [this](FetchAnswer a) {
    loop_->post([this, a = std::move(a)] {
      if (a.status != 200) {
        std::fprintf(stderr, "buzz proxy: GET /api/channels: %ld %s\n", a.status, a.body.c_str());
        return;
      }
      auto rows = parse_channel_list(a.body);
      if (rows) channels_.update(*rows);
    });
  });
}

}  // namespace buzz::proxy

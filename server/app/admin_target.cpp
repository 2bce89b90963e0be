// The two places `buzz admin` acts on; see admin_target.h.
#include "server/app/admin_target.h"

#include <simdjson.h>

#include <cstdio>
#include <functional>
#include <fstream>
#include <sstream>

#include "engine/clock.h"
#include "engine/json_text.h"
#include "engine/rocks_event_store.h"
#include "server/access/nip98.h"
#include "tools/cli/cli_error.h"
#include "tools/cli/relay_http.h"
#include "tools/client/relay_auth.h"

namespace buzz::server {
namespace {

using engine::Error;

class LocalAdmin final : public AdminTarget {
 public:
  explicit LocalAdmin(engine::RocksDatabase& db) : members_(db), store_(db), policy_(store_) {}
  engine::Status load() { return policy_.load(); }

  engine::Result<std::vector<engine::RelayMember>> members() override { return members_.list(); }
  engine::Status put_member(const engine::Pubkey& pk, engine::RelayRole role,
                            const std::optional<engine::RelayMember>& existing) override {
    const uint64_t now = engine::unix_now();
    if (role == engine::RelayRole::kOwner) return members_.set_owner(pk, now);
    return members_.put({pk, role, std::nullopt, existing ? existing->created_at : now, now});
  }
  engine::Status remove_member(const engine::Pubkey& pk) override {
    auto removed = members_.remove(pk);
    if (!removed) return Error{removed.error()};
    return {};
  }
  engine::Status change(const RelayPolicy::Change& c) override { return policy_.apply(c); }
  engine::Result<std::vector<RelayPolicy::Entry>> list(RelayPolicy::List which) override { return policy_.list(which); }

 private:
  engine::RelayMembers members_;
  engine::RocksEventStore store_;
  RelayPolicy policy_;
};

class RemoteAdmin final : public AdminTarget {
 public:
  RemoteAdmin(std::string endpoint, std::string signed_url, const engine::Keypair& key)
      : endpoint_(std::move(endpoint)), signed_url_(std::move(signed_url)), key_(key) {}

  engine::Result<std::vector<engine::RelayMember>> members() override {
    std::vector<engine::RelayMember> out;
    auto rows = call("listallowedpubkeys", {}, [&](simdjson::dom::object row) {
      engine::RelayMember m;
      std::string_view pk, role;
      uint64_t created_at = 0;
      if (row["pubkey"].get(pk) || !engine::from_hex_any_case(pk, m.pubkey.data(), m.pubkey.size())) return;
      if (!row["role"].get(role)) m.role = engine::parse_relay_role(role).value_or(engine::RelayRole::kMember);
      if (!row["created_at"].get(created_at)) m.created_at = created_at;
      out.push_back(m);
    });
    if (!rows) return Error{rows.error()};
    return out;
  }
  engine::Status put_member(const engine::Pubkey& pk, engine::RelayRole role,
                            const std::optional<engine::RelayMember>&) override {
    return call("allowpubkey", {engine::to_hex(pk), "", std::string(engine::relay_role_name(role))});
  }
  engine::Status remove_member(const engine::Pubkey& pk) override { return call("disallowpubkey", {engine::to_hex(pk)}); }
  engine::Status change(const RelayPolicy::Change& c) override {
    return call(std::string(RelayPolicy::method_name(c.op)), {c.subject, c.reason});
  }
  engine::Result<std::vector<RelayPolicy::Entry>> list(RelayPolicy::List which) override {
    using List = RelayPolicy::List;
    const char* method = which == List::kPubkeys ? "listbannedpubkeys" : which == List::kEvents ? "listbannedevents" : "listblockedips";
    const char* field = which == List::kPubkeys ? "pubkey" : which == List::kEvents ? "id" : "ip";
    std::vector<RelayPolicy::Entry> out;
    auto rows = call(method, {}, [&](simdjson::dom::object row) {
      std::string_view subject, reason;
      if (row[field].get(subject)) return;
      if (row["reason"].get(reason)) reason = "";
      out.push_back({std::string(subject), std::string(reason)});
    });
    if (!rows) return Error{rows.error()};
    return out;
  }

 private:
  // One NIP-86 call; `row` sees each object of an array result.
  engine::Status call(const std::string& method, const std::vector<std::string>& params,
                      const std::function<void(simdjson::dom::object)>& row = {}) {
    const std::string body = json_object({{"method", json_string(method)}, {"params", json_string_array(params)}});
    cli::HttpAnswer answer;
    try {
      answer = http_.call("POST", endpoint_, {{"Content-Type", "application/nostr+json+rpc"},
                                              {"Authorization", client::nip98_authorization(key_, signed_url_, "POST", body)}},
                          body);
    } catch (const cli::CliError& e) {
      return Error{e.what()};
    }
    thread_local simdjson::dom::parser parser;
    simdjson::dom::object reply;
    if (parser.parse(answer.body).get(reply)) {
      return Error{"the relay answered HTTP " + std::to_string(answer.status) + " without a NIP-86 reply (is " +
                   endpoint_ + " a Buzz relay?)"};
    }
    std::string_view error;
    if (!reply["error"].get(error) && !error.empty()) return Error{std::string(error)};
    if (answer.status != 200) return Error{"the relay answered HTTP " + std::to_string(answer.status)};
    simdjson::dom::array rows;
    if (row && !reply["result"].get(rows)) {
      for (simdjson::dom::element r : rows) {
        simdjson::dom::object obj;
        if (!r.get(obj)) row(obj);
      }
    }
    return {};
  }

  std::string endpoint_, signed_url_;
  engine::Keypair key_;
  cli::RelayHttp http_;
};

std::string serving_path(const std::string& data_dir) { return data_dir + "/serving"; }

}  // namespace

engine::Result<std::unique_ptr<AdminTarget>> local_admin(engine::RocksDatabase& db) {
  auto target = std::make_unique<LocalAdmin>(db);
  if (auto s = target->load(); !s) return Error{s.error()};
  return std::unique_ptr<AdminTarget>(std::move(target));
}

std::unique_ptr<AdminTarget> remote_admin(std::string endpoint, std::string signed_url, const engine::Keypair& key) {
  return std::make_unique<RemoteAdmin>(std::move(endpoint), std::move(signed_url), key);
}

engine::Status write_serving_file(const std::string& data_dir, const ServingRelay& relay) {
  const std::string path = serving_path(data_dir), tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << "relay_url " << relay.relay_url << "\nlisten " << relay.listen << "\n";
    if (!out.flush()) return Error{"cannot write " + tmp};
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return Error{"cannot write " + path};
  return {};
}

void remove_serving_file(const std::string& data_dir) { std::remove(serving_path(data_dir).c_str()); }

std::optional<ServingRelay> read_serving_file(const std::string& data_dir) {
  std::ifstream in(serving_path(data_dir));
  ServingRelay relay;
  std::string key, value;
  while (in >> key >> value) {
    if (key == "relay_url") relay.relay_url = value;
    if (key == "listen") relay.listen = value;
  }
  if (relay.relay_url.empty() || relay.listen.empty()) return std::nullopt;
  return relay;
}

}  // namespace buzz::server

// AdminTarget: what `buzz admin` changes, wherever it is — the tables of a
// stopped data directory (local_admin), or a running relay through its NIP-86
// API (remote_admin). The commands print the same thing either way.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/relay_members.h"
#include "engine/result.h"
#include "engine/rocks_database.h"
#include "engine/signature.h"
#include "server/access/relay_policy.h"

namespace buzz::server {

class AdminTarget {
 public:
  virtual ~AdminTarget() = default;
  virtual engine::Result<std::vector<engine::RelayMember>> members() = 0;
  // Adds pk as `role`, or changes an existing member's role (`existing`).
  virtual engine::Status put_member(const engine::Pubkey& pk, engine::RelayRole role,
                                    const std::optional<engine::RelayMember>& existing) = 0;
  virtual engine::Status remove_member(const engine::Pubkey& pk) = 0;
  virtual engine::Status change(const RelayPolicy::Change& c) = 0;
  virtual engine::Result<std::vector<RelayPolicy::Entry>> list(RelayPolicy::List which) = 0;
};

// The tables of an open data directory.
engine::Result<std::unique_ptr<AdminTarget>> local_admin(engine::RocksDatabase& db);

// A running relay: `endpoint` is the http(s) URL requests go to, `signed_url`
// the one NIP-98 signs (the relay's own URL as http(s), with "/").
std::unique_ptr<AdminTarget> remote_admin(std::string endpoint, std::string signed_url, const engine::Keypair& key);

// The relay serving a data directory, as `buzz serve` records it in
// <data-dir>/serving while it runs: its public URL and its local address.
struct ServingRelay {
  std::string relay_url;
  std::string listen;  // host:port
};
engine::Status write_serving_file(const std::string& data_dir, const ServingRelay& relay);
void remove_serving_file(const std::string& data_dir);
std::optional<ServingRelay> read_serving_file(const std::string& data_dir);

}  // namespace buzz::server

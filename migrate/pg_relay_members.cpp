// Relay members and the allow-list in PostgreSQL; see pg_relay_members.h.
#include "migrate/pg_relay_members.h"

#include <cstdlib>

#include "engine/hex.h"

namespace buzz::migrate {

using engine::Error;
using engine::Status;

namespace {

constexpr const char* kOwnerLock = "SELECT pg_advisory_xact_lock(6012455564262815078)";

std::string upsert_sql() {
  return "INSERT INTO relay_members (pubkey, role, added_by, created_at, updated_at) "
         "VALUES ($1, $2, NULLIF($3, ''), to_timestamp($4::bigint), to_timestamp($5::bigint)) "
         "ON CONFLICT (pubkey) DO UPDATE SET role = EXCLUDED.role, added_by = EXCLUDED.added_by, updated_at = EXCLUDED.updated_at";
}

std::vector<std::string> upsert_params(const engine::RelayMember& m) {
  return {engine::to_hex(m.pubkey), std::string(engine::relay_role_name(m.role)), m.added_by ? engine::to_hex(*m.added_by) : "",
          std::to_string(m.created_at), std::to_string(m.updated_at)};
}

}  // namespace

engine::Result<std::vector<engine::RelayMember>> PgRelayMembers::select(const std::string& where,
                                                                        const std::vector<std::string>& params) const {
  auto rows = with_connection(conns_, [&](PgConnection& pg) {
    return pg.query("SELECT pubkey, role, added_by, extract(epoch from created_at)::bigint, "
                    "extract(epoch from updated_at)::bigint FROM relay_members " + where + " ORDER BY created_at, pubkey",
                    params);
  });
  if (!rows) return Error{"error: reading relay_members: " + rows.error()};
  std::vector<engine::RelayMember> out;
  for (const PgRow& r : *rows) {
    engine::RelayMember m;
    auto role = engine::parse_relay_role(r.values[1]);
    // Upstream writes lowercase hex; a row this relay cannot read is not a member.
    if (!engine::from_hex_any_case(r.values[0], m.pubkey.data(), 32) || !role) continue;
    m.role = *role;
    engine::Pubkey by;
    if (!r.nulls[2] && engine::from_hex_any_case(r.values[2], by.data(), 32)) m.added_by = by;
    m.created_at = std::strtoull(r.values[3].c_str(), nullptr, 10);
    m.updated_at = std::strtoull(r.values[4].c_str(), nullptr, 10);
    out.push_back(m);
  }
  return out;
}

engine::Result<std::vector<engine::RelayMember>> PgRelayMembers::list() const { return select("", {}); }

std::optional<engine::RelayMember> PgRelayMembers::get(const engine::Pubkey& pk) const {
  auto rows = select("WHERE pubkey = $1", {engine::to_hex(pk)});
  if (!rows || rows->empty()) return std::nullopt;
  return (*rows)[0];
}

Status PgRelayMembers::put(const engine::RelayMember& m) {
  auto r = with_connection(conns_, [&](PgConnection& pg) { return pg.query(upsert_sql(), upsert_params(m)); });
  if (!r) return Error{"error: writing relay_members: " + r.error()};
  return {};
}

engine::Result<bool> PgRelayMembers::remove(const engine::Pubkey& pk) {
  auto r = with_connection(conns_, [&](PgConnection& pg) {
    return pg.query("DELETE FROM relay_members WHERE pubkey = $1 RETURNING 1", {engine::to_hex(pk)});
  });
  if (!r) return Error{"error: writing relay_members: " + r.error()};
  return !r->empty();
}

Status PgRelayMembers::set_owner(const engine::Pubkey& owner, uint64_t now) {
  auto conn = conns_.get();
  if (!conn) return Error{conn.error()};
  PgConnection& pg = **conn;
  auto fail = [&pg](const std::string& why) -> Status {
    (void)pg.exec("ROLLBACK");
    return Error{"error: writing relay owner: " + why};
  };
  if (Status s = pg.exec("BEGIN"); !s) return fail(s.error());
  if (Status s = pg.exec(kOwnerLock); !s) return fail(s.error());
  auto all = list();  // same thread, same connection: inside the transaction
  if (!all) return fail(all.error());
  for (const engine::RelayMember& m : engine::owner_changes(*all, owner, now)) {
    if (auto r = pg.query(upsert_sql(), upsert_params(m)); !r) return fail(r.error());
  }
  if (Status s = pg.exec("COMMIT"); !s) return fail(s.error());
  return {};
}

engine::Result<std::vector<engine::AllowedPubkey>> PgPubkeyAllowlist::list() const {
  auto rows = with_connection(conns_, [&](PgConnection& pg) {
    return pg.query("SELECT encode(pubkey, 'hex'), encode(added_by, 'hex'), extract(epoch from added_at)::bigint, note "
                    "FROM pubkey_allowlist ORDER BY added_at, pubkey");
  });
  if (!rows) return Error{"error: reading pubkey_allowlist: " + rows.error()};
  std::vector<engine::AllowedPubkey> out;
  for (const PgRow& r : *rows) {
    engine::AllowedPubkey a;
    if (!engine::from_hex(r.values[0], &a.pubkey)) continue;
    engine::Pubkey by;
    if (!r.nulls[1] && engine::from_hex(r.values[1], &by)) a.added_by = by;
    a.added_at = std::strtoull(r.values[2].c_str(), nullptr, 10);
    a.note = r.values[3];
    out.push_back(a);
  }
  return out;
}

}  // namespace buzz::migrate

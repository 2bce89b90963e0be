// Full-text search in PostgreSQL; see pg_search_index.h.
#include "migrate/pg_search_index.h"

#include <algorithm>
#include <cstdlib>

#include <simdjson.h>

#include "engine/channel.h"
#include "engine/hex.h"
#include "index/search_document.h"
#include "migrate/pg_event_row.h"
#include "migrate/pg_filter_sql.h"
#include "migrate/pg_schema.h"

namespace buzz::migrate {
namespace {

using engine::Error;

// "{0,1,9,…}": the searchable kinds (search_document.h), or those of `wanted` that are.
std::string kind_list(const std::vector<uint16_t>& wanted) {
  std::string out = "{";
  for (uint32_t k = 0; k <= 65535; ++k) {
    if (!index::is_searchable_kind(uint16_t(k))) continue;
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), uint16_t(k)) == wanted.end()) continue;
    out += (out.size() > 1 ? "," : "") + std::to_string(k);
  }
  return out + "}";
}

// The tsquery of the user's text: each "quoted text" a phrase, the other words
// all required. PostgreSQL's own parsers read the pieces, so nothing in them is syntax.
std::string text_query(std::string_view text, PgParams& params) {
  std::string query;
  auto add = [&](const char* fn, std::string_view piece) {
    if (piece.find_first_not_of(" \t\r\n") == std::string_view::npos) return;
    if (!query.empty()) query += " && ";
    query += std::string(fn) + "('simple', " + params.add(std::string(piece)) + ")";
  };
  std::string words;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != '"') continue;
    std::string_view piece = text.substr(start, i - start);
    if (quoted) add("phraseto_tsquery", piece);
    else words.append(piece).push_back(' ');
    quoted = !quoted;
    start = i + 1;
  }
  add("plainto_tsquery", words);
  return query;
}

// The user's text as PostgreSQL takes it: valid UTF-8 (other bytes become
// spaces); the same refusals as the embedded index (search_text.h).
engine::Result<std::string> clean_text(std::string_view text) {
  if (text.size() > index::kMaxSearchTextBytes) {
    return Error{"invalid: search query too long (max " + std::to_string(index::kMaxSearchTextBytes) + " bytes)"};
  }
  std::string out(text);
  if (!simdjson::validate_utf8(out.data(), out.size())) {
    for (char& c : out) c = (uint8_t(c) >= 0x80 || c == '\0') ? ' ' : c;
  }
  std::erase(out, '\0');
  size_t words = 0;
  bool in_word = false;
  for (char c : out) {
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"';
    words += !space && !in_word;
    in_word = !space;
  }
  if (words > 64) return Error{"invalid: search query has too many terms (max 64)"};
  return out;
}

bool matches_all(std::string_view text) {
  const size_t a = text.find_first_not_of(" \t\r\n");
  if (a == std::string_view::npos) return true;
  const size_t b = text.find_last_not_of(" \t\r\n");
  return text.substr(a, b - a + 1) == "*";
}

// A message is found by its newest text only, as in the embedded index: not
// once an edit (40003, its "e" tag naming the message) replaced it, an edit not
// once a newer one did, and no edit of a deleted message.
constexpr const char* kNewestTextOnly =
    " AND (e.kind <> 40003 OR NOT EXISTS (SELECT 1 FROM events o WHERE o.deleted_at IS NOT NULL"
    " AND o.id = (SELECT decode(t->>1, 'hex') FROM jsonb_array_elements(e.tags) t"
    " WHERE t->>0 = 'e' AND t->>1 ~ '^[0-9a-f]{64}$' LIMIT 1)))"
    " AND NOT EXISTS (SELECT 1 FROM events x WHERE x.kind = 40003 AND x.deleted_at IS NULL"
    " AND (x.created_at, x.id) > (e.created_at, e.id)"
    " AND x.tags @> jsonb_build_array(jsonb_build_array('e', CASE WHEN e.kind = 40003"
    " THEN (SELECT t->>1 FROM jsonb_array_elements(e.tags) t WHERE t->>0 = 'e' LIMIT 1)"
    " ELSE encode(e.id, 'hex') END)))";

}  // namespace

engine::Result<index::SearchResult> PgSearchIndex::search(const index::SearchQuery& query) const {
  auto text = clean_text(query.text);
  if (!text) return Error{text.error()};
  const bool match_all = matches_all(*text);
  index::SearchResult result;
  std::vector<std::string> channels;
  for (const std::string& c : query.channels) {
    if (engine::is_canonical_uuid(c)) channels.push_back(c);
  }
  if (channels.empty() && !query.include_global) return result;

  PgParams params;
  std::string scope = "e.channel_id = ANY(" + params.add(text_array(channels)) + "::uuid[])";
  if (query.include_global) scope = "(" + scope + " OR e.channel_id IS NULL)";
  std::string where = "e.deleted_at IS NULL AND " + scope + " AND e.kind = ANY(" + params.add(kind_list(query.kinds)) + "::int[])";
  where += kNewestTextOnly;
  if (!query.authors.empty()) {
    std::vector<std::string_view> keys;
    for (const auto& a : query.authors) keys.emplace_back(reinterpret_cast<const char*>(a.data()), a.size());
    where += " AND e.pubkey = ANY(" + params.add(bytea_array(keys)) + "::bytea[])";
  }
  if (query.since) where += " AND e.created_at >= to_timestamp(" + params.add(std::to_string(std::min(*query.since, kMaxPgEventTime))) + "::bigint)";
  if (query.until) where += " AND e.created_at <= to_timestamp(" + params.add(std::to_string(std::min(*query.until, kMaxPgEventTime))) + "::bigint)";
  std::string score = "0::real";
  if (!match_all) {
    const std::string words = text_query(*text, params);
    if (words.empty()) return result;  // nothing PostgreSQL can match: no word in the text
    const std::string q = "(" + words + ")";
    where += std::string(" AND ") + kSearchVector + " @@ " + q;
    score = std::string("ts_rank(") + kSearchVector + ", " + q + ")";
  }
  const size_t limit = std::clamp<size_t>(query.limit, 1, index::kMaxSearchLimit);
  const std::string order = query.order == index::SearchOrder::kRelevance ? "score DESC, e.created_at DESC, e.id"
                                                                           : "e.created_at DESC, e.id";
  const std::string sql = "SELECT encode(e.id, 'hex'), extract(epoch from e.created_at)::bigint, " + score +
                          " AS score, count(*) OVER () FROM events e WHERE " + where + " ORDER BY " + order +
                          " LIMIT " + std::to_string(limit);
  auto rows = with_connection(conns_, [&](PgConnection& pg) { return pg.query(sql, params.values()); });
  if (!rows) return Error{"error: search failed: " + rows.error()};
  for (const PgRow& r : *rows) {
    index::SearchHit hit;
    if (!engine::from_hex(r.values[0], &hit.id)) continue;
    hit.created_at = std::strtoull(r.values[1].c_str(), nullptr, 10);
    hit.score = std::strtof(r.values[2].c_str(), nullptr);
    result.total = std::strtoull(r.values[3].c_str(), nullptr, 10);
    result.hits.push_back(hit);
  }
  return result;
}

uint64_t PgSearchIndex::size() const {
  auto rows = with_connection(conns_, [&](PgConnection& pg) {
    return pg.query("SELECT count(*) FROM events WHERE deleted_at IS NULL AND kind = ANY($1::int[])", {kind_list({})});
  });
  return rows && !rows->empty() ? std::strtoull((*rows)[0].values[0].c_str(), nullptr, 10) : 0;
}

}  // namespace buzz::migrate

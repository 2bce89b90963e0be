// The libpq connection; see pg_connection.h.
#include "migrate/pg_connection.h"

#include <ctime>
#include <optional>

#include "engine/hex.h"

namespace buzz::migrate {

std::string redact_url(std::string_view url) {
  std::string out(url);
  size_t scheme = out.find("://");
  size_t at = out.find('@', scheme == std::string::npos ? 0 : scheme + 3);
  if (scheme == std::string::npos || at == std::string::npos) return out;
  size_t colon = out.find(':', scheme + 3);
  if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
  return out;
}

engine::Result<std::unique_ptr<PgConnection>> PgConnection::connect(const std::string& url, const char* application) {
  // connect_timeout first: a value in the URL overrides it.
  const char* keys[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {"10", application, url.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (!conn || PQstatus(conn) != CONNECTION_OK) {
    std::string why = conn ? PQerrorMessage(conn) : "out of memory";
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    if (conn) PQfinish(conn);
    return engine::Error{"cannot connect to " + redact_url(url) + ": " + why};
  }
  PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);  // CREATE … IF NOT EXISTS notices
  return std::unique_ptr<PgConnection>(new PgConnection(conn));
}

PgConnection::~PgConnection() { PQfinish(conn_); }

bool PgConnection::reset() {
  PQreset(conn_);
  return alive();
}

std::string PgConnection::error_text(PGresult* r) const {
  std::string text;
  const char* primary = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  text = primary ? primary : PQerrorMessage(conn_);
  if (const char* detail = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_DETAIL) : nullptr) text += std::string(" (") + detail + ")";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

engine::Status PgConnection::exec(const std::string& sql) {
  PGresult* r = PQexec(conn_, sql.c_str());
  const ExecStatusType st = PQresultStatus(r);
  engine::Status out;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) out = engine::Error{error_text(r)};
  PQclear(r);
  return out;
}

namespace {

std::vector<PgRow> rows_of(PGresult* r) {
  std::vector<PgRow> rows(size_t(PQntuples(r)));
  for (int i = 0; i < PQntuples(r); ++i) {
    for (int c = 0; c < PQnfields(r); ++c) {
      rows[size_t(i)].values.emplace_back(PQgetvalue(r, i, c), size_t(PQgetlength(r, i, c)));
      rows[size_t(i)].nulls.push_back(PQgetisnull(r, i, c));
    }
  }
  return rows;
}

bool succeeded(PGresult* r) { return PQresultStatus(r) == PGRES_TUPLES_OK || PQresultStatus(r) == PGRES_COMMAND_OK; }

std::vector<const char*> param_pointers(const std::vector<std::string>& params, const std::vector<bool>& nulls = {}) {
  std::vector<const char*> p;
  for (size_t i = 0; i < params.size(); ++i) p.push_back(i < nulls.size() && nulls[i] ? nullptr : params[i].c_str());
  return p;
}

}  // namespace

engine::Result<std::vector<PgRow>> PgConnection::query(const std::string& sql, const std::vector<std::string>& params) {
  std::vector<const char*> p = param_pointers(params);
  PGresult* r = PQexecParams(conn_, sql.c_str(), int(p.size()), nullptr, p.data(), nullptr, nullptr, 0);
  if (!succeeded(r)) {
    std::string why = error_text(r);
    PQclear(r);
    return engine::Error{why};
  }
  std::vector<PgRow> rows = rows_of(r);
  PQclear(r);
  return rows;
}

engine::Result<std::vector<std::vector<PgRow>>> PgConnection::pipeline(const std::vector<Statement>& statements) {
  if (PQenterPipelineMode(conn_) != 1) return engine::Error{error_text(nullptr)};
  std::optional<std::string> error;
  size_t sent = 0;
  for (const Statement& s : statements) {
    std::vector<const char*> p = param_pointers(s.params, s.nulls);
    if (PQsendQueryParams(conn_, s.sql.c_str(), int(p.size()), nullptr, p.data(), nullptr, nullptr, 0) != 1) {
      error = error_text(nullptr);
      break;
    }
    ++sent;
  }
  std::vector<std::vector<PgRow>> out;
  if (PQpipelineSync(conn_) != 1 && !error) error = error_text(nullptr);
  // Every statement sent has a result (or PGRES_PIPELINE_ABORTED after a
  // failure) followed by a null; then the sync's PGRES_PIPELINE_SYNC.
  for (size_t i = 0; i < sent; ++i) {
    PGresult* r = PQgetResult(conn_);
    if (!r) {  // the connection broke
      if (!error) error = error_text(nullptr);
      break;
    }
    if (succeeded(r)) {
      out.push_back(rows_of(r));
    } else if (!error) {
      error = PQresultStatus(r) == PGRES_PIPELINE_ABORTED ? "pipeline aborted" : error_text(r);
    }
    PQclear(r);
    while ((r = PQgetResult(conn_)) != nullptr) PQclear(r);
  }
  for (PGresult* r; (r = PQgetResult(conn_)) != nullptr;) {
    const bool synced = PQresultStatus(r) == PGRES_PIPELINE_SYNC;
    PQclear(r);
    if (synced) break;
  }
  if (PQexitPipelineMode(conn_) != 1) {
    if (!error) error = error_text(nullptr);
    PQreset(conn_);  // never left in pipeline mode, where the plain calls all fail
  }
  if (error) return engine::Error{*error};
  return out;
}

engine::Status PgConnection::copy_in(const std::string& copy_sql, std::string_view block, CopyFailure* failure) {
  PGresult* r = PQexec(conn_, copy_sql.c_str());
  if (PQresultStatus(r) != PGRES_COPY_IN) {
    failure->message = error_text(r);
    PQclear(r);
    return engine::Error{failure->message};
  }
  PQclear(r);
  constexpr size_t kChunk = 1 << 20;
  bool sent = true;
  for (size_t off = 0; off < block.size() && sent; off += kChunk) {
    sent = PQputCopyData(conn_, block.data() + off, int(std::min(kChunk, block.size() - off))) == 1;
  }
  PQputCopyEnd(conn_, sent ? nullptr : "client error");
  engine::Status out;
  while ((r = PQgetResult(conn_)) != nullptr) {
    if (PQresultStatus(r) != PGRES_COMMAND_OK && out) {
      failure->message = error_text(r);
      // The context reads "COPY <table>, line <n>[, column …]: …".
      if (const char* ctx = PQresultErrorField(r, PG_DIAG_CONTEXT)) {
        std::string_view c(ctx);
        size_t at = c.find(", line ");
        if (at != std::string_view::npos) failure->line = std::strtoull(ctx + at + 7, nullptr, 10);
      }
      out = engine::Error{failure->message};
    }
    PQclear(r);
  }
  return out;
}

engine::Status PgConnection::copy_out(const std::string& copy_sql,
                                      const std::function<bool(std::string_view line)>& on_line) {
  PGresult* r = PQexec(conn_, copy_sql.c_str());
  if (PQresultStatus(r) != PGRES_COPY_OUT) {
    std::string why = error_text(r);
    PQclear(r);
    return engine::Error{why};
  }
  PQclear(r);
  bool stopped = false;
  char* buf = nullptr;
  int n;
  while ((n = PQgetCopyData(conn_, &buf, 0)) > 0) {
    std::string_view line(buf, size_t(n));
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    if (!stopped && !on_line(line)) stopped = true;  // drain the rest so the connection stays usable
    PQfreemem(buf);
  }
  engine::Status out;
  while ((r = PQgetResult(conn_)) != nullptr) {
    if (PQresultStatus(r) != PGRES_COMMAND_OK && out) out = engine::Error{error_text(r)};
    PQclear(r);
  }
  if (n == -2 && out) out = engine::Error{error_text(nullptr)};
  if (stopped && out) out = engine::Error{"stopped"};
  return out;
}

namespace copy_text {

void append_text(std::string& out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default: out.push_back(c);
    }
  }
}

void append_bytea(std::string& out, const uint8_t* p, size_t n) {
  out += "\\\\x";
  size_t at = out.size();
  out.resize(at + 2 * n);
  engine::hex_encode(p, n, out.data() + at);
}

void append_null(std::string& out) { out += "\\N"; }

void append_timestamp(std::string& out, uint64_t unix_seconds) {
  std::time_t t = std::time_t(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S+00", &tm);
  out.append(buf, n);
}

// Fields keep their strings' capacity from line to line, and runs without a
// backslash are copied whole: the importer splits every row it reads.
bool split(std::string_view line, std::vector<std::string>& fields, std::vector<bool>& nulls) {
  nulls.clear();
  size_t count = 0;
  size_t i = 0;
  for (;;) {
    if (count == fields.size()) fields.emplace_back();
    std::string& cur = fields[count++];
    cur.clear();
    const size_t start = i;
    for (;;) {
      size_t run = i;
      while (run < line.size() && line[run] != '\t' && line[run] != '\\') ++run;
      cur.append(line.data() + i, run - i);
      i = run;
      if (i == line.size() || line[i] == '\t') break;
      // A backslash escape.
      if (i + 1 >= line.size()) return false;
      char e = line[++i];
      ++i;
      switch (e) {
        case 'b': cur.push_back('\b'); break;
        case 'f': cur.push_back('\f'); break;
        case 'n': cur.push_back('\n'); break;
        case 'r': cur.push_back('\r'); break;
        case 't': cur.push_back('\t'); break;
        case 'v': cur.push_back('\v'); break;
        case 'x': {
          int v = 0, k = 0;
          while (k < 2 && i < line.size() && std::isxdigit(static_cast<unsigned char>(line[i]))) {
            char h = line[i++];
            v = v * 16 + (h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
            ++k;
          }
          if (!k) return false;
          cur.push_back(char(v));
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            int v = e - '0', k = 1;
            while (k < 3 && i < line.size() && line[i] >= '0' && line[i] <= '7') v = v * 8 + (line[i++] - '0'), ++k;
            cur.push_back(char(v));
          } else {
            cur.push_back(e);  // \\ and any other escaped character stand for themselves
          }
      }
    }
    const bool is_null = line.substr(start, i - start) == "\\N";
    nulls.push_back(is_null);
    if (is_null) cur.clear();
    if (i == line.size()) break;
    ++i;  // the tab
  }
  fields.resize(count);
  return true;
}

}  // namespace copy_text
}  // namespace buzz::migrate

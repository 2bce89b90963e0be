// PgConnection: one libpq connection for the migration tool, with the few
// operations it needs: plain statements, COPY FROM STDIN of a prepared (text or binary)
// block, and COPY TO STDOUT streamed line by line.
//
// Errors are values (engine::Result/Status) whose text carries PostgreSQL's
// message and detail; a failed COPY also reports the line of the block that
// PostgreSQL refused, so callers can name the row.
#pragma once

#include <libpq-fe.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/result.h"

namespace buzz::migrate {

// The URL with any password replaced by "***", for messages and logs.
std::string redact_url(std::string_view url);

// One row of a query result, every column as text (empty + null flag for NULL).
struct PgRow {
  std::vector<std::string> values;
  std::vector<bool> nulls;
};

struct CopyFailure {
  std::string message;  // PostgreSQL's message and detail
  size_t line = 0;      // 1-based line of the COPY block, 0 if unknown
};

class PgConnection {
 public:
  // `application` names the client in pg_stat_activity.
  static engine::Result<std::unique_ptr<PgConnection>> connect(const std::string& url,
                                                               const char* application = "buzz-migrate");
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  engine::Status exec(const std::string& sql);
  // False once the server went away; reset() then reconnects with the same settings.
  bool alive() const { return PQstatus(conn_) == CONNECTION_OK; }
  bool reset();
  engine::Result<std::vector<PgRow>> query(const std::string& sql, const std::vector<std::string>& params = {});
  // Several statements sent at once and answered in one round trip (libpq's
  // pipeline mode), each one's rows in order. The first failure is the error:
  // the statements after it are not run (inside BEGIN, the caller rolls back).
  // `nulls`, when given, marks the parameters sent as NULL.
  struct Statement {
    std::string sql;
    std::vector<std::string> params{};
    std::vector<bool> nulls{};
  };
  engine::Result<std::vector<std::vector<PgRow>>> pipeline(const std::vector<Statement>& statements);
  // `copy_sql` is a "COPY … FROM STDIN" statement; `block` its rows in text format.
  // On failure `failure` says which line, when PostgreSQL said so.
  engine::Status copy_in(const std::string& copy_sql, std::string_view block, CopyFailure* failure);
  // `copy_sql` is a "COPY (…) TO STDOUT" statement; on_line sees each row
  // without its newline and returns false to stop with an error it set.
  engine::Status copy_out(const std::string& copy_sql, const std::function<bool(std::string_view line)>& on_line);

 private:
  explicit PgConnection(PGconn* conn) : conn_(conn) {}
  std::string error_text(PGresult* r) const;
  PGconn* conn_;
};

// COPY text format (https://www.postgresql.org/docs/15/sql-copy.html).
namespace copy_text {
void append_text(std::string& out, std::string_view s);          // escapes \, tab, newline, CR
void append_bytea(std::string& out, const uint8_t* p, size_t n);  // \\x + hex
void append_null(std::string& out);                              // \N
void append_timestamp(std::string& out, uint64_t unix_seconds);   // "YYYY-MM-DD HH:MM:SS+00"
// Splits one line into fields; nulls marked. False on a malformed escape.
bool split(std::string_view line, std::vector<std::string>& fields, std::vector<bool>& nulls);
}  // namespace copy_text

}  // namespace buzz::migrate

// StepWriter: one resumable step of an export into PostgreSQL. Rows are
// gathered into COPY text blocks (one per table the step fills) and committed
// in batches; each batch is one transaction that also records the step's last
// key in buzz_migrate_progress. A kill -9 loses at most the open batch, and a
// rerun resumes after the recorded key, so no row is written twice.
//
// A batch PostgreSQL refuses is rolled back whole (the target stays as it was
// before it) and the error names the table and the row.
//
// One batch is in flight while the next is gathered: the send runs on a helper
// thread, so encoding here and PostgreSQL's work overlap. The connection is
// used by one thread at a time (the sender, until it is awaited).
#pragma once

#include <future>
#include <optional>
#include <string>
#include <vector>

#include "engine/result.h"
#include "migrate/pg_connection.h"
#include "migrate/progress.h"

namespace buzz::migrate {

class StepWriter {
 public:
  // `tables`: "table (col, col, …)" per block, in COPY order. `binary`: the
  // rows are in COPY's binary format (copy_binary_row.h), not text.
  StepWriter(PgConnection& pg, std::string step, std::vector<std::string> tables, Progress& progress,
             size_t batch_rows, bool binary = false);

  // Where a previous run stopped: nullopt once the step is done, else the last
  // committed key ("" = from the start).
  engine::Result<std::optional<std::string>> resume();

  // Starts a row of table `t`; `label` names it in errors ("id=ab12…").
  // The caller appends the row's COPY fields (and in text, its '\n') to the returned block.
  std::string& row(size_t t, std::string label);
  // Ends a source item (counted in progress) whose rows are complete; commits
  // when the batch is full. `key` is the resume point after this item.
  engine::Status item_done(std::string_view key);
  // Commits the rest and marks the step done.
  engine::Status finish();
  ~StepWriter() { (void)await_in_flight(); }

 private:
  struct Block {
    std::string table;
    std::string data;
    std::vector<std::string> labels;
  };
  engine::Status commit(bool done);
  // Waits for the batch in flight, if any, and returns how its send went.
  engine::Status await_in_flight();
  engine::Status send(const std::vector<Block>& blocks, const std::string& key, bool done);
  PgConnection& pg_;
  const std::string step_;
  std::vector<Block> blocks_;
  Progress& progress_;
  const size_t batch_rows_;
  const bool binary_;
  size_t items_ = 0;
  std::string last_key_;
  std::vector<Block> in_flight_;
  std::future<engine::Status> sending_;
};

// "'<text>'" as a SQL literal (single quotes doubled).
std::string sql_literal(std::string_view text);

}  // namespace buzz::migrate

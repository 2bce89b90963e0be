// The resumable batched COPY; see step_writer.h.
#include "migrate/step_writer.h"

#include "engine/hex.h"
#include "migrate/copy_binary_row.h"

namespace buzz::migrate {

std::string sql_literal(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  return out + "'";
}

StepWriter::StepWriter(PgConnection& pg, std::string step, std::vector<std::string> tables, Progress& progress,
                       size_t batch_rows, bool binary)
    : pg_(pg), step_(std::move(step)), progress_(progress), batch_rows_(batch_rows), binary_(binary) {
  for (std::string& t : tables) blocks_.push_back({std::move(t), {}, {}});
}

engine::Result<std::optional<std::string>> StepWriter::resume() {
  auto rows = pg_.query("SELECT encode(last_key, 'hex'), done FROM buzz_migrate_progress WHERE step = $1", {step_});
  if (!rows) return engine::Error{"table buzz_migrate_progress: " + rows.error()};
  if (rows->empty()) return std::optional<std::string>(std::string());
  if ((*rows)[0].values[1] == "t") return std::optional<std::string>();
  std::string key((*rows)[0].values[0].size() / 2, '\0');
  engine::hex_decode((*rows)[0].values[0], reinterpret_cast<uint8_t*>(key.data()), key.size());
  last_key_ = key;
  return std::optional<std::string>(key);
}

std::string& StepWriter::row(size_t t, std::string label) {
  blocks_[t].labels.push_back(std::move(label));
  if (binary_ && blocks_[t].data.empty()) blocks_[t].data = copy_binary::kHeader;
  return blocks_[t].data;
}

engine::Status StepWriter::item_done(std::string_view key) {
  last_key_ = key;
  progress_.advance(1);
  if (++items_ < batch_rows_) return {};
  return commit(false);
}

engine::Status StepWriter::finish() {
  if (engine::Status s = commit(true); !s) return s;
  return await_in_flight();
}

engine::Status StepWriter::await_in_flight() {
  if (!sending_.valid()) return {};
  return sending_.get();
}

engine::Status StepWriter::commit(bool done) {
  if (engine::Status s = await_in_flight(); !s) return s;
  // The batch just sent keeps its buffers for the next one: no reallocation
  // (and no fresh pages to fault in) as a block grows to megabytes per batch.
  in_flight_.swap(blocks_);
  if (blocks_.size() != in_flight_.size()) {
    blocks_.clear();
    for (const Block& b : in_flight_) blocks_.push_back({b.table, {}, {}});
  }
  for (Block& b : blocks_) {
    b.data.clear();
    b.labels.clear();
  }
  for (Block& b : in_flight_) {
    if (binary_ && !b.data.empty()) b.data += copy_binary::kTrailer;
  }
  items_ = 0;
  sending_ = std::async(std::launch::async, [this, key = last_key_, done] { return send(in_flight_, key, done); });
  return {};
}

engine::Status StepWriter::send(const std::vector<Block>& blocks, const std::string& key, bool done) {
  if (engine::Status s = pg_.exec("BEGIN"); !s) return engine::Error{"table " + blocks[0].table + ": " + s.error()};
  for (const Block& b : blocks) {
    if (b.data.empty()) continue;
    CopyFailure failure;
    if (engine::Status s = pg_.copy_in("COPY " + b.table + " FROM STDIN" + (binary_ ? " WITH (FORMAT binary)" : ""), b.data, &failure); !s) {
      (void)pg_.exec("ROLLBACK");
      const std::string table = b.table.substr(0, b.table.find(' '));
      std::string row = failure.line >= 1 && failure.line <= b.labels.size() ? b.labels[failure.line - 1] : "unknown";
      return engine::Error{"table " + table + ", row " + row + ": " + failure.message};
    }
  }
  const std::string key_hex = engine::to_hex(reinterpret_cast<const uint8_t*>(key.data()), key.size());
  engine::Status s = pg_.exec(
      "INSERT INTO buzz_migrate_progress (step, last_key, done) VALUES (" + sql_literal(step_) + ", decode('" + key_hex +
      "', 'hex'), " + (done ? "true" : "false") + ") ON CONFLICT (step) DO UPDATE SET last_key = EXCLUDED.last_key, done = EXCLUDED.done");
  if (s) s = pg_.exec("COMMIT");
  if (!s) {
    (void)pg_.exec("ROLLBACK");
    return engine::Error{"table buzz_migrate_progress: " + s.error()};
  }
  return {};
}

}  // namespace buzz::migrate

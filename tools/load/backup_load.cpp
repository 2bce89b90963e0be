// The online-backup scenario; see backup_load.h.
#include "tools/load/backup_load.h"

#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "engine/hex.h"
#include "tools/client/child_process.h"
#include "tools/load/load_client.h"

namespace buzz::load {
namespace {

struct OkSample {
  double sent = 0;     // steady-clock seconds
  double latency = 0;  // seconds from the send to its OK
};

// Each connection publishes at rate ÷ connections a second and times every OK,
// until `stop` is set and every EVENT sent has its answer.
std::vector<OkSample> paced_ingest(const std::vector<std::unique_ptr<client::WsClient>>& conns,
                                 const std::vector<engine::Keypair>& keys, int rate, std::atomic<bool>& stop) {
  std::mutex mu;
  std::vector<OkSample> samples;
  std::vector<std::thread> threads;
  for (size_t c = 0; c < conns.size(); ++c) {
    threads.emplace_back([&, c] {
      client::WsClient& ws = *conns[c];
      const double interval = double(conns.size()) / double(rate);
      double due = now_s() + interval * double(c) / double(conns.size());
      std::unordered_map<std::string, double> sent_at;
      std::vector<OkSample> mine;
      for (uint64_t n = 0;;) {
        const double now = now_s();
        if (!stop && now >= due) {
          engine::Event e = note(keys[c], "paced " + std::to_string(n++));
          sent_at[engine::to_hex(e.id)] = now;
          if (!ws.send_text("[\"EVENT\"," + e.raw + "]")) break;
          due += interval;
          continue;
        }
        if (stop && sent_at.empty()) break;
        auto m = ws.recv(stop ? 5000 : std::max(1, int((due - now) * 1000)));
        if (!m) {
          if (stop || ws.closed()) break;  // the answers stopped coming
          continue;
        }
        if (m->rfind("[\"OK\",\"", 0) != 0 || m->size() < 71) continue;
        auto it = sent_at.find(m->substr(7, 64));
        if (it == sent_at.end()) continue;
        mine.push_back({it->second, now_s() - it->second});
        sent_at.erase(it);
      }
      std::lock_guard lock(mu);
      samples.insert(samples.end(), mine.begin(), mine.end());
    });
  }
  for (auto& t : threads) t.join();
  return samples;
}

std::vector<double> latencies(const std::vector<OkSample>& samples, double from, double to) {
  std::vector<double> out;
  for (const OkSample& s : samples) {
    if (s.sent >= from && s.sent <= to) out.push_back(s.latency);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A number after `"key":` in the last line of `text` that has it; 0 if none.
double json_number(const std::string& text, const std::string& key) {
  const size_t at = text.rfind("\"" + key + "\":");
  return at == std::string::npos ? 0 : std::atof(text.c_str() + at + key.size() + 3);
}

}  // namespace

void run_backup_load(const Options& o) {
  ServerProcess server = start_relay(o);
  std::vector<engine::Keypair> keys;
  std::vector<std::unique_ptr<client::WsClient>> conns;
  for (int i = 0; i < o.connections; ++i) {
    keys.push_back(engine::generate_keypair());
    conns.push_back(connect_authed(server, keys.back()));
  }
  // The store the backup copies.
  {
    std::vector<std::thread> fill;
    for (size_t c = 0; c < conns.size(); ++c) {
      fill.emplace_back([&, c] {
        std::vector<std::string> frames;
        for (int i = int(c); i < o.events; i += o.connections) {
          frames.push_back("[\"EVENT\"," + note(keys[c], "fill " + std::to_string(i), {{"t", "load"}}).raw + "]");
        }
        send_all(*conns[c], frames, 64);
      });
    }
    for (auto& t : fill) t.join();
  }
  std::map<std::string, double> figures;
  // Alone.
  std::atomic<bool> stop{false};
  std::thread alone_timer([&] {
    std::this_thread::sleep_for(std::chrono::seconds(o.seconds));
    stop = true;
  });
  const std::vector<OkSample> alone = paced_ingest(conns, keys, o.rate, stop);
  alone_timer.join();
  const std::vector<double> without = latencies(alone, 0, 1e18);

  // With a backup started a second in.
  const std::string to = server.data_dir() + "-backup";  // not temp_dir(): that empties the relay's
  const std::string out_path = to + ".out";
  double began = 0, ended = 0;
  int status = -1;
  stop = false;
  std::thread backup([&] {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    std::string error;
    began = now_s();
    const pid_t pid = client::start_child(
        {.args = {o.binary, "backup", "--to", to, "--data-dir", server.data_dir(), "--json"}, .drop_prefix = "BUZZ_",
         .stdout_path = out_path, .stderr_path = out_path},
        &error);
    if (pid > 0) waitpid(pid, &status, 0);
    ended = now_s();
    const double rest = std::max(0.0, double(o.seconds) - (ended - began) - 1.0);
    std::this_thread::sleep_for(std::chrono::duration<double>(rest));
    stop = true;
  });
  const std::vector<OkSample> with = paced_ingest(conns, keys, o.rate, stop);
  backup.join();
  std::ifstream in(out_path);
  const std::string output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove_all(to);
  std::filesystem::remove(out_path);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("buzz backup failed: " + output);
  const std::vector<double> during = latencies(with, began, ended);

  figures["events_stored_before"] = double(o.events);
  figures["oks_without"] = double(without.size());
  figures["p50_ms_without"] = percentile_ms(without, 0.5);
  figures["p99_ms_without"] = percentile_ms(without, 0.99);
  figures["oks_during_backup"] = double(during.size());
  figures["p50_ms_during_backup"] = percentile_ms(during, 0.5);
  figures["p99_ms_during_backup"] = percentile_ms(during, 0.99);
  figures["max_ms_during_backup"] = during.empty() ? 0 : during.back() * 1000;
  figures["p99_ratio"] = figures["p99_ms_during_backup"] / std::max(1e-9, figures["p99_ms_without"]);
  figures["backup_s"] = ended - began;
  figures["backup_mib"] = json_number(output, "bytes") / 1048576.0;
  figures["backup_paused_ms"] = json_number(output, "paused_ms");
  report(o, figures);
}

}  // namespace buzz::load

// The floor under ingest; see ingest_floor.h.
#include "tools/load/ingest_floor.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engine/event_record.h"
#include "engine/hex.h"
#include "engine/rocks_database.h"
#include "engine/signature.h"
#include "net/websocket.h"

namespace buzz::load {
namespace {

std::atomic<bool> g_stop{false};

struct Conn {
  int fd = -1;
  std::string in;  // received, not yet a whole frame
};

// One received event, verified, waiting for the writer.
struct Item {
  Conn* conn = nullptr;
  bool valid = false;
  engine::Id id;
  engine::Pubkey pubkey;
  uint64_t created_at = 0;
  uint16_t kind = 0;
  char tag_name = 0;
  size_t tag_at = 0, tag_len = 0;  // the tag's value in raw
  std::string raw;
  std::string_view tag_value() const { return std::string_view(raw).substr(tag_at, tag_len); }
};

class Writer {
 public:
  explicit Writer(engine::RocksDatabase& db) : db_(db) {}

  void push(Item&& item) {
    bool wake;
    {
      std::lock_guard lock(mu_);
      wake = queue_.empty();
      queue_.push_back(std::move(item));
    }
    if (wake) cv_.notify_one();
  }

  void run() {
    std::vector<Item> items;
    std::unordered_map<Conn*, std::string> oks;
    while (!g_stop.load()) {
      {
        std::unique_lock lock(mu_);
        cv_.wait_for(lock, std::chrono::milliseconds(100), [&] { return !queue_.empty(); });
        items.swap(queue_);
      }
      if (items.empty()) continue;
      write(items);
      for (const Item& it : items) {
        std::string ok = "[\"OK\",\"" + engine::to_hex(it.id) + (it.valid ? "\",true,\"\"]" : "\",false,\"invalid: bad signature\"]");
        uint8_t header[net::ws::kMaxHeaderBytes];
        const size_t n = net::ws::encode_header(header, net::ws::Opcode::kText, ok.size());
        std::string& out = oks[it.conn];
        out.append(reinterpret_cast<const char*>(header), n).append(ok);
      }
      for (auto& [conn, bytes] : oks) send_all(conn->fd, bytes);
      oks.clear();
      items.clear();
    }
  }

 private:
  // The record, its id entry and its index entries, as the relay's store
  // writes them for a kind-1 event with one tag: seven keys.
  void write(const std::vector<Item>& items) {
    rocksdb::WriteBatch wb;
    std::string suffix, key, value, kind_value;
    for (const Item& it : items) {
      if (!it.valid) continue;
      suffix.clear();
      engine::put_key_suffix(&suffix, it.created_at, it.id.data());
      kind_value.clear();
      engine::put_u16(&kind_value, it.kind);
      value.clear();
      value.push_back(char(engine::kRecordVersion));
      value.push_back(0);
      value.append(reinterpret_cast<const char*>(it.id.data()), 32);
      value.append(reinterpret_cast<const char*>(it.pubkey.data()), 32);
      engine::put_u64(&value, it.created_at);
      engine::put_u16(&value, it.kind);
      engine::put_u16(&value, 0);
      engine::put_u32(&value, 1);
      value.push_back(it.tag_name);
      engine::put_u32(&value, uint32_t(it.tag_value().size()));
      value.append(it.tag_value());
      value.append(it.raw);
      const auto fam = engine::StorageFamily::kRegular;
      (void)wb.Put(db_.events(fam), engine::record_key(it.created_at, it.id.data()), value);
      (void)wb.Put(db_.family(engine::Family::kEventIds),
                   rocksdb::Slice(reinterpret_cast<const char*>(it.id.data()), 32),
                   engine::event_id_entry(fam, it.created_at));
      auto index = [&](engine::Family f, std::string prefix) {
        key = std::move(prefix);
        key += suffix;
        (void)wb.Put(db_.family(f), key, kind_value);
      };
      index(engine::Family::kIndexTime, {});
      index(engine::Family::kIndexKind, engine::kind_prefix(it.kind));
      index(engine::Family::kIndexAuthor, engine::author_prefix(it.pubkey.data()));
      index(engine::Family::kIndexAuthorKind, engine::author_kind_prefix(it.pubkey.data(), it.kind));
      index(engine::Family::kIndexTag, engine::tag_prefix(it.tag_name, it.tag_value()));
    }
    rocksdb::Status s = db_.db()->Write(db_.write_options(), &wb);
    if (!s.ok()) {
      std::fprintf(stderr, "ingest floor: write failed: %s\n", s.ToString().c_str());
      std::exit(1);
    }
  }

  static void send_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n > 0) {
        bytes.remove_prefix(size_t(n));
      } else if (n < 0 && errno == EAGAIN) {
        pollfd p{fd, POLLOUT, 0};
        ::poll(&p, 1, 100);
      } else {
        return;  // the client is gone
      }
    }
  }

  engine::RocksDatabase& db_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Item> queue_;
};

// The value after `"key":` in the load's own frames (no parser: they are
// always `{"id":"…","pubkey":"…","created_at":N,"kind":N,"tags":[["t","…"]],…,"sig":"…"}`).
std::string_view after(std::string_view json, std::string_view key) {
  const size_t at = json.find(key);
  return at == std::string_view::npos ? std::string_view{} : json.substr(at + key.size());
}

// One text frame's payload: `["EVENT",{…}]`.
void on_event(Conn* conn, std::string_view frame, Writer& writer) {
  Item it;
  it.conn = conn;
  const std::string_view id = after(frame, "\"id\":\""), pubkey = after(frame, "\"pubkey\":\""),
                         sig = after(frame, "\"sig\":\""), tag = after(frame, "\"tags\":[[\"");
  engine::Sig s;
  if (id.size() < 64 || pubkey.size() < 64 || sig.size() < 128 || tag.size() < 5 ||
      !engine::from_hex(id.substr(0, 64), &it.id) || !engine::from_hex(pubkey.substr(0, 64), &it.pubkey) ||
      !engine::from_hex(sig.substr(0, 128), &s)) {
    std::fprintf(stderr, "ingest floor: not a load frame\n");
    std::exit(1);
  }
  it.created_at = std::strtoull(after(frame, "\"created_at\":").data(), nullptr, 10);
  it.kind = uint16_t(std::strtoul(after(frame, "\"kind\":").data(), nullptr, 10));
  it.valid = engine::verify_signature(it.id, it.pubkey, s);
  // The record keeps the event's JSON, without the ["EVENT", … ] around it.
  it.raw.assign(frame.substr(9, frame.size() - 10));
  const size_t t = it.raw.find("\"tags\":[[\"") + 10;
  it.tag_name = it.raw[t];
  it.tag_at = t + 4;
  it.tag_len = it.raw.find('"', it.tag_at) - it.tag_at;
  writer.push(std::move(it));
}

// Unmasks and hands on every whole frame in conn->in.
void on_readable(Conn* conn, Writer& writer) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::recv(conn->fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    conn->in.append(buf, size_t(n));
  }
  size_t at = 0;
  for (;;) {
    net::ws::FrameHeader h;
    auto* data = reinterpret_cast<uint8_t*>(conn->in.data() + at);
    const size_t len = conn->in.size() - at;
    if (net::ws::parse_header(data, len, &h) != net::ws::HeaderStatus::kOk || len < h.header_len + h.payload_len) break;
    uint8_t* payload = data + h.header_len;
    net::ws::apply_mask(payload, h.payload_len, h.mask);
    if (h.opcode == net::ws::Opcode::kText) {
      on_event(conn, std::string_view(reinterpret_cast<char*>(payload), h.payload_len), writer);
    }
    at += h.header_len + h.payload_len;
  }
  conn->in.erase(0, at);
}

// The HTTP upgrade, answered on the accepting thread (once per connection).
bool handshake(int fd) {
  std::string head;
  char buf[4096];
  while (head.find("\r\n\r\n") == std::string::npos) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    head.append(buf, size_t(n));
  }
  const std::string_view key = after(head, "Sec-WebSocket-Key: ");
  const std::string reply = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            "Sec-WebSocket-Accept: " + net::ws::accept_key(key.substr(0, key.find('\r'))) + "\r\n\r\n";
  return ::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL) == ssize_t(reply.size());
}

}  // namespace

int serve_ingest_floor(uint16_t port, const std::string& data_dir) {
  signal(SIGTERM, [](int) { g_stop = true; });
  engine::DatabaseOptions options;
  options.sync_writes = true;  // the relay's default: one fsync per writer batch
  auto db = engine::RocksDatabase::open(data_dir + "/db", options);
  if (!db) {
    std::fprintf(stderr, "ingest floor: %s\n", db.error().c_str());
    return 1;
  }
  Writer writer(**db);
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listener, 128) != 0) {
    std::fprintf(stderr, "ingest floor: cannot listen on port %u\n", unsigned(port));
    return 1;
  }
  // One loop per core, as the relay runs.
  const unsigned loops = std::max(1u, std::thread::hardware_concurrency());
  std::vector<int> epolls;
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < loops; ++i) {
    const int ep = ::epoll_create1(0);
    epolls.push_back(ep);
    threads.emplace_back([ep, i, &writer] {
      pthread_setname_np(pthread_self(), ("floor-loop-" + std::to_string(i)).c_str());
      epoll_event ready[64];
      while (!g_stop.load()) {
        const int n = ::epoll_wait(ep, ready, 64, 100);
        for (int k = 0; k < n; ++k) on_readable(static_cast<Conn*>(ready[k].data.ptr), writer);
      }
    });
  }
  threads.emplace_back([&writer] {
    pthread_setname_np(pthread_self(), "floor-store");
    writer.run();
  });
  std::vector<std::unique_ptr<Conn>> conns;
  pollfd p{listener, POLLIN, 0};
  while (!g_stop.load()) {
    if (::poll(&p, 1, 100) <= 0) continue;
    const int fd = ::accept(listener, nullptr, nullptr);
    if (fd < 0 || !handshake(fd)) {
      if (fd >= 0) ::close(fd);
      continue;
    }
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::fcntl(fd, F_SETFL, O_NONBLOCK);
    auto conn = std::make_unique<Conn>();
    conn->fd = fd;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLET;
    ev.data.ptr = conn.get();
    ::epoll_ctl(epolls[conns.size() % loops], EPOLL_CTL_ADD, fd, &ev);
    conns.push_back(std::move(conn));
  }
  for (auto& t : threads) t.join();
  for (auto& c : conns) ::close(c->fd);
  ::close(listener);
  for (int ep : epolls) ::close(ep);
  return 0;
}

}  // namespace buzz::load

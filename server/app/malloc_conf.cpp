// jemalloc's options for the relay, read at its first allocation; MALLOC_CONF in
// the environment still overrides them.
//
// By default jemalloc keeps freed pages resident for 10 s and returns them only
// when the same arena next allocates, so a thread that goes quiet after a burst
// (a loop, a memtable flush) holds its pages: in the 10-minute soak that retention
// swung RSS by 8–31 MiB with each flush and compaction. A background thread that
// returns them after about a second holds it at 8–11 MiB (docs/performance.md,
// the soak), for about 0.5 % of the relay's CPU.
extern "C" {
const char* malloc_conf = "background_thread:true,dirty_decay_ms:1000";
}

// DocColumns: the created_at and kind of every document, by CLucene document
// number, as one SearchSnapshot sees them (search_snapshot.h says why they exist).
//
// Successive snapshots share one append-only storage: a snapshot reads only
// its first size() entries, and the next one is made by writing the added
// documents just past them, in place while capacity lasts (growing by half when
// it runs out). So a commit costs what it adds, not the size of the index.
// Invariant: extended() is called only on the newest published view of a
// storage, by one thread at a time (the index writer), so it never writes an
// entry a live view can read.
//
// Six bytes a document, held for every document in the index, so they are the
// one part of the relay's memory that grows with the messages it stores. A
// created_at takes 32 bits: live events are within minutes of now (the ingest
// clock check), so only an imported one from past 2106 needs more; those keep
// their value in a short list beside the column, copied on write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "engine/hex.h"

namespace buzz::index {

// A document added since the last snapshot, in add order.
struct AddedDocument {
  engine::Id id{};
  uint64_t created_at = 0;
  uint16_t kind = 0;
};

class DocColumns {
 public:
  DocColumns() = default;
  // Columns read back in full (from the postings).
  DocColumns(const std::vector<uint64_t>& created_at, const std::vector<uint16_t>& kind);

  size_t size() const { return size_; }
  uint64_t created_at(size_t doc) const {
    const uint32_t t = storage_->created_at[doc];
    return t != kWide ? t : wide_created_at(doc);
  }
  uint16_t kind(size_t doc) const { return storage_->kind[doc]; }

  // These columns followed by the added documents.
  DocColumns extended(std::span<const AddedDocument> added) const;

 private:
  // The column's mark for a created_at kept in wide_ (itself included).
  static constexpr uint32_t kWide = UINT32_MAX;
  struct Storage {
    explicit Storage(size_t capacity);
    size_t capacity;
    std::unique_ptr<uint32_t[]> created_at;
    std::unique_ptr<uint16_t[]> kind;
  };
  // (document, created_at) in document order, for the column's kWide entries.
  using WideValues = std::vector<std::pair<size_t, uint64_t>>;

  uint64_t wide_created_at(size_t doc) const;
  // Writes entry `doc` of the storage. A created_at that does not fit goes to
  // `wide`, a copy of wide_ made on the first such entry; the caller then
  // publishes it as wide_ (older views keep reading the list they hold).
  void put(size_t doc, uint64_t created_at, uint16_t kind, std::unique_ptr<WideValues>* wide);
  void publish(std::unique_ptr<WideValues> wide);

  std::shared_ptr<Storage> storage_;
  std::shared_ptr<const WideValues> wide_;  // null while none
  size_t size_ = 0;
};

}  // namespace buzz::index

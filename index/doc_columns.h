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
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
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
  uint64_t created_at(size_t doc) const { return storage_->created_at[doc]; }
  uint16_t kind(size_t doc) const { return storage_->kind[doc]; }

  // These columns followed by the added documents.
  DocColumns extended(std::span<const AddedDocument> added) const;

 private:
  struct Storage {
    explicit Storage(size_t capacity);
    size_t capacity;
    std::unique_ptr<uint64_t[]> created_at;
    std::unique_ptr<uint16_t[]> kind;
  };
  std::shared_ptr<Storage> storage_;
  size_t size_ = 0;
};

}  // namespace buzz::index

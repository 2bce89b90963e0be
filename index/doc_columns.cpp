// Append-only per-document columns shared by snapshots; see doc_columns.h.
#include "index/doc_columns.h"

#include <algorithm>

namespace buzz::index {
namespace {

constexpr size_t kMinCapacity = 1024;

size_t grown(size_t needed) { return std::max(kMinCapacity, needed + needed / 2); }

}  // namespace

DocColumns::Storage::Storage(size_t capacity)
    : capacity(capacity), created_at(new uint64_t[capacity]), kind(new uint16_t[capacity]) {}

DocColumns::DocColumns(const std::vector<uint64_t>& created_at, const std::vector<uint16_t>& kind)
    : storage_(std::make_shared<Storage>(grown(created_at.size()))), size_(created_at.size()) {
  std::copy(created_at.begin(), created_at.end(), storage_->created_at.get());
  std::copy(kind.begin(), kind.end(), storage_->kind.get());
}

DocColumns DocColumns::extended(std::span<const AddedDocument> added) const {
  const size_t needed = size_ + added.size();
  DocColumns out;
  if (storage_ && needed <= storage_->capacity) {
    out.storage_ = storage_;  // entries past size_ are read by no live view
  } else {
    out.storage_ = std::make_shared<Storage>(grown(needed));
    if (size_ > 0) {
      std::copy_n(storage_->created_at.get(), size_, out.storage_->created_at.get());
      std::copy_n(storage_->kind.get(), size_, out.storage_->kind.get());
    }
  }
  for (size_t i = 0; i < added.size(); ++i) {
    out.storage_->created_at[size_ + i] = added[i].created_at;
    out.storage_->kind[size_ + i] = added[i].kind;
  }
  out.size_ = needed;
  return out;
}

}  // namespace buzz::index

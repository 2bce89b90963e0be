// Append-only per-document columns shared by snapshots; see doc_columns.h.
#include "index/doc_columns.h"

#include <algorithm>

namespace buzz::index {
namespace {

constexpr size_t kMinCapacity = 1024;

size_t grown(size_t needed) { return std::max(kMinCapacity, needed + needed / 2); }

}  // namespace

DocColumns::Storage::Storage(size_t capacity)
    : capacity(capacity), created_at(new uint32_t[capacity]), kind(new uint16_t[capacity]) {}

DocColumns::DocColumns(const std::vector<uint64_t>& created_at, const std::vector<uint16_t>& kind)
    : storage_(std::make_shared<Storage>(grown(created_at.size()))), size_(created_at.size()) {
  std::unique_ptr<WideValues> wide;
  for (size_t doc = 0; doc < size_; ++doc) put(doc, created_at[doc], kind[doc], &wide);
  publish(std::move(wide));
}

void DocColumns::put(size_t doc, uint64_t created_at, uint16_t kind, std::unique_ptr<WideValues>* wide) {
  storage_->kind[doc] = kind;
  if (created_at < kWide) {
    storage_->created_at[doc] = uint32_t(created_at);
    return;
  }
  storage_->created_at[doc] = kWide;
  if (!*wide) *wide = std::make_unique<WideValues>(wide_ ? *wide_ : WideValues{});
  (*wide)->emplace_back(doc, created_at);
}

void DocColumns::publish(std::unique_ptr<WideValues> wide) {
  if (wide) wide_ = std::move(wide);
}

uint64_t DocColumns::wide_created_at(size_t doc) const {
  auto it = std::lower_bound(wide_->begin(), wide_->end(), std::pair<size_t, uint64_t>(doc, 0));
  return it->second;
}

DocColumns DocColumns::extended(std::span<const AddedDocument> added) const {
  const size_t needed = size_ + added.size();
  DocColumns out;
  out.wide_ = wide_;
  if (storage_ && needed <= storage_->capacity) {
    out.storage_ = storage_;  // entries past size_ are read by no live view
  } else {
    out.storage_ = std::make_shared<Storage>(grown(needed));
    if (size_ > 0) {
      std::copy_n(storage_->created_at.get(), size_, out.storage_->created_at.get());
      std::copy_n(storage_->kind.get(), size_, out.storage_->kind.get());
    }
  }
  std::unique_ptr<WideValues> wide;
  for (size_t i = 0; i < added.size(); ++i) out.put(size_ + i, added[i].created_at, added[i].kind, &wide);
  out.publish(std::move(wide));
  out.size_ = needed;
  return out;
}

}  // namespace buzz::index

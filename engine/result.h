// Result<T>: a value or a reason, for failures that cross a module boundary.
//
// The reason is the client-facing text with its NIP-01 prefix already attached
// ("invalid: …", "restricted: …"), so a handler can put it on the wire as is.
// Exceptions are for start-up and configuration only; everything after start-up
// returns one of these.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace buzz::engine {

struct Error {
  std::string reason;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const std::string& error() const { return std::get<1>(v_).reason; }

 private:
  std::variant<T, Error> v_;
};

// Status is a Result without a value.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : reason_(std::move(error.reason)), ok_(false) {}
  static Status ok_status() { return Status(); }
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const std::string& error() const { return reason_; }

 private:
  std::string reason_;
  bool ok_ = true;
};

}  // namespace buzz::engine

// Overloaded: one visitor out of several lambdas, for std::visit over a variant
// whose every alternative must be handled (a missing one does not compile).
#pragma once

namespace buzz::server {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace buzz::server

// `std::visit(Overloaded{[](const A&) {...}, [](const B&) {...}}, v)`: one
// lambda per alternative, for the client's visits over messages and events.
#pragma once

namespace gofish::cli {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace gofish::cli

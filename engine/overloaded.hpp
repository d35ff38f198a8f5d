// `std::visit(Overloaded{[](const A&) {...}, [](const B&) {...}}, v)`: one
// lambda per alternative. Every layer visits variants (events, decisions,
// messages), so this one helper lives at the bottom, in engine/.
#pragma once

namespace gofish {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace gofish

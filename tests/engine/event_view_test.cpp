// engine::EventView: the view a client rebuilds from the events it is sent
// equals view_of, legal decisions included, for every seat and a spectator,
// after every decision of whole games of every preset, with and without
// table rules; also when it starts from a snapshot's view part-way through.
#include <doctest/doctest.h>

#include <optional>
#include <variant>
#include <vector>

#include "engine/event_view.hpp"
#include "engine/game.hpp"
#include "engine/random.hpp"
#include "engine/rules.hpp"
#include "engine/setup.hpp"
#include "engine/view.hpp"

using namespace gofish::engine;

namespace {

Viewer viewer_of(int index, int players) { return index < players ? Viewer::of(index) : Viewer::spectator(); }

}  // namespace

TEST_CASE("event view: rebuilt from a viewer's events, it is view_of after every decision") {
  Rng rng(20261125);
  int decisions = 0;
  int resumed = 0;
  for (const auto name : preset_names()) {
    for (const bool table_rules : {false, true}) {
      Rules rules = *preset(name);
      rules.table_rules = table_rules;
      CAPTURE(name);
      CAPTURE(table_rules);
      for (int players = 2; players <= kMaxSeats; ++players) {
        if (validate(rules, players)) continue;
        CAPTURE(players);
        const DealSetup setup = prepare_deal(rules, players, rng);
        auto started = Game::start(rules, players, setup.deck, setup.dealer, setup.first);
        REQUIRE(std::holds_alternative<Game>(started));
        Game& game = std::get<Game>(started);
        // Seats 0..players-1, then a spectator; one more for seat 0 that
        // joins from a snapshot part-way through.
        std::vector<EventView> views;
        for (int i = 0; i <= players; ++i) views.emplace_back(rules, viewer_of(i, players), players);
        std::optional<EventView> late;
        const auto feed = [&] {
          for (const Event& event : game.last_events()) {
            for (int i = 0; i <= players; ++i) views[static_cast<std::size_t>(i)].apply(event_for(event, viewer_of(i, players)));
            if (late) late->apply(event_for(event, Viewer::of(0)));
          }
          for (int i = 0; i <= players; ++i) {
            CAPTURE(i);
            REQUIRE(views[static_cast<std::size_t>(i)].view() == view_of(game, viewer_of(i, players)));
          }
          if (late) REQUIRE(late->view() == view_of(game, Viewer::of(0)));
        };
        feed();
        for (int step = 0; !game.over(); ++step) {
          REQUIRE(step < 3000);
          if (step == 10) {
            late.emplace(rules, view_of(game, Viewer::of(0)));
            ++resumed;
          }
          const auto legal = game.legal(game.to_act()).list();
          REQUIRE(!legal.empty());
          REQUIRE(!game.apply(legal[rng.below(static_cast<std::uint32_t>(legal.size()))]));
          ++decisions;
          feed();
        }
        int laid = 0;
        for (int s = 0; s < players; ++s) laid += view_of(game, Viewer::of(s)).seats[static_cast<std::size_t>(s)].set_count;
        CHECK(views[0].sets_down() == laid);
      }
    }
  }
  CHECK(decisions > 2000);
  CHECK(resumed > 30);
}

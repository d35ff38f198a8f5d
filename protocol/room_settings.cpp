#include "protocol/room_settings.hpp"

#include <initializer_list>
#include <string>

namespace gofish::protocol::detail {

namespace {

// A field of RoomSettings with its wire name.
struct BoolField {
  std::string_view name;
  bool RoomSettings::*member;
  void write(const RoomSettings& s, nlohmann::ordered_json& out) const { out[name] = s.*member; }
  void read(Reader& r, RoomSettings& s, const ParseLimits&, bool in_request) const {
    if (in_request) {
      if (auto value = r.boolean(name)) s.*member = *value;
    } else {
      s.*member = r.required_boolean(name);
    }
  }
};

template <class Enum>
struct EnumField {
  std::string_view name;
  Enum RoomSettings::*member;
  std::initializer_list<Enum> values;
  void write(const RoomSettings& s, nlohmann::ordered_json& out) const { out[name] = to_string(s.*member); }
  void read(Reader& r, RoomSettings& s, const ParseLimits&, bool in_request) const {
    const auto text = in_request ? r.string(name, 32) : std::optional(r.required_string(name, 32));
    if (!text || r.failed()) return;
    for (Enum value : values) {
      if (to_string(value) == *text) {
        s.*member = value;
        return;
      }
    }
    std::string allowed;
    for (Enum value : values) allowed += (allowed.empty() ? "\"" : ", \"") + std::string(to_string(value)) + "\"";
    r.fail(name, "\"" + std::string(name) + "\" must be one of " + allowed + ".");
  }
};

// The turn timer: 0 (none) or within the server's bounds.
struct TimerField {
  std::string_view name = "turn_timer_seconds";
  void write(const RoomSettings& s, nlohmann::ordered_json& out) const { out[name] = s.turn_timer_seconds; }
  void read(Reader& r, RoomSettings& s, const ParseLimits& limits, bool in_request) const {
    if (!in_request) {
      s.turn_timer_seconds = static_cast<int>(r.required_integer(name, 0, 24 * 3600));
      return;
    }
    const auto timer = r.integer(name, 0, limits.max_turn_timer_seconds);
    if (!timer) return;
    if (*timer != 0 && *timer < limits.min_turn_timer_seconds) {
      r.fail(name, "\"turn_timer_seconds\" must be 0 (no timer) or from " +
                       std::to_string(limits.min_turn_timer_seconds) + " to " +
                       std::to_string(limits.max_turn_timer_seconds) + ".");
    }
    s.turn_timer_seconds = static_cast<int>(*timer);
  }
};

// Every setting, in the order the wire spells them.
template <class Visit>
void each_field(Visit&& visit) {
  visit(TimerField{});
  visit(BoolField{"spectators", &RoomSettings::spectators});
  visit(BoolField{"listed", &RoomSettings::listed});
  visit(EnumField<ChatMode>{"chat", &RoomSettings::chat, {ChatMode::kFree, ChatMode::kPhrases, ChatMode::kOff}});
  visit(EnumField<BotPace>{"bot_pace", &RoomSettings::bot_pace, {BotPace::kRelaxed, BotPace::kNormal, BotPace::kQuick}});
}

}  // namespace

void write_settings_fields(const RoomSettings& settings, nlohmann::ordered_json& out) {
  each_field([&](const auto& field) { field.write(settings, out); });
}

void read_settings_fields(Reader& reader, RoomSettings& settings, const ParseLimits& limits, bool in_request) {
  each_field([&](const auto& field) {
    if (!reader.failed()) field.read(reader, settings, limits, in_request);
  });
}

}  // namespace gofish::protocol::detail

namespace gofish::protocol {

std::string_view to_string(BotPace pace) {
  switch (pace) {
    case BotPace::kRelaxed: return "relaxed";
    case BotPace::kQuick: return "quick";
    case BotPace::kNormal: break;
  }
  return "normal";
}

}  // namespace gofish::protocol

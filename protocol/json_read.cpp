#include "protocol/json_read.hpp"

#include <cmath>

#include "protocol/rules_json.hpp"

namespace gofish::protocol::detail {
namespace {

std::string quoted(std::string_view key) { return "\"" + std::string(key) + "\""; }

std::string range_sentence(std::string_view key, std::int64_t min, std::int64_t max) {
  return quoted(key) + " must be a whole number from " + std::to_string(min) + " to " + std::to_string(max) + ".";
}

}  // namespace

Reader::Reader(const Json& object) : object_(object) {
  if (!object_.is_object()) fail("", "A message must be a JSON object.");
}

const Json* Reader::get(std::string_view key) const {
  if (!object_.is_object()) return nullptr;
  const auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<std::int64_t> as_integer(const Json& value, std::int64_t min, std::int64_t max) {
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (max < 0 || u > static_cast<std::uint64_t>(max)) return std::nullopt;
    const auto i = static_cast<std::int64_t>(u);
    if (i < min) return std::nullopt;
    return i;
  }
  if (value.is_number_integer()) {
    const auto i = value.get<std::int64_t>();
    if (i < min || i > max) return std::nullopt;
    return i;
  }
  return std::nullopt;
}

std::optional<std::string> as_string(const Json& value, std::size_t max_bytes) {
  if (!value.is_string()) return std::nullopt;
  const auto* s = value.get_ptr<const std::string*>();
  if (s == nullptr || s->size() > max_bytes) return std::nullopt;
  return *s;
}

std::optional<std::int64_t> Reader::integer(std::string_view key, std::int64_t min, std::int64_t max) {
  if (failed()) return std::nullopt;
  const Json* value = get(key);
  if (value == nullptr) return std::nullopt;
  const auto i = as_integer(*value, min, max);
  if (!i) fail(key, range_sentence(key, min, max));
  return i;
}

std::optional<double> Reader::number(std::string_view key, double min, double max) {
  if (failed()) return std::nullopt;
  const Json* value = get(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number()) {
    fail(key, quoted(key) + " must be a number.");
    return std::nullopt;
  }
  const double d = value->get<double>();
  if (!std::isfinite(d) || d < min || d > max) {
    fail(key, quoted(key) + " is out of range.");
    return std::nullopt;
  }
  return d;
}

std::optional<bool> Reader::boolean(std::string_view key) {
  if (failed()) return std::nullopt;
  const Json* value = get(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_boolean()) {
    fail(key, quoted(key) + " must be true or false.");
    return std::nullopt;
  }
  return value->get<bool>();
}

std::optional<std::string> Reader::string(std::string_view key, std::size_t max_bytes) {
  if (failed()) return std::nullopt;
  const Json* value = get(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) {
    fail(key, quoted(key) + " must be a string.");
    return std::nullopt;
  }
  auto s = as_string(*value, max_bytes);
  if (!s) fail(key, quoted(key) + " is too long.");
  return s;
}

const Json* Reader::object(std::string_view key) {
  if (failed()) return nullptr;
  const Json* value = get(key);
  if (value == nullptr) return nullptr;
  if (!value->is_object()) {
    fail(key, quoted(key) + " must be an object.");
    return nullptr;
  }
  return value;
}

const Json* Reader::array(std::string_view key, std::size_t max_items) {
  if (failed()) return nullptr;
  const Json* value = get(key);
  if (value == nullptr) return nullptr;
  if (!value->is_array()) {
    fail(key, quoted(key) + " must be an array.");
    return nullptr;
  }
  if (value->size() > max_items) {
    fail(key, quoted(key) + " can hold " + std::to_string(max_items) + " items at most.");
    return nullptr;
  }
  return value;
}

bool Reader::missing(std::string_view key) {
  if (failed()) return true;
  if (get(key) != nullptr) return false;
  fail(key, quoted(key) + " is missing.");
  return true;
}

std::int64_t Reader::required_integer(std::string_view key, std::int64_t min, std::int64_t max) {
  if (missing(key)) return min;
  return integer(key, min, max).value_or(min);
}

bool Reader::required_boolean(std::string_view key) {
  if (missing(key)) return false;
  return boolean(key).value_or(false);
}

std::string Reader::required_string(std::string_view key, std::size_t max_bytes) {
  if (missing(key)) return {};
  return string(key, max_bytes).value_or(std::string());
}

const Json& Reader::required_object(std::string_view key) {
  static const Json kEmpty = Json::object();
  if (missing(key)) return kEmpty;
  const Json* value = object(key);
  return value != nullptr ? *value : kEmpty;
}

const Json& Reader::required_array(std::string_view key, std::size_t max_items) {
  static const Json kEmpty = Json::array();
  if (missing(key)) return kEmpty;
  const Json* value = array(key, max_items);
  return value != nullptr ? *value : kEmpty;
}

void Reader::fail(ErrorCode code, std::string_view field, std::string message) {
  if (failed()) return;
  Error error = make_error(code, std::move(message));
  if (!field.empty()) error.field = std::string(field);
  error_ = std::move(error);
}

void Reader::fail(const Error& error) {
  if (!failed()) error_ = error;
}

std::string quote_untrusted(std::string_view text, std::size_t max) {
  std::string out;
  for (char c : text) {
    if (out.size() == max) {
      out += "...";
      break;
    }
    out += (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') ? c : '?';
  }
  return out;
}

bool valid_string_id(std::string_view text, std::size_t max_bytes) {
  if (text.empty() || text.size() > max_bytes) return false;
  for (char c : text) {
    if (c < 0x20 || c >= 0x7F) return false;
  }
  return true;
}

int nesting_depth(std::string_view text, int limit) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        ++depth;
        if (depth > deepest) deepest = depth;
        if (deepest > limit) return deepest;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return deepest;
}

engine::Rules read_rules(Reader& r) {
  const Json* rules = r.get("rules");
  if (rules == nullptr || r.failed()) return *engine::preset("classic");
  if (!rules->is_object()) {
    r.fail(ErrorCode::kRoomBadRules, "rules", "\"rules\" must be an object: a \"preset\" and any fields changed from it.");
    return *engine::preset("classic");
  }
  auto parsed = rules_from_json(*rules);
  if (auto* error = std::get_if<engine::ConfigError>(&parsed)) {
    r.fail(rules_error(*error));
    return *engine::preset("classic");
  }
  return std::get<engine::Rules>(std::move(parsed));
}

}  // namespace gofish::protocol::detail

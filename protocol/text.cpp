#include "protocol/text.hpp"

#include <vector>

namespace gofish::protocol {
namespace {

// Decodes UTF-8 strictly (no overlong forms, no surrogates, nothing above
// U+10FFFF). Returns false on the first invalid sequence.
bool decode_utf8(std::string_view text, std::vector<char32_t>& out) {
  out.clear();
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    char32_t cp = 0;
    std::size_t len = 0;
    char32_t min = 0;
    if (b0 < 0x80) {
      cp = b0;
      len = 1;
    } else if ((b0 & 0xE0U) == 0xC0U) {
      cp = b0 & 0x1FU;
      len = 2;
      min = 0x80;
    } else if ((b0 & 0xF0U) == 0xE0U) {
      cp = b0 & 0x0FU;
      len = 3;
      min = 0x800;
    } else if ((b0 & 0xF8U) == 0xF0U) {
      cp = b0 & 0x07U;
      len = 4;
      min = 0x10000;
    } else {
      return false;
    }
    if (i + len > text.size()) return false;
    for (std::size_t k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      if ((b & 0xC0U) != 0x80U) return false;
      cp = (cp << 6) | (b & 0x3FU);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    out.push_back(cp);
    i += len;
  }
  return true;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool is_space(char32_t cp) {
  return cp == U' ' || cp == U'\t' || cp == U'\n' || cp == U'\r' || cp == U'\v' || cp == U'\f' || cp == 0xA0 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

// Characters that must not reach another person's screen inside a name or a
// chat line: C0 and C1 controls, zero-width space and byte-order mark (hide
// text), line and paragraph separators, and bidirectional marks, embeddings,
// overrides and isolates (reorder text). The zero-width joiner stays: emoji
// sequences need it.
bool is_forbidden(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x200B || cp == 0x200E || cp == 0x200F ||
         cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ||
         cp == 0xFEFF;
}

std::string_view trim_ascii(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

std::size_t trim_start(const std::vector<char32_t>& cps) {
  std::size_t b = 0;
  while (b < cps.size() && is_space(cps[b])) ++b;
  return b;
}
std::size_t trim_end(const std::vector<char32_t>& cps, std::size_t begin) {
  std::size_t e = cps.size();
  while (e > begin && is_space(cps[e - 1])) --e;
  return e;
}

constexpr std::array<Phrase, 12> kPhrases = {{
    {"hello", "Hello!"},
    {"good_luck", "Good luck!"},
    {"have_fun", "Have fun!"},
    {"nice_catch", "Nice catch!"},
    {"lucky", "Lucky!"},
    {"well_played", "Well played."},
    {"oops", "Oops!"},
    {"thinking", "Let me think..."},
    {"hurry", "Your turn!"},
    {"thanks", "Thanks!"},
    {"good_game", "Good game!"},
    {"rematch", "Rematch?"},
}};

constexpr std::string_view kTokenAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

}  // namespace

bool is_room_code(std::string_view code) {
  if (code.size() != kRoomCodeLength) return false;
  for (char c : code) {
    if (kRoomCodeAlphabet.find(c) == std::string_view::npos) return false;
  }
  return true;
}

std::optional<std::string> normalize_room_code(std::string_view text) {
  text = trim_ascii(text);
  if (text.size() != kRoomCodeLength) return std::nullopt;
  std::string code(text);
  for (char& c : code) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  if (!is_room_code(code)) return std::nullopt;
  return code;
}

std::uint64_t room_code_count() {
  std::uint64_t n = 1;
  for (std::size_t i = 0; i < kRoomCodeLength; ++i) n *= kRoomCodeAlphabet.size();
  return n;
}

std::string room_code_from_index(std::uint64_t index) {
  index %= room_code_count();
  std::string code(kRoomCodeLength, kRoomCodeAlphabet[0]);
  for (std::size_t i = kRoomCodeLength; i-- > 0;) {
    code[i] = kRoomCodeAlphabet[index % kRoomCodeAlphabet.size()];
    index /= kRoomCodeAlphabet.size();
  }
  return code;
}

std::string invite_path(std::string_view code) { return "/r/" + std::string(code); }

std::optional<std::size_t> utf8_length(std::string_view text) {
  std::vector<char32_t> cps;
  if (!decode_utf8(text, cps)) return std::nullopt;
  return cps.size();
}

std::variant<std::string, Error> normalize_name(std::string_view text, const ParseLimits& limits) {
  const auto bad = [](std::string sentence) { return make_error(ErrorCode::kRoomBadName, std::move(sentence)); };
  std::vector<char32_t> cps;
  if (!decode_utf8(text, cps)) return bad("A name must be valid UTF-8 text.");
  const std::size_t begin = trim_start(cps);
  const std::size_t end = trim_end(cps, begin);
  std::string out;
  std::size_t count = 0;
  bool in_space = false;
  for (std::size_t i = begin; i < end; ++i) {
    const char32_t cp = cps[i];
    if (is_space(cp) && cp != U'\t' && cp != U'\n' && cp != U'\r' && cp != U'\v' && cp != U'\f') {
      if (!in_space) {
        out += ' ';
        ++count;
      }
      in_space = true;
      continue;
    }
    in_space = false;
    if (is_forbidden(cp)) return bad("A name cannot contain control or invisible formatting characters.");
    append_utf8(out, cp);
    ++count;
  }
  if (count == 0) return bad("A name cannot be empty.");
  if (count > static_cast<std::size_t>(limits.max_name_chars)) {
    return bad("A name can be " + std::to_string(limits.max_name_chars) + " characters at most.");
  }
  return out;
}

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  const auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::variant<std::string, Error> normalize_chat_text(std::string_view text, const ParseLimits& limits) {
  std::vector<char32_t> cps;
  if (!decode_utf8(text, cps)) return make_error(ErrorCode::kBadMessage, "Chat text must be valid UTF-8.");
  const std::size_t begin = trim_start(cps);
  const std::size_t end = trim_end(cps, begin);
  if (begin == end) return make_error(ErrorCode::kBadMessage, "A chat message cannot be empty.");
  if (end - begin > static_cast<std::size_t>(limits.max_chat_chars)) {
    return make_error(ErrorCode::kChatTooLong, "A chat message can be " + std::to_string(limits.max_chat_chars) +
                                                   " characters at most.");
  }
  std::string out;
  for (std::size_t i = begin; i < end; ++i) {
    if (is_forbidden(cps[i])) {
      return make_error(ErrorCode::kBadMessage, "Chat text cannot contain control or invisible formatting characters.");
    }
    append_utf8(out, cps[i]);
  }
  return out;
}

bool is_token(std::string_view text) {
  if (text.size() != kTokenLength) return false;
  for (char c : text) {
    if (kTokenAlphabet.find(c) == std::string_view::npos) return false;
  }
  return true;
}

std::string token_from_bytes(std::span<const std::uint8_t, kTokenBytes> bytes) {
  std::string out;
  out.reserve(kTokenLength);
  for (std::size_t i = 0; i < kTokenBytes; i += 3) {
    const std::uint32_t group = (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    for (int shift = 18; shift >= 0; shift -= 6) out += kTokenAlphabet[(group >> shift) & 0x3FU];
  }
  return out;
}

std::span<const Phrase> chat_phrases() { return kPhrases; }

const Phrase* find_phrase(std::string_view id) {
  for (const Phrase& p : kPhrases) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

}  // namespace gofish::protocol

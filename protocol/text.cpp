#include "protocol/text.hpp"

#include <unicode/brkiter.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/uspoof.h>

#include <memory>
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

// ------------------------------------------------------------------ names
//
// Display names go through ICU (Unicode's own data, at the version of the
// libicu the server runs with) rather than tables of our own.

// Both are created once and only read afterwards. ICU's NFC instance is a
// process-wide singleton that ICU owns. A USpoofChecker may be used from
// many threads at once through its const functions (uspoof.h, "Thread
// Safety"); it is configured here, before anyone can see it, and freed at
// exit.
const icu::Normalizer2* nfc() {
  static const icu::Normalizer2* const instance = [] {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* normalizer = icu::Normalizer2::getNFCInstance(status);
    return U_SUCCESS(status) ? normalizer : nullptr;
  }();
  return instance;
}

const USpoofChecker* spoof_checker() {
  static const icu::LocalUSpoofCheckerPointer instance = [] {
    UErrorCode status = U_ZERO_ERROR;
    icu::LocalUSpoofCheckerPointer checker(uspoof_open(&status));
    // Only the "invisible" check is used by uspoof_check2: the same
    // non-spacing mark twice on one letter. Skeletons need no checks.
    uspoof_setChecks(checker.getAlias(), USPOOF_INVISIBLE, &status);
    if (U_FAILURE(status)) checker.adoptInstead(nullptr);
    return checker;
  }();
  return instance.getAlias();
}

std::optional<icu::UnicodeString> to_nfc(std::string_view text) {
  const icu::Normalizer2* normalizer = nfc();
  if (normalizer == nullptr) return std::nullopt;
  UErrorCode status = U_ZERO_ERROR;
  icu::UnicodeString out = normalizer->normalize(
      icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), static_cast<std::int32_t>(text.size()))), status);
  if (U_FAILURE(status)) return std::nullopt;
  return out;
}

bool default_ignorable(UChar32 cp) { return u_hasBinaryProperty(cp, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) != 0; }

// Characters Unicode classes as visible symbols that nevertheless draw
// nothing: a braille cell with no dots, and the null notehead of music
// notation. (The Hangul fillers that also draw nothing are default-ignorable
// and refused as such.) Unicode has no property for "renders blank", so this
// is the one short list by hand.
bool blank_symbol(UChar32 cp) { return cp == 0x2800 || cp == 0x1D159; }

// White space a name may have: trimmed at the ends, and a run of it inside
// becomes one space. Spaces (general category Zs) and the ASCII white space
// controls; other line breaks are refused, not trimmed.
bool name_space(UChar32 cp) {
  return u_charType(cp) == U_SPACE_SEPARATOR || cp == U'\t' || cp == U'\n' || cp == U'\r' || cp == U'\v' || cp == U'\f';
}

// Marks, for each UTF-16 unit of `text`, whether it lies inside a grapheme
// cluster that is a whole recommended emoji (UTS #51's RGI_Emoji): the only
// place a default-ignorable character may appear in a name. Emoji sequences
// are built with them (U+200D joins man, woman and girl into one family,
// U+FE0F asks for the emoji form of a heart, tag characters spell the flag of
// Scotland), and there they are drawn as part of one picture rather than
// hidden. (ICU 70 and later know RGI_Emoji.) nullopt if ICU cannot segment
// the text.
std::optional<std::vector<bool>> inside_rgi_emoji(const icu::UnicodeString& text) {
  std::vector<bool> inside(static_cast<std::size_t>(text.length()), false);
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::BreakIterator> graphemes(
      icu::BreakIterator::createCharacterInstance(icu::Locale::getRoot(), status));
  if (U_FAILURE(status) || !graphemes) return std::nullopt;
  graphemes->setText(text);
  const char16_t* units = text.getBuffer();
  for (std::int32_t start = graphemes->first(), end = graphemes->next(); end != icu::BreakIterator::DONE;
       start = end, end = graphemes->next()) {
    if (u_stringHasBinaryProperty(units + start, end - start, UCHAR_RGI_EMOJI)) {
      for (std::int32_t i = start; i < end; ++i) inside[static_cast<std::size_t>(i)] = true;
    }
  }
  return inside;
}

// The comparison keys of a name. NFKC_Casefold (Unicode's normalisation for
// caseless matching: compatibility forms such as fullwidth letters become
// plain ones, case is folded, default-ignorables are dropped) and the UTS #39
// confusable skeleton, in both orders:
//  - skeleton(NFKC_Casefold(name)): "JOSÉ" and "José", "BOB" and "Bob" with
//    a Cyrillic o, "STRASSE" and "Straße", fullwidth and plain letters meet;
//  - skeleton(NFKC_Casefold(skeleton(name))): the confusables table maps
//    capital I to small l but small i to itself, so "Ian" and "lan" only meet
//    when the skeleton is taken before folding.
// nullopt when ICU fails (it cannot, short of running out of memory).
struct NameKeys {
  icu::UnicodeString folded_first;
  icu::UnicodeString skeleton_first;
};

std::optional<NameKeys> name_keys(std::string_view name) {
  const USpoofChecker* checker = spoof_checker();
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* casefold = icu::Normalizer2::getNFKCCasefoldInstance(status);
  if (checker == nullptr || U_FAILURE(status)) return std::nullopt;
  const auto skeleton = [&](const icu::UnicodeString& text) {
    icu::UnicodeString out;
    uspoof_getSkeletonUnicodeString(checker, 0, text, out, &status);
    return out;
  };
  const auto fold = [&](const icu::UnicodeString& text) { return casefold->normalize(text, status); };
  const auto text = icu::UnicodeString::fromUTF8(icu::StringPiece(name.data(), static_cast<std::int32_t>(name.size())));
  NameKeys keys{skeleton(fold(text)), skeleton(fold(skeleton(text)))};
  if (U_FAILURE(status)) return std::nullopt;
  return keys;
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

bool is_event_code(std::string_view code) {
  if (code.size() != kEventCodeLength) return false;
  for (char c : code) {
    if (kRoomCodeAlphabet.find(c) == std::string_view::npos) return false;
  }
  return true;
}

std::optional<std::string> normalize_event_code(std::string_view text) {
  text = trim_ascii(text);
  if (text.size() != kEventCodeLength) return std::nullopt;
  std::string code(text);
  for (char& c : code) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  if (!is_event_code(code)) return std::nullopt;
  return code;
}

std::uint64_t event_code_count() {
  std::uint64_t n = 1;
  for (std::size_t i = 0; i < kEventCodeLength; ++i) n *= kRoomCodeAlphabet.size();
  return n;
}

std::string event_code_from_index(std::uint64_t index) {
  index %= event_code_count();
  std::string code(kEventCodeLength, kRoomCodeAlphabet[0]);
  for (std::size_t i = kEventCodeLength; i-- > 0;) {
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

// In order: valid UTF-8; NFC; white space trimmed and inner runs made one
// space; every remaining character checked (see protocol/README.md, Names);
// at least one letter, digit, punctuation mark or symbol; the length, counted
// on the stored form; no mark repeated on one letter.
std::variant<std::string, Error> normalize_name(std::string_view text, const ParseLimits& limits) {
  const auto bad = [](std::string sentence) { return make_error(ErrorCode::kRoomBadName, std::move(sentence)); };
  std::vector<char32_t> cps;
  if (!decode_utf8(text, cps)) return bad("A name must be valid UTF-8 text.");
  const auto normal = to_nfc(text);
  const USpoofChecker* checker = spoof_checker();
  if (!normal || checker == nullptr) return bad("The server could not check that name.");

  std::int32_t begin = 0;
  std::int32_t end = normal->length();
  while (begin < end && name_space(normal->char32At(begin))) begin = normal->moveIndex32(begin, 1);
  while (end > begin && name_space(normal->char32At(normal->moveIndex32(end, -1)))) end = normal->moveIndex32(end, -1);
  if (begin == end) return bad("A name cannot be empty.");

  std::optional<std::vector<bool>> in_emoji;
  icu::UnicodeString out;
  bool in_space = false;
  bool shows_something = false;
  for (std::int32_t i = begin; i < end;) {
    const UChar32 cp = normal->char32At(i);
    const std::int32_t at = i;
    i += U16_LENGTH(cp);
    if (name_space(cp)) {
      if (u_charType(cp) != U_SPACE_SEPARATOR) return bad("A name cannot contain control characters or line breaks.");
      if (!in_space) out.append(static_cast<UChar32>(U' '));
      in_space = true;
      continue;
    }
    in_space = false;
    const auto category = static_cast<UCharCategory>(u_charType(cp));
    if (default_ignorable(cp)) {
      if (!in_emoji) in_emoji = inside_rgi_emoji(*normal);
      if (!in_emoji || !(*in_emoji)[static_cast<std::size_t>(at)]) {
        return bad("A name cannot contain invisible characters.");
      }
    } else if (category == U_CONTROL_CHAR || category == U_LINE_SEPARATOR || category == U_PARAGRAPH_SEPARATOR) {
      return bad("A name cannot contain control characters or line breaks.");
    } else if (category == U_FORMAT_CHAR) {
      return bad("A name cannot contain invisible characters.");
    } else if (category == U_UNASSIGNED || category == U_PRIVATE_USE_CHAR || category == U_SURROGATE) {
      return bad("A name cannot contain unassigned or private-use characters.");
    } else if (blank_symbol(cp)) {
      return bad("A name cannot contain blank characters.");
    }
    // Letters, numbers, punctuation and symbols draw something; marks need a
    // base, and spaces are spaces.
    const std::uint32_t mask = U_MASK(category);
    if ((mask & (U_GC_L_MASK | U_GC_N_MASK | U_GC_P_MASK | U_GC_S_MASK)) != 0) shows_something = true;
    out.append(cp);
  }
  if (!shows_something) return bad("A name needs at least one letter, digit, punctuation mark or symbol.");
  if (out.countChar32() > limits.max_name_chars) {
    return bad("A name can be " + std::to_string(limits.max_name_chars) + " characters at most.");
  }
  UErrorCode status = U_ZERO_ERROR;
  const std::int32_t failed = uspoof_check2UnicodeString(checker, out, nullptr, &status);
  if (U_FAILURE(status)) return bad("The server could not check that name.");
  if ((failed & USPOOF_INVISIBLE) != 0) return bad("A name cannot repeat a mark on one letter.");
  std::string stored;
  out.toUTF8String(stored);
  return stored;
}

bool same_name(std::string_view a, std::string_view b) {
  if (a == b) return true;
  const auto ka = name_keys(a);
  const auto kb = name_keys(b);
  if (!ka || !kb) return false;
  return ka->folded_first == kb->folded_first || ka->skeleton_first == kb->skeleton_first;
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

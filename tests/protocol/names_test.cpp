// Display names: what normalize_name accepts and stores, and which names
// same_name treats as one (protocol/README.md, Conventions: Names). The
// expectations are written out by hand, character by character, so they do
// not lean on the library the code under test uses; one sweep asks ICU for
// the whole Default_Ignorable_Code_Point set so that none is missed.
#include <doctest/doctest.h>
#include <unicode/uchar.h>

#include <cstdio>
#include <string>
#include <variant>

#include "protocol/text.hpp"

using namespace gofish::protocol;

namespace {

std::string utf8(char32_t cp) {
  std::string out;
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
  return out;
}

std::string hex(char32_t cp) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "U+%04X", static_cast<unsigned>(cp));
  return buffer;
}

// The stored form, or "refused: <sentence>".
std::string outcome(std::string_view name) {
  auto result = normalize_name(name);
  if (const auto* error = std::get_if<Error>(&result)) {
    CHECK(error->code == ErrorCode::kRoomBadName);
    return "refused: " + error->message;
  }
  return std::get<std::string>(result);
}

bool accepted(std::string_view name) { return std::holds_alternative<std::string>(normalize_name(name)); }

}  // namespace

TEST_CASE("a name with an invisible character in it is refused") {
  // Default-ignorable code points (Unicode's DerivedCoreProperties.txt): they
  // draw nothing, so "Bob" with one of them looks exactly like "Bob".
  const char32_t invisible[] = {
      0x00AD,                                      // soft hyphen
      0x034F,                                      // combining grapheme joiner
      0x061C,                                      // Arabic letter mark
      0x115F,  0x1160,                             // Hangul choseong and jungseong fillers
      0x17B4,  0x17B5,                             // Khmer inherent vowels
      0x180B,  0x180E,                             // Mongolian free variation selector, vowel separator
      0x200B,  0x200C,  0x200D,                    // zero-width space, non-joiner, joiner
      0x200E,  0x200F,                             // left-to-right and right-to-left marks
      0x202A,  0x202E,                             // embedding and override
      0x2060,  0x2061,  0x2062,  0x2063,  0x2064,  // word joiner, invisible operators
      0x2066,  0x2069,                             // isolates
      0x206A,  0x206F,                             // deprecated format characters
      0x3164,                                      // Hangul filler
      0xFE00,  0xFE0F,                             // variation selectors
      0xFEFF,                                      // zero-width no-break space (byte-order mark)
      0xFFA0,                                      // halfwidth Hangul filler
      0x1BCA0, 0x1BCA3,                            // shorthand format controls
      0x1D173, 0x1D17A,                            // musical symbol format controls
      0xE0001, 0xE0020, 0xE0041, 0xE007F,          // tags
      0xE0100, 0xE01EF,                            // variation selectors supplement
      0xE0FFF,                                     // reserved default-ignorable
  };
  for (const char32_t cp : invisible) {
    CAPTURE(hex(cp));
    CHECK_FALSE(accepted("Bob" + utf8(cp)));
    CHECK_FALSE(accepted("B" + utf8(cp) + "ob"));
    CHECK_FALSE(accepted(utf8(cp) + "Bob"));
    CHECK_FALSE(accepted(utf8(cp)));
  }
  CHECK(outcome("Bob\u2060") == "refused: A name cannot contain invisible characters.");
}

TEST_CASE("every default-ignorable code point is refused beside a letter") {
  int swept = 0;
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    if (!u_hasBinaryProperty(static_cast<UChar32>(cp), UCHAR_DEFAULT_IGNORABLE_CODE_POINT)) continue;
    ++swept;
    CAPTURE(hex(cp));
    CHECK_FALSE(accepted("Bob" + utf8(cp)));
    CHECK_FALSE(accepted("Bo" + utf8(cp) + "b"));
  }
  // U+00AD, U+034F, U+061C, U+115F..U+1160, ..., U+E0000..U+E0FFF: over four
  // thousand, most of them the reserved tag and selector planes.
  CHECK(swept > 4000);
}

TEST_CASE("a name that shows nothing is refused") {
  CHECK_FALSE(accepted("\u3164"));  // Hangul filler
  CHECK_FALSE(accepted("\u3164\u3164\u3164"));
  CHECK_FALSE(accepted("\u2800"));  // Braille pattern blank: a symbol that draws no dots
  CHECK_FALSE(accepted("\u2800 \u2800"));
  CHECK_FALSE(accepted("\U0001D159"));      // musical symbol null notehead
  CHECK_FALSE(accepted(" \u3000\u00a0 "));  // only white space
  CHECK_FALSE(accepted("\u0301"));          // a combining mark with nothing to sit on
  CHECK_FALSE(accepted("\u0301\u0308"));
  // A blank character beside visible ones still hides: "Bob" and "Bob" with a
  // blank braille cell after it would look the same.
  CHECK_FALSE(accepted("Bob\u2800"));
  CHECK_FALSE(accepted("B\u2800ob"));
  CHECK(outcome("\u2800") == "refused: A name cannot contain blank characters.");
  CHECK(outcome("\u0301") == "refused: A name needs at least one letter, digit, punctuation mark or symbol.");
  // Characters with no agreed look: private use, unassigned, noncharacters,
  // and the format characters that are not default-ignorable.
  CHECK_FALSE(accepted("Bob\ue000"));
  CHECK_FALSE(accepted("Bob\U000F0000"));
  CHECK_FALSE(accepted("Bob\u0378"));
  CHECK_FALSE(accepted("Bob\uffff"));
  CHECK_FALSE(accepted("Bob\ufff9"));
  CHECK_FALSE(accepted("Bob\U00013430"));
  // Controls and line breaks, as before.
  CHECK_FALSE(accepted("Bob\u0085"));
  CHECK_FALSE(accepted("Bob\u2028"));
  CHECK_FALSE(accepted("Bob\u2029"));
  CHECK_FALSE(accepted("Bo\tb"));
}

TEST_CASE("a mark repeated on one letter is refused") {
  // The second acute accent draws over the first: "é" with two looks like "é".
  CHECK_FALSE(accepted("Jose\u0301\u0301"));
  CHECK_FALSE(accepted("Jos\u00e9\u0301"));
  CHECK_FALSE(accepted("Jose\u0301\u0327\u0301"));
  // Different marks on one letter are fine: ệ is e, circumflex, dot below.
  CHECK(outcome("Nguy\u1ec7n") == "Nguy\u1ec7n");
  CHECK(outcome("Nguye\u0323\u0302n") == "Nguy\u1ec7n");
}

TEST_CASE("names are stored in NFC") {
  CHECK(outcome("Jose\u0301") == "Jos\u00e9");
  CHECK(outcome("Jos\u00e9") == "Jos\u00e9");
  CHECK(outcome("\u212bngstr\u00f6m") == "\u00c5ngstr\u00f6m");  // angstrom sign becomes A with ring
  CHECK(outcome("\u1100\u1161\u11a8") == "\uac01");              // conjoining jamo become a syllable
  // The length limit counts the stored form: 24 letters with combining
  // accents (48 code points as sent) fit, 25 do not.
  std::string accents;
  for (int i = 0; i < 24; ++i) accents += "e\u0301";
  CHECK(utf8_length(outcome(accents)) == 24);
  CHECK_FALSE(accepted(accents + "e\u0301"));
  // White space: trimmed, and any inner run of spaces becomes one space.
  CHECK(outcome("  a \u00a0  b ") == "a b");
  CHECK(outcome("\u3000Ann\u2003\u2003Lee\u3000") == "Ann Lee");
}

TEST_CASE("names that look the same are the same name") {
  CHECK(same_name("Bob", "BOB"));
  CHECK(same_name("Ann", "aNN"));
  CHECK(same_name("Bob", "B\u043eb"));            // Cyrillic o
  CHECK(same_name("BOB", "\u0412\u041e\u0412"));  // Cyrillic capitals Ve, O, Ve
  CHECK(same_name("Jos\u00e9", "Jose\u0301"));    // NFC and NFD
  CHECK(same_name("Jos\u00e9", "JOS\u00c9"));
  CHECK(same_name("Jos\u00e9", "JOSE\u0301"));
  CHECK(same_name("Stra\u00dfe", "STRASSE"));                 // full case folding
  CHECK(same_name("\uff22\uff4f\uff42", "Bob"));              // fullwidth letters
  CHECK(same_name("\U0001D401\U0001D428\U0001D41B", "Bob"));  // mathematical bold
  CHECK(same_name("Ian", "lan"));                             // capital I and small L
  CHECK(same_name("B0b", "BOB"));                             // zero and O
  CHECK(same_name("\u2764\ufe0f", "\u2764"));                 // emoji and text presentation of one heart

  CHECK_FALSE(same_name("Ann", "Anne"));
  CHECK_FALSE(same_name("Bob", "Rob"));
  CHECK_FALSE(same_name("Jos\u00e9", "Jose"));  // the accent shows
  CHECK_FALSE(same_name("\u5f20\u4f1f", "\u5f20\u4f20"));
  CHECK_FALSE(same_name("Hard bot", "Hard bot 2"));
  CHECK_FALSE(same_name("\U0001F41F", "\U0001F420"));  // fish, tropical fish
}

TEST_CASE("names in other scripts and emoji") {
  const std::string_view welcome[] = {
      "\u5f20\u4f1f",                          // Chinese
      "\u3055\u304f\u3089",                    // Japanese hiragana
      "\uae40\ubbfc\uc900",                    // Korean
      "\u0645\u062d\u0645\u062f",              // Arabic
      "\u05d3\u05d5\u05d3",                    // Hebrew
      "\u0926\u0947\u0935",                    // Devanagari, with a vowel sign
      "\u0e2a\u0e21\u0e0a\u0e32\u0e22",        // Thai
      "\u0391\u03bb\u03ad\u03be\u03b7\u03c2",  // Greek
      "\u0418\u0432\u0430\u043d",              // Cyrillic
      "\U0001F41F",                            // fish
      "Ann \U0001F41F",
      "\U0001F44D\U0001F3FD",                        // thumbs up, medium skin tone
      "\U0001F1EB\U0001F1F7",                        // flag of France
      "1\ufe0f\u20e3",                               // keycap 1
      "\u2764\ufe0f",                                // red heart, emoji presentation
      "\U0001F468\u200d\U0001F469\u200d\U0001F467",  // family: man, woman, girl (ZWJ sequence)
      "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F",  // flag of Scotland (tags)
      "O'Brien-Smith",
      "...",
  };
  for (const std::string_view name : welcome) {
    CAPTURE(name);
    CHECK(outcome(name) == name);
  }
  // A joiner, selector or tag outside a whole recommended emoji is refused.
  const std::string_view refused[] = {
      "\U0001F41F\u200d",  // a joiner after a fish
      "\u200d\U0001F41F",
      "\U0001F41F\u200d\U0001F41F",  // fish-joiner-fish is no emoji
      "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d",
      "Bob\ufe0f",                 // a selector after a letter
      "\U0001F3F4\U000E0041",      // a tag without its end
      "\u0915\u094d\u200d\u0937",  // Devanagari half form with a joiner
  };
  for (const std::string_view name : refused) {
    CAPTURE(name);
    CHECK_FALSE(accepted(name));
  }
}

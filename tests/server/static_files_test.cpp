// The web client's static files: gzip when the browser takes it and it is
// smaller, a strong ETag per form, 304 for a matching If-None-Match, and a
// file changed on disk served afresh.
#include <doctest/doctest.h>
#include <zlib.h>

#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>

#include "server/edge/static_files.hpp"
#include "temp_dir.hpp"

namespace gofish::server {
namespace {

std::string gunzip(const std::string& data) {
  z_stream stream{};
  REQUIRE(inflateInit2(&stream, 15 + 16) == Z_OK);  // a gzip member, not zlib
  std::string out;
  char buffer[4096];
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  int status = Z_OK;
  while (status == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    status = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - stream.avail_out);
  }
  inflateEnd(&stream);
  if (status != Z_STREAM_END) throw std::runtime_error("not a whole gzip member");
  return out;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string script(int lines) {
  std::string text;
  for (int i = 0; i < lines; ++i) text += "export const line" + std::to_string(i) + " = 'the same words again';\n";
  return text;
}

TEST_CASE("static files: Accept-Encoding") {
  CHECK(accepts_gzip("gzip"));
  CHECK(accepts_gzip("gzip, deflate, br, zstd"));
  CHECK(accepts_gzip("deflate, GZIP;q=0.5"));
  CHECK(accepts_gzip("x-gzip"));
  CHECK(accepts_gzip("*"));
  CHECK_FALSE(accepts_gzip(""));
  CHECK_FALSE(accepts_gzip("identity"));
  CHECK_FALSE(accepts_gzip("br, deflate"));
  CHECK_FALSE(accepts_gzip("gzip;q=0"));
  CHECK_FALSE(accepts_gzip("gzip; q=0.000, br"));
  CHECK_FALSE(accepts_gzip("*, gzip;q=0"));
  CHECK_FALSE(accepts_gzip("*;q=0"));
}

TEST_CASE("static files: If-None-Match") {
  CHECK(etag_matches("\"abc-1\"", "\"abc-1\""));
  CHECK(etag_matches("W/\"abc-1\"", "\"abc-1\""));
  CHECK(etag_matches("\"x\", \"abc-1\"", "\"abc-1\""));
  CHECK(etag_matches("*", "\"abc-1\""));
  CHECK_FALSE(etag_matches("\"abc-2\"", "\"abc-1\""));
  CHECK_FALSE(etag_matches("abc-1", "\"abc-1\""));
  CHECK_FALSE(etag_matches("", "\"abc-1\""));
}

TEST_CASE("static files: gzip compresses and round-trips") {
  const auto text = script(200);
  const auto packed = gzip_compress(text);
  CHECK(packed.size() < text.size() / 5);
  CHECK(packed.substr(0, 2) == std::string("\x1f\x8b"));  // the gzip magic
  CHECK(gunzip(packed) == text);
  CHECK(gunzip(gzip_compress("")).empty());
  CHECK(compressible("a/app.js"));
  CHECK(compressible("index.HTML"));
  CHECK(compressible("engine/gofish-engine.wasm"));  // the WebAssembly engine: 205 KB, 87 KB gzipped
  CHECK_FALSE(compressible("photo.png"));
}

TEST_CASE("static files: 200 gzip or not, 304 for either tag, a changed file anew") {
  testing::TempDir dir("gofish-static");
  const auto file = dir.path / "app.js";
  const auto text = script(100);
  write_file(file, text);
  StaticFiles files;

  const auto zipped = files.answer(file, "gzip, deflate", "");
  REQUIRE(zipped);
  CHECK(zipped->status == 200);
  CHECK(zipped->gzip);
  CHECK(zipped->varies);
  CHECK(gunzip(*zipped->body) == text);
  CHECK(zipped->length == zipped->body->size());
  CHECK(zipped->length < text.size());

  const auto plain = files.answer(file, "", "");
  REQUIRE(plain);
  CHECK(plain->status == 200);
  CHECK_FALSE(plain->gzip);
  CHECK(plain->varies);
  CHECK(*plain->body == text);
  CHECK(plain->etag != zipped->etag);  // two representations, two tags
  CHECK(plain->etag.front() == '"');

  // A revalidation with either tag: 304, no body.
  for (const auto& tag : {zipped->etag, plain->etag, "W/" + zipped->etag}) {
    CAPTURE(tag);
    const auto again = files.answer(file, "gzip", tag);
    REQUIRE(again);
    CHECK(again->status == 304);
    CHECK_FALSE(again->body);
    CHECK(again->etag == zipped->etag);
  }
  CHECK(files.answer(file, "gzip", "\"something-else\"")->status == 200);

  // The file changes on disk (a new size, and a later time): new bytes, a new tag.
  const auto changed = text + "export const more = 1;\n";
  write_file(file, changed);
  std::filesystem::last_write_time(file, std::filesystem::last_write_time(file) + std::chrono::seconds(2));
  const auto fresh = files.answer(file, "gzip", zipped->etag);
  REQUIRE(fresh);
  CHECK(fresh->status == 200);
  CHECK(fresh->etag != zipped->etag);
  CHECK(gunzip(*fresh->body) == changed);

  // Not worth compressing: a tiny file, and a picture.
  write_file(dir.path / "tiny.css", "a{}");
  const auto tiny = files.answer(dir.path / "tiny.css", "gzip", "");
  REQUIRE(tiny);
  CHECK_FALSE(tiny->gzip);
  CHECK_FALSE(tiny->varies);
  CHECK(*tiny->body == "a{}");
  write_file(dir.path / "fish.png", script(50));
  CHECK_FALSE(files.answer(dir.path / "fish.png", "gzip", "")->gzip);

  CHECK_FALSE(files.answer(dir.path / "missing.js", "gzip", ""));
}

}  // namespace
}  // namespace gofish::server

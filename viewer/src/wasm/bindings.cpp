// The wasm module's C interface (emscripten only; docs/viewer.md): three functions over one
// viewer::Session. Strings returned point into a buffer owned here, valid until the next call
// (the page copies them with UTF8ToString at once).
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/inspect/svg.h>
#include <lockstep/viewer/session.h>

#include <emscripten/emscripten.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace {
lockstep::viewer::Session& session() {
  static lockstep::viewer::Session s;
  return s;
}
std::string& answer() {
  static std::string a;
  return a;
}
void setup_once() {
  static bool done = false;
  if (done) return;
  done = true;
  lockstep::fixtures::register_builtin_sims();
  // The fixtures' position fields, as the stock tool marks them (display annotations).
  lockstep::inspect::mark_position("Position", "p");  // skirmish units
  lockstep::inspect::mark_position("Body", "pos");    // duel fighters, the planted sims' bodies
}
}  // namespace

extern "C" {

// `bytes`: a buffer the page malloc'ed and filled; `name`: NUL-terminated UTF-8.
EMSCRIPTEN_KEEPALIVE const char* lv_load(const std::uint8_t* bytes, std::uint32_t size, const char* name) {
  setup_once();
  answer() = session().load(std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes), size), name);
  return answer().c_str();
}

// The tick as two 32-bit halves: a plain JS number crosses the boundary without BigInt.
EMSCRIPTEN_KEEPALIVE const char* lv_seek(std::uint32_t tick_lo, std::uint32_t tick_hi) {
  answer() = session().seek((std::uint64_t{tick_hi} << 32) | tick_lo);
  return answer().c_str();
}

EMSCRIPTEN_KEEPALIVE const char* lv_entity(std::uint32_t side, std::uint32_t slot) {
  answer() = session().entity(side, slot);
  return answer().c_str();
}
}

// Hidden broken sim and state diff for synctest/netsim (rollback_cli.h). Display-only floats.
#include "rollback_cli.h"

#include "common.h"

#include <lockstep/component.h>
#include <lockstep/world.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>

namespace lockstep::cli {

namespace {

struct BrokenInput {
  std::int32_t delta;
};
LOCKSTEP_COMPONENT(BrokenInput, delta);
struct Counter {
  std::int64_t value;
};
LOCKSTEP_COMPONENT(Counter, value);
struct BrokenInputs {
  std::int32_t delta[4];
};
LOCKSTEP_COMPONENT(BrokenInputs, delta);

std::uint64_t g_hidden = 0;  // the deliberate bug: simulation state outside the world

void broken_system(World& w) {
  const BrokenInputs* in = w.resource<BrokenInputs>();
  const std::uint64_t hidden = ++g_hidden;
  (void)w.each<Counter>([&](Entity, Counter& c) {
    c.value = static_cast<std::int64_t>(
        (static_cast<std::uint64_t>(c.value) + static_cast<std::uint64_t>(in->delta[0]) + (hidden & 1u)) & 0xFFFFFFFFu);
  }, Write{});
}

class BrokenBot final : public replay::Bot {
 public:
  explicit BrokenBot(std::uint64_t seed) : state_(seed | 1u) {}
  void generate(std::uint64_t, const World&, std::span<std::byte> out) noexcept override {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    const BrokenInput in{static_cast<std::int32_t>((state_ >> 33) % 7)};
    std::memcpy(out.data(), &in, sizeof in);
  }

 private:
  std::uint64_t state_;
};

class BrokenSim final : public replay::Sim {
 public:
  std::string_view name() const noexcept override { return "broken-static"; }
  std::uint32_t version() const noexcept override { return 1; }
  const TypeDescriptor& input_type() const noexcept override { return describe<BrokenInput>(); }
  WorldConfig world_config(const replay::SimConfig&) const noexcept override {
    WorldConfig c;
    c.max_entities = 64;
    return c;
  }
  Status setup(World& w, replay::SystemList& systems) const noexcept override {
    Status s = w.registerComponent<Counter>();
    if (s.ok()) s = w.registerResource<BrokenInputs>(BrokenInputs{});
    replay::System sys;
    sys.name = "broken";
    sys.run = broken_system;
    sys.reads[0] = "BrokenInputs";
    sys.writes[0] = "Counter";
    if (s.ok()) s = systems.add(sys);
    return s;
  }
  Status init(World& w, const replay::SimConfig&) const noexcept override {
    for (int i = 0; i < 4; ++i) {
      const Status s = w.addComponent(w.create(), Counter{i});
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }
  void apply_inputs(World& w, std::span<const std::byte> inputs) const noexcept override {
    BrokenInputs* in = w.resource<BrokenInputs>();
    *in = BrokenInputs{};
    const std::size_t n = std::min<std::size_t>(inputs.size() / sizeof(BrokenInput), 4);
    for (std::size_t p = 0; p < n; ++p) std::memcpy(&in->delta[p], inputs.data() + p * sizeof(BrokenInput), 4);
  }
  Status check_config(const replay::SimConfig& c) const noexcept override {
    if (c.players < 1 || c.players > 4) return {ErrorCode::InvalidArgument, "broken-static: 1..4 players"};
    return Status::Ok();
  }
  std::unique_ptr<replay::Bot> make_bot(const replay::SimConfig&, std::uint64_t seed, std::uint32_t player) const override {
    return std::make_unique<BrokenBot>(seed * 31 + player);
  }
};

// One element of a field as text (host-order bytes).
std::string element_text(const FieldDescriptor& f, const std::byte* p) {
  std::uint64_t u = 0;  // the element as an unsigned value (host byte order)
  switch (f.element_size) {
    case 1: { std::uint8_t v; std::memcpy(&v, p, 1); u = v; break; }
    case 2: { std::uint16_t v; std::memcpy(&v, p, 2); u = v; break; }
    case 4: { std::uint32_t v; std::memcpy(&v, p, 4); u = v; break; }
    default: std::memcpy(&u, p, 8);
  }
  char buf[64];
  switch (f.kind) {
    case FieldKind::SignedInt: {
      const unsigned bits = 8u * f.element_size;
      std::int64_t s = static_cast<std::int64_t>(u);
      if (bits < 64 && ((u >> (bits - 1)) & 1u) != 0) s = static_cast<std::int64_t>(u | (~std::uint64_t{0} << bits));
      std::snprintf(buf, sizeof buf, "%" PRId64, s);
      break;
    }
    case FieldKind::Fixed:
      std::snprintf(buf, sizeof buf, "%.5f", static_cast<double>(static_cast<std::int64_t>(u)) / 65536.0);
      break;
    case FieldKind::Bool:
      std::snprintf(buf, sizeof buf, "%s", u != 0 ? "true" : "false");
      break;
    default:
      std::snprintf(buf, sizeof buf, "%" PRIu64, u);
  }
  return buf;
}

// Appends field-level differences of one value (component row or resource).
void diff_value(const TypeDescriptor& t, const std::byte* a, const std::byte* b, const std::string& where,
                std::string& out, std::size_t& lines, std::size_t limit) {
  for (std::uint32_t fi = 0; fi < t.field_count && lines < limit; ++fi) {
    const FieldDescriptor& f = t.fields[fi];
    for (std::uint32_t e = 0; e < f.count && lines < limit; ++e) {
      const std::uint32_t off = f.offset + e * f.element_size;
      if (std::memcmp(a + off, b + off, f.element_size) == 0) continue;
      std::string name = std::string(t.name) + "." + f.name;
      if (f.count > 1) name += "[" + std::to_string(e) + "]";
      out += "  " + name + where + ": " + element_text(f, a + off) + " | " + element_text(f, b + off) + "\n";
      ++lines;
    }
  }
}

}  // namespace

const replay::Sim& broken_static_sim() {
  static const BrokenSim sim;
  return sim;
}

const replay::Sim* find_sim_or_hidden(std::string_view name) {
  if (name == broken_static_sim().name()) return &broken_static_sim();
  return replay::find_sim(name);
}

std::string diff_states(const StorageView& a, const StorageView& b, std::size_t limit) {
  std::string out;
  std::size_t lines = 0;
  if (a.tick() != b.tick()) out += "  tick: " + std::to_string(a.tick()) + " | " + std::to_string(b.tick()) + "\n";
  if (a.slot_count() != b.slot_count() || a.archetype_count() != b.archetype_count() ||
      a.component_count() != b.component_count() || a.resource_count() != b.resource_count()) {
    out += "  structure differs: slots " + std::to_string(a.slot_count()) + " | " + std::to_string(b.slot_count()) +
           ", archetypes " + std::to_string(a.archetype_count()) + " | " + std::to_string(b.archetype_count()) + "\n";
    return out;
  }
  for (std::uint32_t s = 0; s < a.slot_count() && lines < limit; ++s) {
    if (a.alive()[s] != b.alive()[s] || a.generations()[s] != b.generations()[s]) {
      out += "  entity slot " + std::to_string(s) + ": alive " + std::to_string(a.alive()[s]) + " gen " +
             std::to_string(a.generations()[s]) + " | alive " + std::to_string(b.alive()[s]) + " gen " +
             std::to_string(b.generations()[s]) + "\n";
      ++lines;
    }
  }
  for (std::uint32_t ar = 0; ar < a.archetype_count() && lines < limit; ++ar) {
    const auto ca = a.archetype_components(ar);
    const auto cb = b.archetype_components(ar);
    const auto sa = a.archetype_slots(ar);
    const auto sb = b.archetype_slots(ar);
    if (!std::equal(ca.begin(), ca.end(), cb.begin(), cb.end()) || !std::equal(sa.begin(), sa.end(), sb.begin(), sb.end())) {
      out += "  archetype " + std::to_string(ar) + ": component set or rows differ (" + std::to_string(sa.size()) +
             " | " + std::to_string(sb.size()) + " rows)\n";
      ++lines;
      continue;
    }
    for (std::uint32_t col = 0; col < ca.size() && lines < limit; ++col) {
      const TypeDescriptor& t = a.component(ca[col]);
      const auto ba = a.column_bytes(ar, col);
      const auto bb = b.column_bytes(ar, col);
      for (std::size_t r = 0; r < sa.size() && lines < limit; ++r) {
        const std::byte* ra = ba.data() + r * t.size;
        const std::byte* rb = bb.data() + r * t.size;
        if (std::memcmp(ra, rb, t.size) != 0)
          diff_value(t, ra, rb, " (entity slot " + std::to_string(sa[r]) + ")", out, lines, limit);
      }
    }
  }
  for (std::uint32_t r = 0; r < a.resource_count() && lines < limit; ++r) {
    const TypeDescriptor& t = a.resource(r);
    const auto ba = a.resource_bytes(r);
    const auto bb = b.resource_bytes(r);
    if (ba.size() == bb.size() && std::memcmp(ba.data(), bb.data(), ba.size()) != 0)
      diff_value(t, ba.data(), bb.data(), " (resource)", out, lines, limit);
  }
  if (lines >= limit) out += "  ... (more differences)\n";
  if (out.empty()) out = "  (no field differs)\n";
  return out;
}

}  // namespace lockstep::cli

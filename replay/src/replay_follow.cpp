// ReplayFollower and GrowingFileSource (replay/replay_follow.h).
#include <lockstep/replay/replay_follow.h>

#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/world_snapshot.h>
#include <lockstep/query/view.h>

#include "replay_io.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace lockstep::replay {

bool parse_follow_start(const std::string& text, FollowOptions& o) {
  if (text == "checkpoint" || text == "newest") {
    o.start = FollowOptions::Start::NewestCheckpoint;
    return true;
  }
  if (text == "begin" || text == "0") {
    o.start = FollowOptions::Start::Beginning;
    return true;
  }
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  o.start = FollowOptions::Start::Tick;
  o.tick = std::stoull(text);
  return true;
}

using replay_detail::fail;
using replay_detail::fail_tick;

// ---- GrowingFileSource ---------------------------------------------------------------------

GrowingFileSource::GrowingFileSource(std::string path) : path_(std::move(path)) {}
GrowingFileSource::~GrowingFileSource() {
  if (file_ != nullptr) std::fclose(file_);
}

std::string GrowingFileSource::describe() const { return opened_.empty() ? path_ : opened_; }

ReplayStatus GrowingFileSource::read(std::uint64_t offset, std::span<std::byte> out, std::size_t& got) {
  got = 0;
  if (file_ == nullptr) {
    // The finished file if it is there, else the recorder's file in progress; neither yet
    // is "nothing new" (the recorder has not started).
    for (const std::string& candidate : {path_, path_ + ".partial"}) {
      struct stat st{};
      if (::stat(candidate.c_str(), &st) != 0) continue;
      if (!S_ISREG(st.st_mode)) return fail(ErrorCode::InvalidArgument, candidate, 0, "not a regular file");
      file_ = std::fopen(candidate.c_str(), "rb");
      if (file_ == nullptr) return fail(ErrorCode::IoError, candidate, 0, std::string("cannot open: ") + std::strerror(errno));
      opened_ = candidate;
      break;
    }
    if (file_ == nullptr) return ReplayStatus::Ok();
  }
  // The recorder only appends: the open handle follows the same file across its rename.
  if (std::fseek(file_, static_cast<long>(offset), SEEK_SET) != 0)
    return fail(ErrorCode::IoError, opened_, offset, "cannot seek (did the file shrink?)");
  got = std::fread(out.data(), 1, out.size(), file_);
  if (got == 0 && std::ferror(file_) != 0) return fail(ErrorCode::IoError, opened_, offset, "read error");
  std::clearerr(file_);  // EOF now is not EOF later
  return ReplayStatus::Ok();
}

// ---- ReplayFollower -------------------------------------------------------------------------

struct ReplayFollower::State {
  std::function<const Sim*(std::string_view)> find_sim;
  FollowOptions options;
  std::string name;
  ReplayStreamDecoder decoder;
  std::vector<std::byte> chunk = std::vector<std::byte>(std::size_t{1} << 16);
  std::unique_ptr<Runner> runner;
  std::vector<std::byte> frame;
  std::uint64_t start = 0;
  std::uint64_t checked = 0;
  // The world's tick now has been compared with its recorded hash, or will never have one (no
  // hashes, or the complete recording's hashes end before it). A live recording's HASH block
  // lands after the INPT block of the same ticks, so a follower at the newest input often has
  // no hash for its tick yet: it waits for it rather than stepping past it unchecked.
  bool current_checked = false;
  bool ended = false;  // finished, and the end verified (end())
  bool failed = false;
  ReplayStatus error;

  State(std::function<const Sim*(std::string_view)> f, FollowOptions o, std::string n)
      : find_sim(std::move(f)), options(o), name(n), decoder(std::move(n)) {}

  ReplayStatus stop(ReplayStatus st) {
    failed = true;
    error = st;
    return st;
  }

  // Builds the world and moves it to the start point once the header (and, for the newest
  // checkpoint, what the recording holds so far) is known.
  ReplayStatus begin() {
    const Replay& r = decoder.replay();
    const Sim* sim = find_sim(r.header.sim_name);
    if (sim == nullptr)
      return fail(ErrorCode::Mismatch, name, 0,
                  "recorded with sim '" + replay_detail::printable_name(r.header.sim_name) +
                      "', which this tool does not have");
    if (ReplayStatus st = check_replay_sim(r, *sim, name); !st.ok()) return st;
    runner = std::make_unique<Runner>(*sim, r.header.config);
    if (!runner->status().ok())
      return fail(runner->status().code(), name, 0, std::string("cannot build the world: ") + runner->status().message());
    frame.assign(r.header.frame_bytes(), std::byte{0});
    std::uint64_t target = 0;
    switch (options.start) {
      case FollowOptions::Start::Beginning: target = 0; break;
      case FollowOptions::Start::Tick: target = options.tick; break;
      case FollowOptions::Start::NewestCheckpoint:
        target = r.checkpoints.empty() ? 0 : r.checkpoints.back().tick;
        break;
    }
    // A sim with views resumes only from checkpoints that carry the view state (format 2);
    // with older ones it starts at tick 0 (docs/query.md, "Views").
    const Checkpoint* best = nullptr;
    const bool views = viewCount(runner->world()) != 0;
    for (const Checkpoint& cp : r.checkpoints)
      if (cp.tick <= target && (!views || snapshot_file_version(cp.snapshot) == kSnapshotFileVersionViews)) best = &cp;
    if (best != nullptr) {
      Snapshot scratch(runner->world());
      const FileStatus fs = load_snapshot_bytes(best->snapshot, runner->world(), scratch,
                                                name + " checkpoint at tick " + std::to_string(best->tick));
      if (!fs.ok()) return fail(fs.code, name, fs.offset, fs.message);
      (void)runner->rehash();
    }
    start = runner->tick();
    current_checked = false;
    return check_current();
  }

  // Compares the world's tick now with its recorded hash once that hash is there.
  ReplayStatus check_current() {
    if (current_checked) return ReplayStatus::Ok();
    const Replay& r = decoder.replay();
    const std::uint64_t t = runner->tick();
    if (!r.header.has_hashes() || (decoder.complete() && t >= r.hashes.size())) {
      current_checked = true;
      return ReplayStatus::Ok();
    }
    if (t >= r.hashes.size()) return ReplayStatus::Ok();  // not recorded yet: wait for it
    current_checked = true;
    return check(t);
  }

  // At the end of a complete recording: every recorded hash from the start tick on was
  // compared, and the world ends on the final hash of the END block (which the decoder has
  // matched against the last HASH entry). Else the first tick that was not is named.
  ReplayStatus end() {
    const Replay& r = decoder.replay();
    ended = true;
    if (!r.header.has_hashes() || r.hashes.size() <= start) return ReplayStatus::Ok();
    const std::uint64_t last = r.hashes.size() - 1;
    if (start + checked <= last)
      return fail_tick(ErrorCode::Mismatch, name, 0, start + checked,
                       "the recorded hash of this tick was never compared (" + std::to_string(checked) + " of " +
                           std::to_string(last - start + 1) + " recorded hashes from tick " + std::to_string(start) +
                           " on)");
    if (last == runner->tick() && runner->hash().total != r.hashes.back().total)
      return fail_tick(ErrorCode::Mismatch, name, 0, last,
                       "the final state differs from the END block: hash " + to_hex(runner->hash().total) +
                           ", recorded " + to_hex(r.hashes.back().total));
    return ReplayStatus::Ok();
  }

  // The world's state at tick t against the recording's hash of t (t < hashes.size()).
  ReplayStatus check(std::uint64_t t) {
    const Replay& r = decoder.replay();
    const StateHash& h = runner->hash();
    const TickHash& want = r.hashes[t];
    bool same = h.total == want.total && h.entities == want.entities && h.archetypes == want.archetypes &&
                h.resources == want.resources;
    const auto comps = r.components_at(t);
    for (std::size_t c = 0; same && c < comps.size(); ++c) same = c < h.component_count && h.components[c] == comps[c];
    ++checked;
    if (!same)
      return fail_tick(ErrorCode::Mismatch, name, 0, t,
                       "state differs from the recording: hash " + to_hex(h.total) + ", recorded " + to_hex(want.total));
    return ReplayStatus::Ok();
  }
};

ReplayFollower::ReplayFollower(std::function<const Sim*(std::string_view)> find_sim, FollowOptions options, std::string name)
    : state_(std::make_unique<State>(std::move(find_sim), options, std::move(name))) {}
ReplayFollower::~ReplayFollower() = default;

ReplayStatus ReplayFollower::poll(ByteSource& source) {
  State& s = *state_;
  if (s.failed) return s.error;
  // Read what is there, bounded per poll (a CDN serving a whole match at once must not make
  // one poll take seconds).
  for (int reads = 0; reads < 64; ++reads) {
    std::size_t got = 0;
    ReplayStatus st = source.read(s.decoder.bytes_received(), s.chunk, got);
    if (!st.ok()) return s.stop(st);
    if (got == 0) break;
    st = s.decoder.feed(std::span<const std::byte>(s.chunk.data(), got));
    if (!st.ok()) return s.stop(st);
    if (got < s.chunk.size()) break;
  }
  const Replay& r = s.decoder.replay();
  if (!s.runner) {
    if (!s.decoder.has_header()) return ReplayStatus::Ok();
    // A chosen tick not recorded yet: wait for it (its checkpoint may not be written yet).
    if (s.options.start == FollowOptions::Start::Tick && r.frame_count() < s.options.tick && !s.decoder.complete())
      return ReplayStatus::Ok();
    if (ReplayStatus st = s.begin(); !st.ok()) return s.stop(st);
  }
  const std::uint64_t recorded = r.frame_count();
  std::uint64_t goal = s.decoder.complete() ? recorded : recorded > s.options.delay_ticks ? recorded - s.options.delay_ticks : 0;
  // Tick start: reach the chosen tick at once, then follow.
  if (s.options.start == FollowOptions::Start::Tick) goal = std::max(goal, std::min(s.options.tick, recorded));
  const TypeDescriptor& input = s.runner->sim().input_type();
  if (ReplayStatus c = s.check_current(); !c.ok()) return s.stop(c);
  // Never past a tick whose hash is still to come: it is compared when it arrives.
  for (std::uint32_t n = 0; s.current_checked && s.runner->tick() < goal && n < s.options.max_ticks_per_poll; ++n) {
    const std::uint64_t t = s.runner->tick();
    Runner::copy_to_host(input, r.frame(t), s.frame);
    const Status st = s.runner->step(s.frame);
    if (!st.ok())
      return s.stop(fail_tick(st.code(), s.name, 0, t, std::string("the sim rejected the frame: ") + st.message()));
    s.current_checked = false;
    if (ReplayStatus c = s.check_current(); !c.ok()) return s.stop(c);
  }
  if (!s.ended && s.decoder.complete() && s.runner->tick() >= recorded)
    if (ReplayStatus c = s.end(); !c.ok()) return s.stop(c);
  return ReplayStatus::Ok();
}

bool ReplayFollower::started() const noexcept { return state_->runner != nullptr; }
bool ReplayFollower::finished() const noexcept { return state_->ended && !state_->failed; }
std::uint64_t ReplayFollower::start_tick() const noexcept { return state_->start; }
std::uint64_t ReplayFollower::tick() const noexcept { return state_->runner ? state_->runner->tick() : 0; }
std::uint64_t ReplayFollower::recorded_ticks() const noexcept { return state_->decoder.replay().frame_count(); }
std::uint64_t ReplayFollower::checked_ticks() const noexcept { return state_->checked; }
const Replay& ReplayFollower::recording() const noexcept { return state_->decoder.replay(); }
const Runner* ReplayFollower::runner() const noexcept { return state_->runner.get(); }

}  // namespace lockstep::replay

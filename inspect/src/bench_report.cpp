// `lockstep bench`'s reports (bench_report.h). Floats: display only.
#include <lockstep/inspect/bench_report.h>

#include <lockstep/replay/sim.h>

#include "appendf.h"

namespace lockstep::inspect {

using detail::appendf;

std::string slice_table(const TimingTrace& trace) {
  std::string out;
  appendf(out, "%-37s %-10s %10s %10s %10s %10s\n", "slices (measured ticks)", "kind", "p50 us", "p99 us", "max us",
          "total ms");
  for (const TimingTrace::NameStats& s : trace.stats())
    appendf(out, "  %-35s %-10s %10.2f %10.2f %10.2f %10.2f\n", s.name.c_str(), replay::to_string(s.kind), s.p50_us,
            s.p99_us, s.max_us, s.total_ms);
  return out;
}

void append_slice_fields(JsonWriter& j, const TimingTrace& trace) {
  j.begin_array("slices");
  for (const TimingTrace::NameStats& s : trace.stats())
    j.begin().field("name", s.name).field("kind", replay::to_string(s.kind)).field("count", s.count)
        .field("p50_us", s.p50_us).field("p99_us", s.p99_us).field("max_us", s.max_us).field("total_ms", s.total_ms).end();
  j.end_array();
}

std::string bench_report_text(const BenchOptions& o, const BenchFigures& f, const BenchStats& b,
                              const ThreadsComparison& cmp) {
  const std::string sim(o.sim->name());
  std::string out;
  appendf(out, "bench          %s  players %u  units %u  entities %u  ticks %llu (+%llu warm-up)\n", sim.c_str(),
          o.config.players, o.config.units, f.entities, static_cast<unsigned long long>(o.ticks),
          static_cast<unsigned long long>(o.warmup));
  appendf(out, "tick           p50 %9.1f us   p99 %9.1f us   max %9.1f us   (inputs+systems+flush)\n", b.tp.p50_us,
          b.tp.p99_us, b.tp.max_us);
  appendf(out, "hash           p50 %9.1f us   p99 %9.1f us   max %9.1f us   (%.1f%% of tick+hash time; %.1f%% at p50)\n",
          b.hp.p50_us, b.hp.p99_us, b.hp.max_us, b.hash_share, b.hash_share_p50);
  appendf(out, "tick cpu       p50 %9.1f us   p99 %9.1f us   (this thread's CPU time)\n", b.tc.p50_us, b.tc.p99_us);
  appendf(out, "hash cpu       p50 %9.1f us   p99 %9.1f us   (%.1f%% of tick+hash CPU time at p50)\n", b.hc.p50_us,
          b.hc.p99_us, b.hash_share_cpu);
  appendf(out, "snapshot       save p50 %.1f us   load p50 %.1f us   (%zu bytes)%s\n", b.sp.p50_us, b.lp.p50_us,
          f.snapshot_bytes, f.snapshot_load_ok ? "" : "  LOAD FAILED");
  if (o.heap_allocations != nullptr)
    appendf(out, "allocations    %llu heap allocations during ticks, %llu during snapshots\n",
            static_cast<unsigned long long>(f.allocations_during_ticks),
            static_cast<unsigned long long>(f.allocations_during_snapshots));
  else
    out += "allocations    not counted (tool built with NO_ALLOCATION_COUNTER)\n";
  appendf(out, "throughput     %.0f ticks/s (tick+hash)   world build %.1f ms   final hash %s\n", b.tps, b.build_ms,
          b.final_hash.c_str());
  if (o.threads > 0)
    appendf(out, "threads        %u%s: tick p50 %.1f us vs %.1f us serial (same ticks, alternating): speedup %.2fx, hashes %s\n",
            o.threads, o.concurrent_stages ? " with concurrent stages" : "", cmp.parallel_p50_us, cmp.serial_p50_us,
            cmp.speedup, cmp.hashes_equal ? "equal" : "DIFFER");
  return out + slice_table(*f.trace);
}

std::string bench_report_json(const BenchOptions& o, const BenchFigures& f, const BenchStats& b,
                              const ThreadsComparison& cmp) {
  JsonWriter j;
  j.begin().field("ok", true).field("sim", o.sim->name()).field("players", o.config.players).field("units", o.config.units)
      .field("entities", std::uint64_t{f.entities}).field("ticks", o.ticks).field("warmup", o.warmup)
      .field("build_ms", b.build_ms)
      .field("tick_p50_us", b.tp.p50_us).field("tick_p99_us", b.tp.p99_us).field("tick_max_us", b.tp.max_us).field("tick_mean_us", b.tp.mean_us)
      .field("hash_p50_us", b.hp.p50_us).field("hash_p99_us", b.hp.p99_us).field("hash_max_us", b.hp.max_us).field("hash_mean_us", b.hp.mean_us)
      .field("hash_share_percent", b.hash_share).field("hash_share_p50_percent", b.hash_share_p50)
      .field("tick_cpu_p50_us", b.tc.p50_us).field("tick_cpu_p99_us", b.tc.p99_us)
      .field("hash_cpu_p50_us", b.hc.p50_us).field("hash_cpu_p99_us", b.hc.p99_us).field("hash_share_cpu_p50_percent", b.hash_share_cpu)
      .field("snapshot_save_p50_us", b.sp.p50_us).field("snapshot_load_p50_us", b.lp.p50_us)
      .field("snapshot_bytes", std::uint64_t{f.snapshot_bytes})
      .field("heap_allocations_during_ticks", f.allocations_during_ticks)
      .field("heap_allocations_during_snapshots", f.allocations_during_snapshots)
      .field("ticks_per_second", b.tps).field("wall_seconds", b.wall_s).field("final_hash", b.final_hash)
      .field("threads", std::uint64_t{o.threads});
  if (o.threads > 0)
    j.field("serial_tick_p50_us", cmp.serial_p50_us).field("parallel_tick_p50_us", cmp.parallel_p50_us)
        .field("speedup", cmp.speedup).field("hashes_equal", cmp.hashes_equal)
        .field("concurrent_stages", o.concurrent_stages);
  append_slice_fields(j, *f.trace);
  j.end();
  return j.str() + "\n";
}

std::string bench_report_csv(const BenchOptions& o, const BenchFigures& f, const BenchStats& b) {
  std::string out =
      "sim,players,units,entities,ticks,tick_p50_us,tick_p99_us,tick_max_us,hash_p50_us,hash_p99_us,hash_max_us,"
      "hash_share_percent,snapshot_save_p50_us,snapshot_load_p50_us,snapshot_bytes,heap_allocations,ticks_per_second,"
      "final_hash,tick_cpu_p50_us,tick_cpu_p99_us,hash_cpu_p50_us,hash_cpu_p99_us\n";
  const std::string sim(o.sim->name());
  appendf(out, "%s,%u,%u,%u,%llu,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%zu,%llu,%.1f,%s,%.2f,%.2f,%.2f,%.2f\n",
          sim.c_str(), o.config.players, o.config.units, f.entities, static_cast<unsigned long long>(o.ticks),
          b.tp.p50_us, b.tp.p99_us, b.tp.max_us, b.hp.p50_us, b.hp.p99_us, b.hp.max_us, b.hash_share, b.sp.p50_us,
          b.lp.p50_us, f.snapshot_bytes, static_cast<unsigned long long>(f.allocations_during_ticks), b.tps,
          b.final_hash.c_str(), b.tc.p50_us, b.tc.p99_us, b.hc.p50_us, b.hc.p99_us);
  return out;
}

}  // namespace lockstep::inspect

// bench_fixed: lockstep::fixed vs libfixmath (fix16, Q16.16) vs double std functions.
// For sqrt, sin, atan2, mul and div: calls/s (Google Benchmark items_per_second) and the
// maximum error in ulp (2^-16) over the same inputs against a long double reference,
// printed as a table before the timings and attached to each benchmark as a counter.
//
// Inputs are kept inside fix16's range (|x| < 32768) so all three see identical values.
// Suggested run (the numbers in docs/fixed.md):
//   bench_fixed --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// This is a benchmark program, not a simulation path: floating point is fine here.
#include <lockstep/fixed_math.h>

#include <benchmark/benchmark.h>
#include <libfixmath/fixmath.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {

constexpr std::size_t kN = 4096;

struct Inputs {
  std::vector<std::int32_t> a, b;
};

// Raw Q16 inputs, identical for all implementations.
Inputs make_inputs(std::uint64_t seed, std::int32_t a_lo, std::int32_t a_hi, std::int32_t b_lo, std::int32_t b_hi,
                   std::int32_t b_min_abs = 0) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<std::int32_t> da(a_lo, a_hi), db(b_lo, b_hi);
  Inputs in;
  in.a.resize(kN);
  in.b.resize(kN);
  for (std::size_t i = 0; i < kN; ++i) {
    in.a[i] = da(g);
    std::int32_t b = 0;
    do {
      b = db(g);
    } while ((b < 0 ? -b : b) < b_min_abs);
    in.b[i] = b;
  }
  return in;
}

constexpr std::int32_t Q(double v) { return static_cast<std::int32_t>(v * 65536.0); }

const Inputs& sqrt_in() {
  static const Inputs in = make_inputs(1, 0, 0x7FFFFFFF, 0, 0);
  return in;
}
const Inputs& sin_in() {
  static const Inputs in = make_inputs(2, Q(-100), Q(100), 0, 0);
  return in;
}
const Inputs& atan2_in() {
  static const Inputs in = make_inputs(3, Q(-1000), Q(1000), Q(-1000), Q(1000));
  return in;
}
const Inputs& mul_in() {
  static const Inputs in = make_inputs(4, Q(-128), Q(128), Q(-128), Q(128));
  return in;
}
const Inputs& div_in() {
  static const Inputs in = make_inputs(5, Q(-1000), Q(1000), Q(-1000), Q(1000), Q(0.05));
  return in;
}

long double ld(std::int32_t raw) { return static_cast<long double>(raw) / 65536.0L; }
double dd(std::int32_t raw) { return static_cast<double>(raw) / 65536.0; }
lockstep::fixed fx(std::int32_t raw) { return lockstep::fixed::from_raw(raw); }

enum Impl { kLockstep = 0, kFix16 = 1, kDouble = 2 };
const char* const kImplName[] = {"lockstep", "libfixmath", "double"};

// ---- the operations, per implementation ----
template <Impl I>
long double op_result(int func, std::int32_t a, std::int32_t b) {  // result in ulp units
  switch (func) {
    case 0:  // sqrt
      if constexpr (I == kLockstep) return static_cast<long double>(lockstep::sqrt(fx(a)).raw());
      if constexpr (I == kFix16) return fix16_sqrt(a);
      if constexpr (I == kDouble) return static_cast<long double>(std::sqrt(dd(a))) * 65536.0L;
      break;
    case 1:  // sin
      if constexpr (I == kLockstep) return static_cast<long double>(lockstep::sin(fx(a)).raw());
      if constexpr (I == kFix16) return fix16_sin(a);
      if constexpr (I == kDouble) return static_cast<long double>(std::sin(dd(a))) * 65536.0L;
      break;
    case 2:  // atan2(a, b)
      if constexpr (I == kLockstep) return static_cast<long double>(lockstep::atan2(fx(a), fx(b)).raw());
      if constexpr (I == kFix16) return fix16_atan2(a, b);
      if constexpr (I == kDouble) return static_cast<long double>(std::atan2(dd(a), dd(b))) * 65536.0L;
      break;
    case 3:  // mul
      if constexpr (I == kLockstep) return static_cast<long double>((fx(a) * fx(b)).raw());
      if constexpr (I == kFix16) return fix16_mul(a, b);
      if constexpr (I == kDouble) return static_cast<long double>(dd(a) * dd(b)) * 65536.0L;
      break;
    case 4:  // div
      if constexpr (I == kLockstep) return static_cast<long double>((fx(a) / fx(b)).raw());
      if constexpr (I == kFix16) return fix16_div(a, b);
      if constexpr (I == kDouble) return static_cast<long double>(dd(a) / dd(b)) * 65536.0L;
      break;
  }
  return 0;
}

long double reference(int func, std::int32_t a, std::int32_t b) {  // in ulp units
  switch (func) {
    case 0: return std::sqrt(ld(a)) * 65536.0L;
    case 1: return std::sin(ld(a)) * 65536.0L;
    case 2: return std::atan2(ld(a), ld(b)) * 65536.0L;
    case 3: return ld(a) * ld(b) * 65536.0L;
    case 4: return ld(a) / ld(b) * 65536.0L;
  }
  return 0;
}

const char* const kFuncName[] = {"sqrt", "sin", "atan2", "mul", "div"};
const char* const kDomain[] = {"[0, 32768)", "[-100, 100]", "y, x in [-1000, 1000]", "a, b in [-128, 128]",
                               "a in [-1000,1000], |b| in [0.05,1000]"};
const Inputs& inputs(int func) {
  switch (func) {
    case 0: return sqrt_in();
    case 1: return sin_in();
    case 2: return atan2_in();
    case 3: return mul_in();
    default: return div_in();
  }
}

template <Impl I>
long double max_error(int func) {
  const Inputs& in = inputs(func);
  long double m = 0;
  for (std::size_t i = 0; i < kN; ++i) {
    const long double e = std::fabs(op_result<I>(func, in.a[i], in.b[i]) - reference(func, in.a[i], in.b[i]));
    if (e > m) m = e;
  }
  return m;
}

std::array<std::array<double, 3>, 5> g_err{};

// ---- timed loops (throughput over the input array) ----
template <int F>
void BM_lockstep(benchmark::State& st) {
  const Inputs& in = inputs(F);
  std::int64_t acc = 0;
  for (auto _ : st) {
    for (std::size_t i = 0; i < kN; ++i) {
      const lockstep::fixed a = fx(in.a[i]), b = fx(in.b[i]);
      lockstep::fixed r;
      if constexpr (F == 0) r = lockstep::sqrt(a);
      if constexpr (F == 1) r = lockstep::sin(a);
      if constexpr (F == 2) r = lockstep::atan2(a, b);
      if constexpr (F == 3) r = a * b;
      if constexpr (F == 4) r = a / b;
      acc += r.raw();
    }
    benchmark::DoNotOptimize(acc);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(kN));
  st.counters["max_err_ulp"] = g_err[F][kLockstep];
}

template <int F>
void BM_libfixmath(benchmark::State& st) {
  const Inputs& in = inputs(F);
  std::int64_t acc = 0;
  for (auto _ : st) {
    for (std::size_t i = 0; i < kN; ++i) {
      const fix16_t a = in.a[i], b = in.b[i];
      fix16_t r = 0;
      if constexpr (F == 0) r = fix16_sqrt(a);
      if constexpr (F == 1) r = fix16_sin(a);
      if constexpr (F == 2) r = fix16_atan2(a, b);
      if constexpr (F == 3) r = fix16_mul(a, b);
      if constexpr (F == 4) r = fix16_div(a, b);
      acc += r;
    }
    benchmark::DoNotOptimize(acc);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(kN));
  st.counters["max_err_ulp"] = g_err[F][kFix16];
}

template <int F>
void BM_double(benchmark::State& st) {
  const Inputs& in = inputs(F);
  std::vector<double> a(kN), b(kN);
  for (std::size_t i = 0; i < kN; ++i) {
    a[i] = dd(in.a[i]);
    b[i] = dd(in.b[i]);
  }
  double acc = 0;
  for (auto _ : st) {
    for (std::size_t i = 0; i < kN; ++i) {
      double r = 0;
      if constexpr (F == 0) r = std::sqrt(a[i]);
      if constexpr (F == 1) r = std::sin(a[i]);
      if constexpr (F == 2) r = std::atan2(a[i], b[i]);
      if constexpr (F == 3) r = a[i] * b[i];
      if constexpr (F == 4) r = a[i] / b[i];
      acc += r;
    }
    benchmark::DoNotOptimize(acc);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(kN));
  st.counters["max_err_ulp"] = g_err[F][kDouble];
}

#define LOCKSTEP_BENCH_FUNC(F, NAME)                                  \
  BENCHMARK_TEMPLATE(BM_lockstep, F)->Name(NAME "/lockstep");         \
  BENCHMARK_TEMPLATE(BM_libfixmath, F)->Name(NAME "/libfixmath");     \
  BENCHMARK_TEMPLATE(BM_double, F)->Name(NAME "/double")

LOCKSTEP_BENCH_FUNC(0, "sqrt");
LOCKSTEP_BENCH_FUNC(1, "sin");
LOCKSTEP_BENCH_FUNC(2, "atan2");
LOCKSTEP_BENCH_FUNC(3, "mul");
LOCKSTEP_BENCH_FUNC(4, "div");

}  // namespace

int main(int argc, char** argv) {
  std::printf("Max error over the benchmark inputs (%zu per function), in ulp = 2^-16, vs long double:\n", kN);
  std::printf("%-6s %-38s %12s %12s %12s\n", "func", "domain", "lockstep", "libfixmath", "double");
  for (int f = 0; f < 5; ++f) {
    g_err[static_cast<std::size_t>(f)] = {static_cast<double>(max_error<kLockstep>(f)),
                                          static_cast<double>(max_error<kFix16>(f)),
                                          static_cast<double>(max_error<kDouble>(f))};
    std::printf("%-6s %-38s %12.4f %12.4f %12.6f\n", kFuncName[f], kDomain[f], g_err[static_cast<std::size_t>(f)][0],
                g_err[static_cast<std::size_t>(f)][1], g_err[static_cast<std::size_t>(f)][2]);
  }
  std::printf("(libfixmath: Debian libfixmath-dev, fix16_t Q16.16; double: std:: functions)\n\n");
  std::fflush(stdout);
  (void)kImplName;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// bench_fixed: lockstep::fixed vs libfixmath (fix16, Q16.16) vs double std functions.
// For sqrt, sin, atan2, mul and div (and, for the docs table, cos tan atan asin acos exp log pow
// hypot, libfixmath where it has them): calls/s (Google Benchmark items_per_second) and the
// maximum error in ulp (2^-16) over the same inputs against a long double reference,
// printed as a table before the timings and attached to each benchmark as a counter.
//
// Inputs are kept inside fix16's range (|x| < 32768) so all three see identical values.
// Suggested run (the numbers in docs/fixed.md):
//   bench_fixed --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// This is a benchmark program, not a simulation path: floating point is fine here.
#include <lockstep/math/fixed_math.h>

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
// Further functions (lockstep and, where it has one, libfixmath; calls/s for docs/fixed.md).
const Inputs& extra_in(int f) {
  static const Inputs cos_in = make_inputs(6, Q(-100), Q(100), 0, 0);
  static const Inputs tan_in = make_inputs(7, Q(-1.5), Q(1.5), 0, 0);
  static const Inputs atan_in = make_inputs(8, Q(-1000), Q(1000), 0, 0);
  static const Inputs asin_in = make_inputs(9, Q(-1), Q(1), 0, 0);
  static const Inputs exp_in = make_inputs(10, Q(-10), Q(10), 0, 0);
  static const Inputs log_in = make_inputs(11, 1, 0x7FFFFFFF, 0, 0);
  static const Inputs pow_in = make_inputs(12, Q(0.01), Q(100), Q(-2), Q(2));
  static const Inputs hypot_in = make_inputs(13, Q(-1000), Q(1000), Q(-1000), Q(1000));
  switch (f) {
    case 5: return cos_in;
    case 6: return tan_in;
    case 7: return atan_in;
    case 8: case 9: return asin_in;
    case 10: return exp_in;
    case 11: return log_in;
    case 12: return pow_in;
    default: return hypot_in;
  }
}

long double ld(std::int32_t raw) { return static_cast<long double>(raw) / 65536.0L; }
double dd(std::int32_t raw) { return static_cast<double>(raw) / 65536.0; }
lockstep::fixed fx(std::int32_t raw) { return lockstep::fixed::from_raw(raw); }

enum Impl { kLockstep = 0, kFix16 = 1, kDouble = 2 };

// Functions 5..13 (and 0..4) by index, used by the generic loops.
constexpr bool has_fix16(int f) { return f <= 11; }  // libfixmath has no pow or hypot
inline std::int64_t lockstep_op(int f, std::int32_t ar, std::int32_t br) {
  const lockstep::fixed a = lockstep::fixed::from_raw(ar), b = lockstep::fixed::from_raw(br);
  switch (f) {
    case 0: return lockstep::sqrt(a).raw();
    case 1: return lockstep::sin(a).raw();
    case 2: return lockstep::atan2(a, b).raw();
    case 3: return (a * b).raw();
    case 4: return (a / b).raw();
    case 5: return lockstep::cos(a).raw();
    case 6: return lockstep::tan(a).raw();
    case 7: return lockstep::atan(a).raw();
    case 8: return lockstep::asin(a).raw();
    case 9: return lockstep::acos(a).raw();
    case 10: return lockstep::exp(a).raw();
    case 11: return lockstep::log(a).raw();
    case 12: return lockstep::pow(a, b).raw();
    default: return lockstep::hypot(a, b).raw();
  }
}
inline std::int32_t fix16_op(int f, std::int32_t a, std::int32_t b) {
  switch (f) {
    case 0: return fix16_sqrt(a);
    case 1: return fix16_sin(a);
    case 2: return fix16_atan2(a, b);
    case 3: return fix16_mul(a, b);
    case 4: return fix16_div(a, b);
    case 5: return fix16_cos(a);
    case 6: return fix16_tan(a);
    case 7: return fix16_atan(a);
    case 8: return fix16_asin(a);
    case 9: return fix16_acos(a);
    case 10: return fix16_exp(a);
    case 11: return fix16_log(a);
    default: return 0;
  }
}
inline double double_op(int f, double a, double b) {
  switch (f) {
    case 0: return std::sqrt(a);
    case 1: return std::sin(a);
    case 2: return std::atan2(a, b);
    case 3: return a * b;
    case 4: return a / b;
    case 5: return std::cos(a);
    case 6: return std::tan(a);
    case 7: return std::atan(a);
    case 8: return std::asin(a);
    case 9: return std::acos(a);
    case 10: return std::exp(a);
    case 11: return std::log(a);
    case 12: return std::pow(a, b);
    default: return std::hypot(a, b);
  }
}
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
    default:
      if constexpr (I == kLockstep) return static_cast<long double>(lockstep_op(func, a, b));
      if constexpr (I == kFix16) return fix16_op(func, a, b);
      if constexpr (I == kDouble) return static_cast<long double>(double_op(func, dd(a), dd(b))) * 65536.0L;
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
    case 5: return std::cos(ld(a)) * 65536.0L;
    case 6: return std::tan(ld(a)) * 65536.0L;
    case 7: return std::atan(ld(a)) * 65536.0L;
    case 8: return std::asin(ld(a)) * 65536.0L;
    case 9: return std::acos(ld(a)) * 65536.0L;
    case 10: return std::exp(ld(a)) * 65536.0L;
    case 11: return std::log(ld(a)) * 65536.0L;
    case 12: return std::pow(ld(a), ld(b)) * 65536.0L;
    default: return std::hypot(ld(a), ld(b)) * 65536.0L;
  }
}

constexpr int kFuncs = 14;
const char* const kFuncName[kFuncs] = {"sqrt", "sin", "atan2", "mul", "div", "cos", "tan",
                                       "atan", "asin", "acos", "exp", "log", "pow", "hypot"};
const char* const kDomain[kFuncs] = {"[0, 32768)", "[-100, 100]", "y, x in [-1000, 1000]", "a, b in [-128, 128]",
                                     "a in [-1000,1000], |b| in [0.05,1000]", "[-100, 100]", "[-1.5, 1.5]",
                                     "[-1000, 1000]", "[-1, 1]", "[-1, 1]", "[-10, 10]", "(0, 32768)",
                                     "x in [0.01, 100], y in [-2, 2]", "x, y in [-1000, 1000]"};
const Inputs& inputs(int func) {
  switch (func) {
    case 0: return sqrt_in();
    case 1: return sin_in();
    case 2: return atan2_in();
    case 3: return mul_in();
    case 4: return div_in();
    default: return extra_in(func);
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

std::array<std::array<double, 3>, kFuncs> g_err{};

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

// Functions 5..13: same loops through the index-dispatch helpers (inlined; F is a constant).
template <int F, Impl I>
void BM_extra(benchmark::State& st) {
  const Inputs& in = inputs(F);
  std::int64_t acc = 0;
  double dacc = 0;
  std::vector<double> a(kN), b(kN);
  for (std::size_t i = 0; i < kN; ++i) {
    a[i] = dd(in.a[i]);
    b[i] = dd(in.b[i]);
  }
  for (auto _ : st) {
    for (std::size_t i = 0; i < kN; ++i) {
      if constexpr (I == kLockstep) acc += lockstep_op(F, in.a[i], in.b[i]);
      if constexpr (I == kFix16) acc += fix16_op(F, in.a[i], in.b[i]);
      if constexpr (I == kDouble) dacc += double_op(F, a[i], b[i]);
    }
    benchmark::DoNotOptimize(acc);
    benchmark::DoNotOptimize(dacc);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(kN));
  st.counters["max_err_ulp"] = g_err[F][I];
}

#define LOCKSTEP_BENCH_EXTRA(F, NAME)                                  \
  BENCHMARK_TEMPLATE(BM_extra, F, kLockstep)->Name(NAME "/lockstep");  \
  BENCHMARK_TEMPLATE(BM_extra, F, kDouble)->Name(NAME "/double")
#define LOCKSTEP_BENCH_EXTRA_FIX16(F, NAME)                            \
  LOCKSTEP_BENCH_EXTRA(F, NAME);                                      \
  BENCHMARK_TEMPLATE(BM_extra, F, kFix16)->Name(NAME "/libfixmath")

#define LOCKSTEP_BENCH_FUNC(F, NAME)                                  \
  BENCHMARK_TEMPLATE(BM_lockstep, F)->Name(NAME "/lockstep");         \
  BENCHMARK_TEMPLATE(BM_libfixmath, F)->Name(NAME "/libfixmath");     \
  BENCHMARK_TEMPLATE(BM_double, F)->Name(NAME "/double")

LOCKSTEP_BENCH_FUNC(0, "sqrt");
LOCKSTEP_BENCH_FUNC(1, "sin");
LOCKSTEP_BENCH_FUNC(2, "atan2");
LOCKSTEP_BENCH_FUNC(3, "mul");
LOCKSTEP_BENCH_FUNC(4, "div");
LOCKSTEP_BENCH_EXTRA_FIX16(5, "cos");
LOCKSTEP_BENCH_EXTRA_FIX16(6, "tan");
LOCKSTEP_BENCH_EXTRA_FIX16(7, "atan");
LOCKSTEP_BENCH_EXTRA_FIX16(8, "asin");
LOCKSTEP_BENCH_EXTRA_FIX16(9, "acos");
LOCKSTEP_BENCH_EXTRA_FIX16(10, "exp");
LOCKSTEP_BENCH_EXTRA_FIX16(11, "log");
LOCKSTEP_BENCH_EXTRA(12, "pow");
LOCKSTEP_BENCH_EXTRA(13, "hypot");

}  // namespace

int main(int argc, char** argv) {
  std::printf("Max error over the benchmark inputs (%zu per function), in ulp = 2^-16, vs long double:\n", kN);
  std::printf("%-6s %-38s %12s %12s %12s\n", "func", "domain", "lockstep", "libfixmath", "double");
  for (int f = 0; f < kFuncs; ++f) {
    auto& e = g_err[static_cast<std::size_t>(f)];
    e = {static_cast<double>(max_error<kLockstep>(f)), has_fix16(f) ? static_cast<double>(max_error<kFix16>(f)) : -1.0,
         static_cast<double>(max_error<kDouble>(f))};
    if (has_fix16(f)) {
      std::printf("%-6s %-38s %12.4f %12.4f %12.6f\n", kFuncName[f], kDomain[f], e[0], e[1], e[2]);
    } else {
      std::printf("%-6s %-38s %12.4f %12s %12.6f\n", kFuncName[f], kDomain[f], e[0], "n/a", e[2]);
    }
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

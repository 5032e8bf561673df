#pragma once
// Counting allocators for the zero-allocation proofs. Exactly one translation unit of a test
// executable includes "support/counting_allocator.inc", which replaces the global operator
// new/delete (and, on glibc outside sanitizer builds, malloc/calloc/realloc) with counting
// versions; every other file uses this header.

namespace lockstep_test {

long heap_allocations() noexcept;  // operator new calls (every form) so far in this process
long malloc_calls() noexcept;      // malloc/calloc/realloc calls so far (0 when not counted)
bool counts_malloc() noexcept;     // false in sanitizer builds and off glibc

// Counts what happens between its construction and count()/allocations()/mallocs().
class AllocationWindow {
 public:
  AllocationWindow() noexcept : news_(heap_allocations()), mallocs_(malloc_calls()) {}
  long allocations() const noexcept { return heap_allocations() - news_; }
  long mallocs() const noexcept { return malloc_calls() - mallocs_; }
  unsigned long count() const noexcept { return static_cast<unsigned long>(allocations()); }

 private:
  long news_;
  long mallocs_;
};

}  // namespace lockstep_test

#pragma once
// Transparent huge pages for the world's large tables (docs/kernel.md, "Memory placement").
//
// A structural change on a scattered entity touches about eight per-slot tables and columns
// at unrelated addresses. With 4 KiB pages every one of those touches is also a TLB miss once
// the tables outgrow the TLB's reach (a few MB), and under a hypervisor a TLB miss walks two
// page tables. Asking the OS for 2 MiB pages on these ranges removes most of those walks.
// Advice only: no state, no byte and no order depends on it, and where the call does not exist
// (or the OS says no) nothing changes.
#include <cstddef>

namespace lockstep::detail {

// Advises huge pages for the 2 MiB-aligned part of [p, p + bytes). Call it before the range is
// first written: pages already faulted in stay small until the OS collapses them.
void advise_huge_pages(void* p, std::size_t bytes) noexcept;

}  // namespace lockstep::detail

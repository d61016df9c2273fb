// Counts the heap allocations of the quarry-bench process (--count-allocations).
//
// MallocCounter.c defines malloc, calloc, realloc, free, posix_memalign,
// aligned_alloc and memalign in the quarry-bench executable itself. The executable comes first in the dynamic linker's symbol lookup
// order, so every library of the process (the Swift runtime, Foundation,
// libsqlite3, glibc itself) calls these, which count and forward to the C
// library's functions found with dlsym(RTLD_NEXT, ...).
//
// Counting is off until quarry_malloc_counter_start(); when off, each call
// costs one relaxed atomic load and an indirect call more than glibc's own.
// Counters are process-wide (every thread), updated with relaxed atomics.

#ifndef QUARRY_BENCH_MALLOC_COUNTER_H
#define QUARRY_BENCH_MALLOC_COUNTER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    /// Calls of malloc, calloc, realloc, posix_memalign, aligned_alloc and
    /// memalign (a realloc counts as one allocation).
    uint64_t allocations;
    /// Of `allocations`, the calls of realloc.
    uint64_t reallocations;
    /// Bytes requested by those calls (a realloc: its new size).
    uint64_t bytes;
} QuarryMallocCounts;

/// Resets the counters to zero and starts counting.
void quarry_malloc_counter_start(void);

/// Stops counting and returns what was counted since the last start.
QuarryMallocCounts quarry_malloc_counter_stop(void);

/// 1 if this file's malloc is the one the process uses: the forwarding
/// functions were found (set by the first allocation of the process).
int quarry_malloc_counter_is_interposed(void);

#endif

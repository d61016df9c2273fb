// The allocation counter of quarry-bench (see include/MallocCounter.h).

#define _GNU_SOURCE
#include "MallocCounter.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

// MARK: Counters

static atomic_int counting;
static _Atomic uint64_t allocations;
static _Atomic uint64_t reallocations;
static _Atomic uint64_t bytes;

static inline void count(size_t size) {
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&bytes, size, memory_order_relaxed);
    }
}

void quarry_malloc_counter_start(void) {
    atomic_store_explicit(&counting, 0, memory_order_seq_cst);
    atomic_store_explicit(&allocations, 0, memory_order_relaxed);
    atomic_store_explicit(&reallocations, 0, memory_order_relaxed);
    atomic_store_explicit(&bytes, 0, memory_order_relaxed);
    atomic_store_explicit(&counting, 1, memory_order_seq_cst);
}

QuarryMallocCounts quarry_malloc_counter_stop(void) {
    atomic_store_explicit(&counting, 0, memory_order_seq_cst);
    QuarryMallocCounts result = {
        .allocations = atomic_load_explicit(&allocations, memory_order_relaxed),
        .reallocations = atomic_load_explicit(&reallocations, memory_order_relaxed),
        .bytes = atomic_load_explicit(&bytes, memory_order_relaxed),
    };
    return result;
}

// MARK: The C library's functions

typedef void *(*malloc_fn)(size_t);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef void (*free_fn)(void *);
typedef int (*posix_memalign_fn)(void **, size_t, size_t);
typedef void *(*aligned_alloc_fn)(size_t, size_t);

static _Atomic(malloc_fn) real_malloc;
static _Atomic(calloc_fn) real_calloc;
static _Atomic(realloc_fn) real_realloc;
static _Atomic(free_fn) real_free;
static _Atomic(posix_memalign_fn) real_posix_memalign;
static _Atomic(aligned_alloc_fn) real_aligned_alloc;
static _Atomic(aligned_alloc_fn) real_memalign;
static atomic_int resolved;

// dlsym itself may allocate (glibc's dlerror state is calloc'ed): while this
// thread resolves the functions, allocations come from a static arena that
// is never freed, and free() ignores its pointers.
static _Thread_local int resolving;
static _Alignas(4096) unsigned char arena[16384];
static _Atomic size_t arena_used;

static void *arena_alloc(size_t size, size_t alignment) {
    if (alignment < 16) alignment = 16;
    if (alignment > 4096 || (alignment & (alignment - 1)) != 0) return NULL;
    size_t used = atomic_load_explicit(&arena_used, memory_order_relaxed);
    for (;;) {
        size_t start = (used + alignment - 1) & ~(alignment - 1);
        if (start > sizeof arena || size > sizeof arena - start) return NULL;
        if (atomic_compare_exchange_weak_explicit(&arena_used, &used, start + size, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            return arena + start;  // static storage: already zeroed, never reused
        }
    }
}

static inline int in_arena(const void *pointer) {
    return (const unsigned char *)pointer >= arena && (const unsigned char *)pointer < arena + sizeof arena;
}

static void resolve(void) {
    if (atomic_load_explicit(&resolved, memory_order_acquire)) return;
    resolving = 1;
    atomic_store(&real_malloc, (malloc_fn)dlsym(RTLD_NEXT, "malloc"));
    atomic_store(&real_calloc, (calloc_fn)dlsym(RTLD_NEXT, "calloc"));
    atomic_store(&real_realloc, (realloc_fn)dlsym(RTLD_NEXT, "realloc"));
    atomic_store(&real_free, (free_fn)dlsym(RTLD_NEXT, "free"));
    atomic_store(&real_posix_memalign, (posix_memalign_fn)dlsym(RTLD_NEXT, "posix_memalign"));
    atomic_store(&real_aligned_alloc, (aligned_alloc_fn)dlsym(RTLD_NEXT, "aligned_alloc"));
    atomic_store(&real_memalign, (aligned_alloc_fn)dlsym(RTLD_NEXT, "memalign"));
    resolving = 0;
    if (!atomic_load(&real_malloc) || !atomic_load(&real_calloc) || !atomic_load(&real_realloc)
        || !atomic_load(&real_free)) {
        abort();  // no C library behind us: nothing sensible to forward to
    }
    atomic_store_explicit(&resolved, 1, memory_order_release);
}

/// True when the caller must be served from the arena (dlsym bootstrap).
static inline int bootstrapping(void) {
    if (atomic_load_explicit(&resolved, memory_order_acquire)) return 0;
    if (resolving) return 1;
    resolve();
    return 0;
}

int quarry_malloc_counter_is_interposed(void) {
    // The process's `malloc` is this file's when the dynamic linker finds it
    // first, in the executable.
    return atomic_load(&resolved) && dlsym(RTLD_DEFAULT, "malloc") == (void *)&malloc;
}

// MARK: The interposed functions

void *malloc(size_t size) {
    if (bootstrapping()) return arena_alloc(size, 16);
    count(size);
    return atomic_load_explicit(&real_malloc, memory_order_relaxed)(size);
}

void *calloc(size_t count_, size_t size) {
    if (bootstrapping()) {
        if (size != 0 && count_ > SIZE_MAX / size) return NULL;
        return arena_alloc(count_ * size, 16);
    }
    count(count_ * size);
    return atomic_load_explicit(&real_calloc, memory_order_relaxed)(count_, size);
}

void *realloc(void *pointer, size_t size) {
    if (bootstrapping()) {
        void *moved = arena_alloc(size, 16);
        if (moved && pointer) {
            size_t available = (size_t)(arena + sizeof arena - (unsigned char *)pointer);
            memcpy(moved, pointer, size < available ? size : available);
        }
        return moved;
    }
    if (in_arena(pointer)) {
        // An arena block outlives the bootstrap: move it to the C library's heap.
        void *moved = malloc(size);
        if (moved) {
            size_t available = (size_t)(arena + sizeof arena - (unsigned char *)pointer);
            memcpy(moved, pointer, size < available ? size : available);
        }
        return moved;
    }
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&reallocations, 1, memory_order_relaxed);
    }
    count(size);
    return atomic_load_explicit(&real_realloc, memory_order_relaxed)(pointer, size);
}

void free(void *pointer) {
    if (pointer == NULL || in_arena(pointer)) return;
    if (bootstrapping()) return;  // cannot be the C library's pointer yet
    atomic_load_explicit(&real_free, memory_order_relaxed)(pointer);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (bootstrapping()) {
        *result = arena_alloc(size, alignment);
        return *result ? 0 : ENOMEM;
    }
    posix_memalign_fn real = atomic_load_explicit(&real_posix_memalign, memory_order_relaxed);
    if (!real) return ENOMEM;
    count(size);
    return real(result, alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    if (bootstrapping()) return arena_alloc(size, alignment);
    aligned_alloc_fn real = atomic_load_explicit(&real_aligned_alloc, memory_order_relaxed);
    if (!real) return NULL;
    count(size);
    return real(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    if (bootstrapping()) return arena_alloc(size, alignment);
    aligned_alloc_fn real = atomic_load_explicit(&real_memalign, memory_order_relaxed);
    if (!real) return NULL;
    count(size);
    return real(alignment, size);
}

// QuarryFaultVFS: a test-only SQLite VFS that wraps the default "unix" VFS to
// count I/O calls, fail chosen calls with chosen result codes, and simulate a
// power loss (the durable image of each file: its last synced content plus a
// random, possibly torn, subset of the later writes). Used by the reliability
// tests of Quarry (Tests/QuarryTests/Reliability/PowerLoss*, IOError*).

#ifndef QUARRY_FAULT_VFS_H
#define QUARRY_FAULT_VFS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The name under which the VFS registers.
#define QUARRY_FAULT_VFS_NAME "quarry-fault"

/// The kinds of I/O calls the VFS counts and can fail.
typedef enum {
    QUARRY_FAULT_READ = 0,
    QUARRY_FAULT_WRITE = 1,
    QUARRY_FAULT_SYNC = 2,
    QUARRY_FAULT_TRUNCATE = 3,
    QUARRY_FAULT_DELETE = 4,
    /// xLock and xCheckReservedLock (xUnlock is counted apart and never fails).
    QUARRY_FAULT_LOCK = 5,
    QUARRY_FAULT_SHMMAP = 6,
    QUARRY_FAULT_SHMLOCK = 7,
    QUARRY_FAULT_FILESIZE = 8,
    QUARRY_FAULT_ACCESS = 9,
    QUARRY_FAULT_OPEN = 10,
    /// Counted only: xUnlock.
    QUARRY_FAULT_UNLOCK = 11,
    QUARRY_FAULT_KIND_COUNT = 12
} QuarryFaultKind;

/// Figures of the power-loss images written so far (since the last
/// quarry_fault_vfs_reset_statistics).
typedef enum {
    /// Writes issued after the last sync of their file, when the power was cut.
    QUARRY_FAULT_STAT_PENDING_WRITES = 0,
    /// Of those, the writes that landed whole in the durable image.
    QUARRY_FAULT_STAT_WRITES_LANDED = 1,
    /// The writes that landed torn: some of their 512-byte sectors only.
    QUARRY_FAULT_STAT_WRITES_TORN = 2,
    /// The writes that did not land at all.
    QUARRY_FAULT_STAT_WRITES_DROPPED = 3,
    QUARRY_FAULT_STAT_TRUNCATES_APPLIED = 4,
    QUARRY_FAULT_STAT_TRUNCATES_DROPPED = 5,
    /// Unsynced directory changes (a delete without syncDir, a creation
    /// before the directory was synced) that the image undid.
    QUARRY_FAULT_STAT_DIRECTORY_CHANGES_UNDONE = 6,
    QUARRY_FAULT_STAT_DIRECTORY_CHANGES_KEPT = 7,
    /// Power cuts (by hand or at the Nth call).
    QUARRY_FAULT_STAT_CUTS = 8,
    QUARRY_FAULT_STAT_COUNT = 9
} QuarryFaultStatistic;

/// Registers the VFS (once; later calls do nothing). Returns an SQLite result code.
int quarry_fault_vfs_register(int makeDefault);

/// Counters: calls of `kind` since the last quarry_fault_vfs_reset_counters.
int64_t quarry_fault_vfs_count(int kind);
void quarry_fault_vfs_reset_counters(void);

/// Fails the `nth` call of `kind` (1-based, counted from this call) with
/// `code`; with `persistent`, every later call of that kind too. One fault at
/// a time: a new one replaces the previous.
void quarry_fault_vfs_fail(int kind, int64_t nth, int code, int persistent);
/// Removes the fault.
void quarry_fault_vfs_clear_fault(void);
/// How many calls the current fault failed.
int64_t quarry_fault_vfs_fault_hits(void);

/// The seed of the power-loss choices.
void quarry_fault_vfs_seed(uint64_t seed);
/// Cuts the power now: from then on every I/O call fails with SQLITE_IOERR,
/// and the durable image of each file is chosen.
void quarry_fault_vfs_cut_power(void);
/// Cuts the power at the `nth` call (1-based, from now) whose kind is in
/// `kindMask` (bit 1 << kind); that call fails. 0 disarms.
void quarry_fault_vfs_cut_power_at(uint32_t kindMask, int64_t nth);
/// Whether the power is cut.
int quarry_fault_vfs_power_is_cut(void);
/// Files of the VFS still open.
int quarry_fault_vfs_open_file_count(void);

/// After a cut, once every connection is closed: rewrites each file on disk
/// to its durable image, deletes the -shm files, restores the power and
/// forgets the files. Returns SQLITE_MISUSE while files are open or when the
/// power is not cut, SQLITE_IOERR when the disk refuses.
int quarry_fault_vfs_write_power_loss_image(void);

/// Forgets the files the VFS tracks (their synced content), restores the
/// power and clears the fault; SQLITE_MISUSE while files are open.
int quarry_fault_vfs_forget_files(void);

/// Whether xSync (and the directory sync of xDelete) reach the disk (the
/// default) or only the model: a power-loss run needs the model only, and
/// skipping the fsync(2) calls makes it much faster.
void quarry_fault_vfs_set_real_syncs(int on);

/// Caps each xSleep (SQLite's waits between retries of a refused lock) at
/// `microseconds`, while reporting the full sleep; -1 (the default) removes the cap.
void quarry_fault_vfs_set_sleep_cap(int microseconds);

int64_t quarry_fault_vfs_statistic(int which);
void quarry_fault_vfs_reset_statistics(void);

#ifdef __cplusplus
}
#endif

#endif

// QuarryFaultVFS: the implementation of the fault-injecting VFS of the
// reliability tests (see include/QuarryFaultVFS.h). It forwards every call
// to the "unix" VFS, under one process-wide mutex, and keeps a model of
// what a power loss would leave on the disk:
//
// - Files are tracked by "inode": the content as of the last xSync, plus the
//   writes and truncations issued since (pending). A sync folds the pending
//   operations into the synced content.
// - The directory is tracked by path: the durable entry (as of the last
//   directory sync) and the current one. The unix VFS syncs the directory
//   when xDelete is called with syncDir = 1, and on the first xSync of a
//   journal or WAL file opened with SQLITE_OPEN_CREATE; the model does the
//   same. A file that existed when the VFS first saw it is durable.
// - At a cut, each path whose durable and current entries differ gets one of
//   the two at random; each pending write of the chosen inode lands whole,
//   lands torn (only some of its 512-byte sectors) or not at all; each pending
//   truncation is applied or not. The -shm files are dropped.

#include "QuarryFaultVFS.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// MARK: - The model

typedef struct FaultOp {
    int isTruncate;
    sqlite3_int64 offset;  // the write's offset, or the truncation's size
    int amount;
    unsigned char *data;
} FaultOp;

typedef struct FaultInode {
    unsigned char *synced;
    sqlite3_int64 syncedSize;
    sqlite3_int64 syncedCapacity;
    FaultOp *ops;
    int opCount;
    int opCapacity;
    struct FaultInode *nextAllocated;
} FaultInode;

typedef struct FaultPath {
    char *name;
    FaultInode *durable;  // NULL: absent from the durable directory
    FaultInode *current;  // NULL: absent now
    int isMainDatabase;
    // The image chosen at the cut.
    int imageExists;
    unsigned char *image;
    sqlite3_int64 imageSize;
} FaultPath;

typedef struct FaultFile {
    sqlite3_file base;
    sqlite3_file *real;
    FaultInode *inode;  // NULL for files without a name (temporary)
    int syncsDirectory;
    int isOpen;
} FaultFile;

static pthread_mutex_t faultMutex = PTHREAD_MUTEX_INITIALIZER;
static sqlite3_vfs *realVFS = NULL;
static int isRegistered = 0;

static FaultPath *paths = NULL;
static int pathCount = 0;
static int pathCapacity = 0;
static FaultInode *allocatedInodes = NULL;
static int openFileCount = 0;

static int64_t counters[QUARRY_FAULT_KIND_COUNT];
static int64_t statistics[QUARRY_FAULT_STAT_COUNT];

static int faultKind = -1;
static int64_t faultNth = 0;
static int64_t faultSeen = 0;
static int faultCode = SQLITE_IOERR;
static int faultPersistent = 0;
static int64_t faultHits = 0;

static int powerIsCut = 0;
static int realSyncs = 1;
static int sleepCap = -1;
static uint32_t cutMask = 0;
static int64_t cutNth = 0;
static int64_t cutSeen = 0;
static uint64_t randomState = 0x5155415252590001ULL;

static uint64_t nextRandom(void) {
    randomState += 0x9E3779B97F4A7C15ULL;
    uint64_t z = randomState;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/// A random value in 0..<bound.
static uint64_t randomBelow(uint64_t bound) { return bound == 0 ? 0 : nextRandom() % bound; }

static int reserve(unsigned char **buffer, sqlite3_int64 *capacity, sqlite3_int64 size) {
    if (size <= *capacity) return SQLITE_OK;
    sqlite3_int64 newCapacity = *capacity < 4096 ? 4096 : *capacity;
    while (newCapacity < size) newCapacity *= 2;
    unsigned char *grown = realloc(*buffer, (size_t)newCapacity);
    if (grown == NULL) return SQLITE_NOMEM;
    *buffer = grown;
    *capacity = newCapacity;
    return SQLITE_OK;
}

/// Sets the size of a buffer, filling a growth with zeros.
static int resizeBuffer(unsigned char **buffer, sqlite3_int64 *size, sqlite3_int64 *capacity, sqlite3_int64 newSize) {
    int rc = reserve(buffer, capacity, newSize);
    if (rc != SQLITE_OK) return rc;
    if (newSize > *size) memset(*buffer + *size, 0, (size_t)(newSize - *size));
    *size = newSize;
    return SQLITE_OK;
}

/// Copies bytes into a buffer, growing it (with zeros) as needed.
static int writeBuffer(unsigned char **buffer, sqlite3_int64 *size, sqlite3_int64 *capacity,
                       sqlite3_int64 offset, const unsigned char *data, sqlite3_int64 amount) {
    if (offset + amount > *size) {
        int rc = resizeBuffer(buffer, size, capacity, offset + amount);
        if (rc != SQLITE_OK) return rc;
    }
    memcpy(*buffer + offset, data, (size_t)amount);
    return SQLITE_OK;
}

static FaultInode *newInode(void) {
    FaultInode *inode = calloc(1, sizeof(FaultInode));
    if (inode == NULL) return NULL;
    inode->nextAllocated = allocatedInodes;
    allocatedInodes = inode;
    return inode;
}

static void freeOps(FaultInode *inode) {
    for (int i = 0; i < inode->opCount; i++) free(inode->ops[i].data);
    inode->opCount = 0;
}

/// Reads a file of the disk into a new inode; NULL when it cannot.
static FaultInode *inodeFromDisk(const char *name) {
    FaultInode *inode = newInode();
    if (inode == NULL) return NULL;
    int fd = open(name, O_RDONLY);
    if (fd < 0) return inode;
    unsigned char chunk[65536];
    for (;;) {
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        if (writeBuffer(&inode->synced, &inode->syncedSize, &inode->syncedCapacity, inode->syncedSize, chunk, got) != SQLITE_OK) break;
    }
    close(fd);
    return inode;
}

static FaultPath *findPath(const char *name) {
    for (int i = 0; i < pathCount; i++) {
        if (strcmp(paths[i].name, name) == 0) return &paths[i];
    }
    return NULL;
}

/// The path's entry, created on first sight from the disk (a file that
/// exists then is taken as durable).
static FaultPath *trackPath(const char *name) {
    FaultPath *path = findPath(name);
    if (path != NULL) return path;
    if (pathCount == pathCapacity) {
        int newCapacity = pathCapacity == 0 ? 8 : pathCapacity * 2;
        FaultPath *grown = realloc(paths, sizeof(FaultPath) * (size_t)newCapacity);
        if (grown == NULL) return NULL;
        paths = grown;
        pathCapacity = newCapacity;
    }
    path = &paths[pathCount];
    memset(path, 0, sizeof *path);
    size_t length = strlen(name) + 1;
    path->name = malloc(length);
    if (path->name == NULL) return NULL;
    memcpy(path->name, name, length);
    struct stat info;
    if (stat(name, &info) == 0) {
        FaultInode *inode = inodeFromDisk(name);
        if (inode == NULL) {
            free(path->name);
            return NULL;
        }
        path->durable = inode;
        path->current = inode;
    }
    pathCount += 1;
    return path;
}

/// A directory sync: every current entry becomes durable.
static void syncDirectory(void) {
    for (int i = 0; i < pathCount; i++) paths[i].durable = paths[i].current;
}

static int recordOp(FaultInode *inode, int isTruncate, sqlite3_int64 offset, const void *data, int amount) {
    if (inode->opCount == inode->opCapacity) {
        int newCapacity = inode->opCapacity == 0 ? 16 : inode->opCapacity * 2;
        FaultOp *grown = realloc(inode->ops, sizeof(FaultOp) * (size_t)newCapacity);
        if (grown == NULL) return SQLITE_NOMEM;
        inode->ops = grown;
        inode->opCapacity = newCapacity;
    }
    FaultOp *op = &inode->ops[inode->opCount];
    op->isTruncate = isTruncate;
    op->offset = offset;
    op->amount = amount;
    op->data = NULL;
    if (!isTruncate) {
        op->data = malloc((size_t)(amount > 0 ? amount : 1));
        if (op->data == NULL) return SQLITE_NOMEM;
        memcpy(op->data, data, (size_t)amount);
    }
    inode->opCount += 1;
    return SQLITE_OK;
}

/// A file sync: the pending operations become the synced content.
static int syncInode(FaultInode *inode) {
    for (int i = 0; i < inode->opCount; i++) {
        FaultOp *op = &inode->ops[i];
        int rc = op->isTruncate
            ? resizeBuffer(&inode->synced, &inode->syncedSize, &inode->syncedCapacity, op->offset)
            : writeBuffer(&inode->synced, &inode->syncedSize, &inode->syncedCapacity, op->offset, op->data, op->amount);
        if (rc != SQLITE_OK) return rc;
    }
    freeOps(inode);
    return SQLITE_OK;
}

/// The durable content of an inode: synced content plus a random subset of
/// the pending operations, some writes torn at 512-byte sectors.
static int chooseImage(FaultInode *inode, unsigned char **image, sqlite3_int64 *imageSize) {
    sqlite3_int64 capacity = 0;
    *image = NULL;
    *imageSize = 0;
    int rc = writeBuffer(image, imageSize, &capacity, 0, inode->synced, inode->syncedSize);
    if (rc != SQLITE_OK) return rc;
    for (int i = 0; i < inode->opCount; i++) {
        FaultOp *op = &inode->ops[i];
        if (op->isTruncate) {
            if (randomBelow(2) == 0) {
                statistics[QUARRY_FAULT_STAT_TRUNCATES_APPLIED] += 1;
                rc = resizeBuffer(image, imageSize, &capacity, op->offset);
            } else {
                statistics[QUARRY_FAULT_STAT_TRUNCATES_DROPPED] += 1;
            }
            if (rc != SQLITE_OK) return rc;
            continue;
        }
        statistics[QUARRY_FAULT_STAT_PENDING_WRITES] += 1;
        uint64_t roll = randomBelow(100);
        sqlite3_int64 start = op->offset;
        sqlite3_int64 end = op->offset + op->amount;
        sqlite3_int64 firstSector = start / 512;
        sqlite3_int64 lastSector = (end - 1) / 512;
        if (roll < 40 || op->amount == 0) {
            statistics[QUARRY_FAULT_STAT_WRITES_DROPPED] += 1;
        } else if (roll < 70 || firstSector == lastSector) {
            statistics[QUARRY_FAULT_STAT_WRITES_LANDED] += 1;
            rc = writeBuffer(image, imageSize, &capacity, start, op->data, op->amount);
        } else {
            // Torn: each sector lands or not; at least one of each.
            sqlite3_int64 sectors = lastSector - firstSector + 1;
            sqlite3_int64 forcedIn = (sqlite3_int64)randomBelow((uint64_t)sectors);
            sqlite3_int64 forcedOut = (forcedIn + 1 + (sqlite3_int64)randomBelow((uint64_t)(sectors - 1))) % sectors;
            statistics[QUARRY_FAULT_STAT_WRITES_TORN] += 1;
            for (sqlite3_int64 s = 0; s < sectors && rc == SQLITE_OK; s++) {
                int lands = s == forcedIn ? 1 : s == forcedOut ? 0 : (int)randomBelow(2);
                if (!lands) continue;
                sqlite3_int64 from = (firstSector + s) * 512;
                sqlite3_int64 to = from + 512;
                if (from < start) from = start;
                if (to > end) to = end;
                rc = writeBuffer(image, imageSize, &capacity, from, op->data + (from - start), to - from);
            }
        }
        if (rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}

/// Cuts the power: chooses the image of every path. Called under the mutex.
static void cutPowerLocked(void) {
    if (powerIsCut) return;
    powerIsCut = 1;
    cutMask = 0;
    statistics[QUARRY_FAULT_STAT_CUTS] += 1;
    for (int i = 0; i < pathCount; i++) {
        FaultPath *path = &paths[i];
        FaultInode *chosen = path->current;
        if (path->durable != path->current) {
            if (randomBelow(2) == 0) {
                chosen = path->durable;
                statistics[QUARRY_FAULT_STAT_DIRECTORY_CHANGES_UNDONE] += 1;
            } else {
                statistics[QUARRY_FAULT_STAT_DIRECTORY_CHANGES_KEPT] += 1;
            }
        }
        free(path->image);
        path->image = NULL;
        path->imageSize = 0;
        path->imageExists = chosen != NULL;
        // Out of memory leaves the synced content alone: still a possible image.
        if (chosen != NULL && chooseImage(chosen, &path->image, &path->imageSize) != SQLITE_OK) {
            free(path->image);
            path->image = NULL;
            path->imageSize = 0;
            (void)writeBuffer(&path->image, &path->imageSize, &(sqlite3_int64){0}, 0, chosen->synced, chosen->syncedSize);
        }
    }
}

/// Counts a call of `kind` and tells whether it must fail (and with which
/// code): after a cut, at the armed cut, or by the fault. Under the mutex.
static int admit(int kind) {
    counters[kind] += 1;
    if (powerIsCut) return SQLITE_IOERR;
    if (cutMask & (1u << kind)) {
        cutSeen += 1;
        if (cutSeen >= cutNth) {
            cutPowerLocked();
            return SQLITE_IOERR;
        }
    }
    if (kind == faultKind) {
        faultSeen += 1;
        if (faultSeen == faultNth || (faultPersistent && faultSeen > faultNth)) {
            faultHits += 1;
            return faultCode;
        }
    }
    return SQLITE_OK;
}

static void freeAllFiles(void) {
    for (int i = 0; i < pathCount; i++) {
        free(paths[i].name);
        free(paths[i].image);
    }
    free(paths);
    paths = NULL;
    pathCount = 0;
    pathCapacity = 0;
    while (allocatedInodes != NULL) {
        FaultInode *inode = allocatedInodes;
        allocatedInodes = inode->nextAllocated;
        freeOps(inode);
        free(inode->ops);
        free(inode->synced);
        free(inode);
    }
}

// MARK: - The file methods

static int faultClose(sqlite3_file *file) {
    FaultFile *p = (FaultFile *)file;
    pthread_mutex_lock(&faultMutex);
    int rc = SQLITE_OK;
    if (p->isOpen) {
        rc = p->real->pMethods != NULL ? p->real->pMethods->xClose(p->real) : SQLITE_OK;
        p->isOpen = 0;
        openFileCount -= 1;
    }
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

static int faultRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *p = (FaultFile *)file;
    pthread_mutex_lock(&faultMutex);
    int rc = admit(QUARRY_FAULT_READ);
    if (rc == SQLITE_OK) rc = p->real->pMethods->xRead(p->real, buffer, amount, offset);
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

static int faultWrite(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *p = (FaultFile *)file;
    pthread_mutex_lock(&faultMutex);
    int rc = admit(QUARRY_FAULT_WRITE);
    if (rc == SQLITE_OK) rc = p->real->pMethods->xWrite(p->real, buffer, amount, offset);
    if (rc == SQLITE_OK && p->inode != NULL) rc = recordOp(p->inode, 0, offset, buffer, amount);
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

static int faultTruncate(sqlite3_file *file, sqlite3_int64 size) {
    FaultFile *p = (FaultFile *)file;
    pthread_mutex_lock(&faultMutex);
    int rc = admit(QUARRY_FAULT_TRUNCATE);
    if (rc == SQLITE_OK) rc = p->real->pMethods->xTruncate(p->real, size);
    if (rc == SQLITE_OK && p->inode != NULL) rc = recordOp(p->inode, 1, size, NULL, 0);
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

static int faultSync(sqlite3_file *file, int flags) {
    FaultFile *p = (FaultFile *)file;
    pthread_mutex_lock(&faultMutex);
    int rc = admit(QUARRY_FAULT_SYNC);
    if (rc == SQLITE_OK && realSyncs) rc = p->real->pMethods->xSync(p->real, flags);
    if (rc == SQLITE_OK && p->inode != NULL) {
        rc = syncInode(p->inode);
        if (p->syncsDirectory) {
            syncDirectory();
            p->syncsDirectory = 0;
        }
    }
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

static int faultFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    FaultFile *p = (FaultFile *)file;
    pthread_mutex_lock(&faultMutex);
    int rc = admit(QUARRY_FAULT_FILESIZE);
    if (rc == SQLITE_OK) rc = p->real->pMethods->xFileSize(p->real, size);
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

static int faultLock(sqlite3_file *file, int level) {
    FaultFile *p = (FaultFile *)file;
    pthread_mutex_lock(&faultMutex);
    int rc = admit(QUARRY_FAULT_LOCK);
    if (rc == SQLITE_OK) rc = p->real->pMethods->xLock(p->real, level);
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

static int faultUnlock(sqlite3_file *file, int level) {
    FaultFile *p = (FaultFile *)file;
    pthread_mutex_lock(&faultMutex);
    counters[QUARRY_FAULT_UNLOCK] += 1;
    int rc = p->real->pMethods->xUnlock(p->real, level);
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

static int faultCheckReservedLock(sqlite3_file *file, int *isReserved) {
    FaultFile *p = (FaultFile *)file;
    pthread_mutex_lock(&faultMutex);
    int rc = admit(QUARRY_FAULT_LOCK);
    if (rc == SQLITE_OK) {
        rc = p->real->pMethods->xCheckReservedLock(p->real, isReserved);
    } else {
        *isReserved = 0;
    }
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

static int faultFileControl(sqlite3_file *file, int op, void *argument) {
    FaultFile *p = (FaultFile *)file;
    pthread_mutex_lock(&faultMutex);
    // A size hint may grow the file (with a chunk size): I/O, refused when the power is off.
    int rc = (powerIsCut && op == SQLITE_FCNTL_SIZE_HINT) ? SQLITE_IOERR
        : p->real->pMethods->xFileControl(p->real, op, argument);
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

static int faultSectorSize(sqlite3_file *file) {
    FaultFile *p = (FaultFile *)file;
    return p->real->pMethods->xSectorSize(p->real);
}

static int faultDeviceCharacteristics(sqlite3_file *file) {
    FaultFile *p = (FaultFile *)file;
    return p->real->pMethods->xDeviceCharacteristics(p->real);
}

static int faultShmMap(sqlite3_file *file, int region, int regionSize, int extend, void volatile **pointer) {
    FaultFile *p = (FaultFile *)file;
    pthread_mutex_lock(&faultMutex);
    int rc = admit(QUARRY_FAULT_SHMMAP);
    if (rc == SQLITE_OK) {
        rc = p->real->pMethods->xShmMap(p->real, region, regionSize, extend, pointer);
    } else {
        *pointer = NULL;
    }
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

static int faultShmLock(sqlite3_file *file, int offset, int n, int flags) {
    FaultFile *p = (FaultFile *)file;
    pthread_mutex_lock(&faultMutex);
    // Unlocking never fails: it only releases.
    int rc = (flags & SQLITE_SHM_UNLOCK) ? SQLITE_OK : admit(QUARRY_FAULT_SHMLOCK);
    if (rc == SQLITE_OK) rc = p->real->pMethods->xShmLock(p->real, offset, n, flags);
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

static void faultShmBarrier(sqlite3_file *file) {
    FaultFile *p = (FaultFile *)file;
    p->real->pMethods->xShmBarrier(p->real);
}

static int faultShmUnmap(sqlite3_file *file, int deleteFlag) {
    FaultFile *p = (FaultFile *)file;
    pthread_mutex_lock(&faultMutex);
    // After a cut, the -shm file is dropped by the image writer.
    int rc = p->real->pMethods->xShmUnmap(p->real, powerIsCut ? 0 : deleteFlag);
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

// Version 2: shared memory, but no memory-mapped I/O (xFetch), whose writes
// the model could not see.
static const sqlite3_io_methods faultMethods = {
    2,
    faultClose,
    faultRead,
    faultWrite,
    faultTruncate,
    faultSync,
    faultFileSize,
    faultLock,
    faultUnlock,
    faultCheckReservedLock,
    faultFileControl,
    faultSectorSize,
    faultDeviceCharacteristics,
    faultShmMap,
    faultShmLock,
    faultShmBarrier,
    faultShmUnmap,
    NULL,
    NULL,
};

// MARK: - The VFS methods

static size_t realFileOffset(void) { return (sizeof(FaultFile) + 15) & ~(size_t)15; }

static int faultOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    FaultFile *p = (FaultFile *)file;
    memset(p, 0, sizeof *p);
    p->real = (sqlite3_file *)((char *)file + realFileOffset());
    pthread_mutex_lock(&faultMutex);
    int rc = admit(QUARRY_FAULT_OPEN);
    if (rc != SQLITE_OK) {
        file->pMethods = NULL;
        pthread_mutex_unlock(&faultMutex);
        return rc;
    }
    rc = realVFS->xOpen(realVFS, name, p->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        file->pMethods = NULL;
        pthread_mutex_unlock(&faultMutex);
        return rc;
    }
    int durableKinds = SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_WAL | SQLITE_OPEN_SUPER_JOURNAL;
    if (name != NULL && (flags & durableKinds) && !(flags & SQLITE_OPEN_DELETEONCLOSE)) {
        FaultPath *path = trackPath(name);
        if (path == NULL) {
            p->real->pMethods->xClose(p->real);
            file->pMethods = NULL;
            pthread_mutex_unlock(&faultMutex);
            return SQLITE_NOMEM;
        }
        if (flags & SQLITE_OPEN_MAIN_DB) path->isMainDatabase = 1;
        if (path->current == NULL) path->current = newInode();
        p->inode = path->current;
        // As the unix VFS: a journal or WAL opened with O_CREAT syncs its
        // directory at its first sync.
        p->syncsDirectory = (flags & SQLITE_OPEN_CREATE)
            && (flags & (SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_WAL | SQLITE_OPEN_SUPER_JOURNAL));
    }
    p->isOpen = 1;
    openFileCount += 1;
    file->pMethods = &faultMethods;
    pthread_mutex_unlock(&faultMutex);
    return SQLITE_OK;
}

static int faultDelete(sqlite3_vfs *vfs, const char *name, int syncDir) {
    (void)vfs;
    pthread_mutex_lock(&faultMutex);
    int rc = admit(QUARRY_FAULT_DELETE);
    FaultPath *path = NULL;
    if (rc == SQLITE_OK) path = trackPath(name);  // before the file goes: its content may come back
    if (rc == SQLITE_OK) rc = realVFS->xDelete(realVFS, name, realSyncs ? syncDir : 0);
    if (rc == SQLITE_OK && path != NULL) {
        path->current = NULL;
        if (syncDir) syncDirectory();
    }
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

static int faultAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    pthread_mutex_lock(&faultMutex);
    int rc = admit(QUARRY_FAULT_ACCESS);
    if (rc == SQLITE_OK) {
        rc = realVFS->xAccess(realVFS, name, flags, result);
    } else {
        *result = 0;
    }
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

static int faultFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *output) {
    (void)vfs;
    return realVFS->xFullPathname(realVFS, name, size, output);
}

static void *faultDlOpen(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return realVFS->xDlOpen(realVFS, name);
}

static void faultDlError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    realVFS->xDlError(realVFS, size, message);
}

static void (*faultDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return realVFS->xDlSym(realVFS, handle, symbol);
}

static void faultDlClose(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    realVFS->xDlClose(realVFS, handle);
}

static int faultRandomness(sqlite3_vfs *vfs, int size, char *output) {
    (void)vfs;
    return realVFS->xRandomness(realVFS, size, output);
}

static int faultSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    pthread_mutex_lock(&faultMutex);
    int cap = sleepCap;
    pthread_mutex_unlock(&faultMutex);
    if (cap < 0 || microseconds <= cap) return realVFS->xSleep(realVFS, microseconds);
    realVFS->xSleep(realVFS, cap);
    return microseconds;
}

static int faultCurrentTime(sqlite3_vfs *vfs, double *time) {
    (void)vfs;
    return realVFS->xCurrentTime(realVFS, time);
}

static int faultGetLastError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    return realVFS->xGetLastError(realVFS, size, message);
}

static int faultCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *time) {
    (void)vfs;
    return realVFS->xCurrentTimeInt64(realVFS, time);
}

static sqlite3_vfs faultVFS = {
    2,
    0,
    0,
    NULL,
    QUARRY_FAULT_VFS_NAME,
    NULL,
    faultOpen,
    faultDelete,
    faultAccess,
    faultFullPathname,
    faultDlOpen,
    faultDlError,
    faultDlSym,
    faultDlClose,
    faultRandomness,
    faultSleep,
    faultCurrentTime,
    faultGetLastError,
    faultCurrentTimeInt64,
    NULL,
    NULL,
    NULL,
};

// MARK: - The public functions

int quarry_fault_vfs_register(int makeDefault) {
    pthread_mutex_lock(&faultMutex);
    int rc = SQLITE_OK;
    if (!isRegistered) {
        realVFS = sqlite3_vfs_find("unix");
        if (realVFS == NULL || realVFS->iVersion < 2) {
            rc = SQLITE_ERROR;
        } else {
            faultVFS.szOsFile = (int)(realFileOffset() + (size_t)realVFS->szOsFile);
            faultVFS.mxPathname = realVFS->mxPathname;
            rc = sqlite3_vfs_register(&faultVFS, makeDefault);
            if (rc == SQLITE_OK) isRegistered = 1;
        }
    } else if (makeDefault) {
        rc = sqlite3_vfs_register(&faultVFS, 1);
    }
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

int64_t quarry_fault_vfs_count(int kind) {
    if (kind < 0 || kind >= QUARRY_FAULT_KIND_COUNT) return 0;
    pthread_mutex_lock(&faultMutex);
    int64_t value = counters[kind];
    pthread_mutex_unlock(&faultMutex);
    return value;
}

void quarry_fault_vfs_reset_counters(void) {
    pthread_mutex_lock(&faultMutex);
    memset(counters, 0, sizeof counters);
    pthread_mutex_unlock(&faultMutex);
}

void quarry_fault_vfs_fail(int kind, int64_t nth, int code, int persistent) {
    pthread_mutex_lock(&faultMutex);
    faultKind = kind;
    faultNth = nth;
    faultSeen = 0;
    faultCode = code;
    faultPersistent = persistent;
    faultHits = 0;
    pthread_mutex_unlock(&faultMutex);
}

void quarry_fault_vfs_clear_fault(void) {
    pthread_mutex_lock(&faultMutex);
    faultKind = -1;
    faultSeen = 0;
    pthread_mutex_unlock(&faultMutex);
}

int64_t quarry_fault_vfs_fault_hits(void) {
    pthread_mutex_lock(&faultMutex);
    int64_t value = faultHits;
    pthread_mutex_unlock(&faultMutex);
    return value;
}

void quarry_fault_vfs_seed(uint64_t seed) {
    pthread_mutex_lock(&faultMutex);
    randomState = seed;
    pthread_mutex_unlock(&faultMutex);
}

void quarry_fault_vfs_cut_power(void) {
    pthread_mutex_lock(&faultMutex);
    cutPowerLocked();
    pthread_mutex_unlock(&faultMutex);
}

void quarry_fault_vfs_cut_power_at(uint32_t kindMask, int64_t nth) {
    pthread_mutex_lock(&faultMutex);
    cutMask = nth > 0 ? kindMask : 0;
    cutNth = nth;
    cutSeen = 0;
    pthread_mutex_unlock(&faultMutex);
}

int quarry_fault_vfs_power_is_cut(void) {
    pthread_mutex_lock(&faultMutex);
    int value = powerIsCut;
    pthread_mutex_unlock(&faultMutex);
    return value;
}

int quarry_fault_vfs_open_file_count(void) {
    pthread_mutex_lock(&faultMutex);
    int value = openFileCount;
    pthread_mutex_unlock(&faultMutex);
    return value;
}

/// Replaces the content of a file on disk; SQLITE_OK or SQLITE_IOERR.
static int replaceFile(const char *name, const unsigned char *content, sqlite3_int64 size) {
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return SQLITE_IOERR;
    sqlite3_int64 done = 0;
    while (done < size) {
        ssize_t wrote = write(fd, content + done, (size_t)(size - done));
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) {
            close(fd);
            return SQLITE_IOERR;
        }
        done += wrote;
    }
    int rc = fsync(fd) == 0 ? SQLITE_OK : SQLITE_IOERR;
    close(fd);
    return rc;
}

int quarry_fault_vfs_write_power_loss_image(void) {
    pthread_mutex_lock(&faultMutex);
    if (!powerIsCut || openFileCount != 0) {
        pthread_mutex_unlock(&faultMutex);
        return SQLITE_MISUSE;
    }
    int rc = SQLITE_OK;
    for (int i = 0; i < pathCount && rc == SQLITE_OK; i++) {
        FaultPath *path = &paths[i];
        if (path->imageExists) {
            rc = replaceFile(path->name, path->image, path->imageSize);
        } else if (unlink(path->name) != 0 && errno != ENOENT) {
            rc = SQLITE_IOERR;
        }
        if (rc == SQLITE_OK && path->isMainDatabase) {
            size_t length = strlen(path->name);
            char *shm = malloc(length + 5);
            if (shm == NULL) {
                rc = SQLITE_NOMEM;
            } else {
                memcpy(shm, path->name, length);
                memcpy(shm + length, "-shm", 5);
                if (unlink(shm) != 0 && errno != ENOENT) rc = SQLITE_IOERR;
                free(shm);
            }
        }
    }
    freeAllFiles();
    powerIsCut = 0;
    cutMask = 0;
    pthread_mutex_unlock(&faultMutex);
    return rc;
}

int quarry_fault_vfs_forget_files(void) {
    pthread_mutex_lock(&faultMutex);
    if (openFileCount != 0) {
        pthread_mutex_unlock(&faultMutex);
        return SQLITE_MISUSE;
    }
    freeAllFiles();
    powerIsCut = 0;
    cutMask = 0;
    faultKind = -1;
    pthread_mutex_unlock(&faultMutex);
    return SQLITE_OK;
}

void quarry_fault_vfs_set_real_syncs(int on) {
    pthread_mutex_lock(&faultMutex);
    realSyncs = on;
    pthread_mutex_unlock(&faultMutex);
}

void quarry_fault_vfs_set_sleep_cap(int microseconds) {
    pthread_mutex_lock(&faultMutex);
    sleepCap = microseconds;
    pthread_mutex_unlock(&faultMutex);
}

int64_t quarry_fault_vfs_statistic(int which) {
    if (which < 0 || which >= QUARRY_FAULT_STAT_COUNT) return 0;
    pthread_mutex_lock(&faultMutex);
    int64_t value = statistics[which];
    pthread_mutex_unlock(&faultMutex);
    return value;
}

void quarry_fault_vfs_reset_statistics(void) {
    pthread_mutex_lock(&faultMutex);
    memset(statistics, 0, sizeof statistics);
    pthread_mutex_unlock(&faultMutex);
}

// Support of the power-loss and I/O-error tests: the Swift face of the
// fault-injecting SQLite VFS of Tests/FaultVFS (CQuarryFaultVFS), and the one
// lock that keeps its process-wide state to one test at a time.

import CQuarryFaultVFS
import CSQLite
import Foundation
import Quarry

/// The fault-injecting VFS, registered under `quarry-fault` (never as the default).
enum FaultVFS {
    /// A kind of I/O call that the VFS counts and can fail.
    enum Kind: Int32, CaseIterable, CustomStringConvertible, Sendable {
        case read = 0, write, sync, truncate, delete, lock, shmMap, shmLock, fileSize, access, open

        var description: String {
            switch self {
            case .read: return "read"
            case .write: return "write"
            case .sync: return "sync"
            case .truncate: return "truncate"
            case .delete: return "delete"
            case .lock: return "lock"
            case .shmMap: return "shm-map"
            case .shmLock: return "shm-lock"
            case .fileSize: return "file-size"
            case .access: return "access"
            case .open: return "open"
            }
        }

        /// SQLite's extended I/O error code for a failure of this kind of
        /// call (<https://www.sqlite.org/rescode.html#ioerr>; the C macros
        /// do not reach Swift).
        var ioErrorCode: Int32 {
            func ioError(_ extended: Int32) -> Int32 { SQLITE_IOERR | (extended << 8) }
            switch self {
            case .read: return ioError(1)
            case .write: return ioError(3)
            case .sync: return ioError(4)
            case .truncate: return ioError(6)
            case .fileSize: return ioError(7)
            case .delete: return ioError(10)
            case .access: return ioError(13)
            case .lock: return ioError(15)
            case .shmLock: return ioError(20)
            case .shmMap: return ioError(21)
            case .open: return SQLITE_CANTOPEN
            }
        }

        var mask: UInt32 { 1 << UInt32(rawValue) }
    }

    /// The figures of the power-loss images written so far.
    enum Statistic: Int32, CaseIterable {
        case pendingWrites = 0, writesLanded, writesTorn, writesDropped, truncatesApplied, truncatesDropped
        case directoryChangesUndone, directoryChangesKept, cuts
    }

    /// Registers the VFS once; throws if SQLite refuses.
    static func register() throws {
        let code = quarry_fault_vfs_register(0)
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "could not register the quarry-fault VFS")
        }
    }

    /// The URI that opens `path` through the VFS.
    static func uri(_ path: String) -> String {
        var components = URLComponents()
        components.scheme = "file"
        components.path = path
        components.queryItems = [URLQueryItem(name: "vfs", value: "quarry-fault")]
        return components.string ?? "file:\(path)?vfs=quarry-fault"
    }

    static func count(_ kind: Kind) -> Int { Int(quarry_fault_vfs_count(kind.rawValue)) }

    /// The calls of every kind since the last `resetCounters()`.
    static func counts() -> [Kind: Int] {
        Dictionary(uniqueKeysWithValues: Kind.allCases.map { ($0, count($0)) })
    }

    static func resetCounters() { quarry_fault_vfs_reset_counters() }

    /// Fails the `nth` call of `kind` from now (every later one too when
    /// `persistent`) with `code`.
    static func fail(_ kind: Kind, nth: Int, code: Int32, persistent: Bool) {
        quarry_fault_vfs_fail(kind.rawValue, Int64(nth), code, persistent ? 1 : 0)
    }

    static func clearFault() { quarry_fault_vfs_clear_fault() }

    /// How many calls the current fault failed.
    static var faultHits: Int { Int(quarry_fault_vfs_fault_hits()) }

    static func seed(_ seed: UInt64) { quarry_fault_vfs_seed(seed) }

    static func cutPower() { quarry_fault_vfs_cut_power() }

    /// Cuts the power at the `nth` call, from now, of one of `kinds`.
    static func cutPower(atCall nth: Int, of kinds: [Kind]) {
        quarry_fault_vfs_cut_power_at(kinds.reduce(0) { $0 | $1.mask }, Int64(nth))
    }

    static var powerIsCut: Bool { quarry_fault_vfs_power_is_cut() != 0 }

    static var openFileCount: Int { Int(quarry_fault_vfs_open_file_count()) }

    /// Writes the durable image of every file after a cut (all connections closed).
    static func writePowerLossImage() throws {
        let code = quarry_fault_vfs_write_power_loss_image()
        guard code == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: "could not write the power-loss image (\(openFileCount) files of the VFS still open)")
        }
    }

    /// Forgets the tracked files and clears the power cut and the fault.
    static func forgetFiles() throws {
        let code = quarry_fault_vfs_forget_files()
        guard code == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: "could not forget the files of the VFS (\(openFileCount) still open)")
        }
    }

    /// Whether syncs reach the disk, or only the power-loss model.
    static func setRealSyncs(_ on: Bool) { quarry_fault_vfs_set_real_syncs(on ? 1 : 0) }

    /// The longest sleep of SQLite's lock retries (nil: as asked); the
    /// VFS still reports the sleep as asked, so that busy timeouts end sooner.
    static func setSleepCap(microseconds: Int?) { quarry_fault_vfs_set_sleep_cap(Int32(microseconds ?? -1)) }

    static func statistic(_ which: Statistic) -> Int { Int(quarry_fault_vfs_statistic(which.rawValue)) }

    static func resetStatistics() { quarry_fault_vfs_reset_statistics() }

    /// The VFS state is process-wide: the tests that use it take this lock
    /// for their whole run.
    private static let exclusion = NSLock()

    /// Runs `body` on a thread of its own (it blocks for seconds: not on
    /// Swift's cooperative pool) while holding the VFS for itself.
    static func exclusively<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            Thread.detachNewThread {
                exclusion.lock()
                defer { exclusion.unlock() }
                continuation.resume(with: Result { try register(); return try body() })
            }
        }
    }
}

// quarry-process-helper: a small executable that the reliability tests start
// as a separate process — to kill it with SIGKILL in the middle of writes, and
// to open a second DatabasePool on the same file from another process.
//
//     QuarryProcessHelper crash-writer PATH      (see CrashWriter.swift)
//     QuarryProcessHelper concurrent-writer ...  (see ConcurrentWriter.swift)
//     QuarryProcessHelper out-of-memory DIR      (see OutOfMemoryWriter.swift)
//     QuarryProcessHelper execute PATH SQL       (see SQLExecutor.swift)
//
// It is not a product: only the test target depends on it, so that
// `swift test` builds it next to the test bundle.

import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
switch arguments.first {
case "crash-writer":
    status = runCrashWriter(Array(arguments.dropFirst()))
case "concurrent-writer":
    status = runConcurrentWriter(Array(arguments.dropFirst()))
case "out-of-memory":
    status = runOutOfMemoryWriter(Array(arguments.dropFirst()))
case "execute":
    status = runSQLExecutor(Array(arguments.dropFirst()))
default:
    FileHandle.standardError.write(Data("usage: QuarryProcessHelper crash-writer|concurrent-writer|out-of-memory|execute ARGUMENTS\n".utf8))
    status = 64
}
exit(status)

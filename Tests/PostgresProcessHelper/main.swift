// QuarryPostgresProcessHelper: a small executable that the PostgreSQL tests
// start as separate processes, several at once, to race the migrator of one
// database the way replicas of a service do when they start together.
//
//     QuarryPostgresProcessHelper migrate URL SCHEMA LABEL
//
// It migrates the schema SCHEMA of the database at URL with the migrations of
// MigrationRace.swift, then prints "migrated LABEL". It exits with status 0
// on success, 1 on an error (printed on standard error), 64 on bad usage.
//
// It is not a product: only the PostgreSQL test target depends on it, so
// that `swift test` builds it next to the test bundle.

import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
switch arguments.first {
case "migrate" where arguments.count == 4:
    status = runMigrationRace(url: arguments[1], schema: arguments[2], label: arguments[3])
default:
    FileHandle.standardError.write(Data("usage: QuarryPostgresProcessHelper migrate URL SCHEMA LABEL\n".utf8))
    status = 64
}
exit(status)

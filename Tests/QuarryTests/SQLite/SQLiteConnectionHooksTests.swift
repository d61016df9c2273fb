// SQLite's hooks behind the seam (SQLite/SQLiteConnection+Hooks.swift): the
// trace options are SQLite's own trace bits, which the callback is given as
// they are. The hooks' behaviour is tested where it is used: the trace in
// DatabaseTests and LoggingTests, the progress handler in InterruptTests,
// the busy handler in ConcurrencyBusyWaitTests and MetricsTests.

import CSQLite
import Quarry
import Testing

@Suite struct SQLiteConnectionHooksTests {
    @Test func traceOptionsAreSQLitesTraceBits() {
        #expect(TraceOptions.statements.rawValue == Int32(SQLITE_TRACE_STMT))
        #expect(TraceOptions.profile.rawValue == Int32(SQLITE_TRACE_PROFILE))
    }
}

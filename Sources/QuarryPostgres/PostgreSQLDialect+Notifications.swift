// PostgreSQLDialect+Notifications: what ValueObservation needs from
// PostgreSQL — the trigger that notifies the commits of a table
// (`NOTIFY quarry_change, '<table>'`), and the tables a fetch reads, from the
// server's plan (partitions with the tables they partition).
//
// A statement-level trigger runs once per statement, whatever the number of
// rows, and `pg_notify` is delivered when (and only if) the transaction
// commits, once per distinct payload of a transaction
// (https://www.postgresql.org/docs/15/sql-notify.html): a rolled-back
// transaction notifies nothing, and a commit of many rows one notification.

import Foundation
import Quarry

extension PostgreSQLDialect {
    /// The channel of the change notifications.
    static let changeChannel = "quarry_change"

    /// The trigger function that notifies the table its trigger is on. Its
    /// body is a string literal (not `$$`-quoted) so that Quarry's scanner
    /// reads the statement as one.
    static let notifyFunctionSQL = """
        CREATE OR REPLACE FUNCTION quarry_notify_change() RETURNS trigger LANGUAGE plpgsql AS \
        'BEGIN PERFORM pg_notify(''\(changeChannel)'', TG_TABLE_NAME); RETURN NULL; END'
        """

    /// The relations scanned by the nodes of an `EXPLAIN (VERBOSE, FORMAT JSON)`
    /// plan, as (schema, name); nil when the plan cannot be read.
    static func relations(inPlan plan: String) -> [(schema: String, name: String)]? {
        guard let json = try? JSONSerialization.jsonObject(with: Data(plan.utf8)) else { return nil }
        var relations: [(schema: String, name: String)] = []
        func visit(_ node: Any) {
            if let array = node as? [Any] {
                array.forEach(visit)
            } else if let object = node as? [String: Any] {
                if let name = object["Relation Name"] as? String {
                    relations.append((object["Schema"] as? String ?? "", name))
                }
                object.values.forEach(visit)
            }
        }
        visit(json)
        return relations
    }

    /// The partitioned tables that `count` relations, bound as (schema,
    /// name) pairs, are partitions of. A plan scans partitions, while the
    /// notification trigger of a partitioned table names the table the
    /// statement wrote to, the partitioned one: the region needs both.
    static func partitionAncestorsSQL(count: Int) -> String {
        let values = (0..<count).map { "($\(2 * $0 + 1), $\(2 * $0 + 2))" }.joined(separator: ", ")
        return """
            SELECT DISTINCT a.relname FROM (VALUES \(values)) AS r(nspname, relname) \
            JOIN pg_namespace n ON n.nspname = r.nspname \
            JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = r.relname AND c.relispartition \
            CROSS JOIN LATERAL pg_partition_ancestors(c.oid) AS p \
            JOIN pg_class a ON a.oid = p.relid
            """
    }
}

extension Database {
    /// Installs, on the PostgreSQL table `table`, the trigger that lets
    /// `ValueObservation` and `DatabaseRegionObservation` see its commits:
    /// any process's, this one's included. Idempotent: call it from a
    /// migration, again after recreating the table.
    ///
    /// ```swift
    /// migrator.registerMigration("Observe books") { db in
    ///     try db.createChangeNotificationTrigger(on: "book")
    /// }
    /// ```
    ///
    /// ```sql
    /// CREATE OR REPLACE FUNCTION quarry_notify_change() RETURNS trigger LANGUAGE plpgsql AS
    ///   'BEGIN PERFORM pg_notify(''quarry_change'', TG_TABLE_NAME); RETURN NULL; END'
    /// DROP TRIGGER IF EXISTS quarry_notify_change ON "book"
    /// CREATE TRIGGER quarry_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "book"
    ///   FOR EACH STATEMENT EXECUTE FUNCTION quarry_notify_change()
    /// ```
    ///
    /// The trigger runs once per statement that may change the table, even
    /// when it changes no row, and costs one notification per transaction
    /// and table (PostgreSQL merges equal notifications of a transaction).
    /// A table without the trigger is never seen changed: observations of
    /// it keep their first value.
    ///
    /// - Throws: `DatabaseError` on SQLite (SQLite's observation needs no
    ///   trigger), or if the table does not exist.
    public func createChangeNotificationTrigger(on table: String) throws {
        try requirePostgreSQL("createChangeNotificationTrigger(on:)")
        try execute(sql: PostgreSQLDialect.notifyFunctionSQL)
        try execute(sql: "DROP TRIGGER IF EXISTS quarry_notify_change ON \(table.quotedDatabaseIdentifier)")
        try execute(sql: """
            CREATE TRIGGER quarry_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE \
            ON \(table.quotedDatabaseIdentifier) FOR EACH STATEMENT EXECUTE FUNCTION quarry_notify_change()
            """)
    }

    /// Removes the trigger of ``createChangeNotificationTrigger(on:)`` from
    /// `table`, if it is there.
    ///
    /// ```sql
    /// DROP TRIGGER IF EXISTS quarry_notify_change ON "book"
    /// ```
    public func dropChangeNotificationTrigger(on table: String) throws {
        try requirePostgreSQL("dropChangeNotificationTrigger(on:)")
        try execute(sql: "DROP TRIGGER IF EXISTS quarry_notify_change ON \(table.quotedDatabaseIdentifier)")
    }

    private func requirePostgreSQL(_ feature: String) throws {
        guard serverDriver is PostgresServerConnection else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "\(feature) is for PostgreSQL; on SQLite, observation needs no trigger")
        }
    }
}

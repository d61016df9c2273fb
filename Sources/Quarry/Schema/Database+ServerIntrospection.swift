// Schema introspection on a PostgreSQL server: the answers of
// Database+Introspection.swift, read from PostgreSQL's system catalogs
// (<https://www.postgresql.org/docs/15/catalogs.html>) instead of SQLite's
// pragmas. Names are matched exactly (Quarry quotes identifiers), in the
// schemas of the connection's search path.

extension Database {
    /// The catalog condition on `pg_class c` / `pg_namespace n` that finds a
    /// relation by name in the search path.
    private static let relationInSearchPath = "c.relname = ? AND n.nspname = ANY (pg_catalog.current_schemas(false))"

    /// Whether a relation of one of `kinds` (`pg_class.relkind`) exists.
    func postgresRelationExists(_ name: String, kinds: String) throws -> Bool {
        try Bool.fetchOne(
            self,
            sql: """
                SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c
                JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                WHERE \(Self.relationInSearchPath) AND c.relkind IN (\(kinds)))
                """,
            arguments: [name]) ?? false
    }

    func postgresTriggerExists(_ name: String) throws -> Bool {
        try Bool.fetchOne(
            self, sql: "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE tgname = ? AND NOT tgisinternal)",
            arguments: [name]) ?? false
    }

    func postgresHasTriggers(on table: String) throws -> Bool {
        try Bool.fetchOne(
            self,
            sql: """
                SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger t
                JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
                JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                WHERE \(Self.relationInSearchPath) AND NOT t.tgisinternal)
                """,
            arguments: [table]) ?? false
    }

    /// The columns of a table or view: `format_type` names the type as
    /// PostgreSQL writes it (`bigint`, `character varying(20)`).
    func postgresColumns(in table: String) throws -> [ColumnInfo] {
        let rows = try Row.fetchAll(
            self,
            sql: """
                SELECT a.attname AS name, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type,
                    a.attnotnull AS "notnull", pg_catalog.pg_get_expr(d.adbin, d.adrelid) AS dflt_value,
                    COALESCE((SELECT k.ord FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                        WHERE k.attnum = a.attnum), 0) AS pk,
                    a.attgenerated <> '' AS generated
                FROM pg_catalog.pg_attribute a
                JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
                JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                LEFT JOIN pg_catalog.pg_index i ON i.indrelid = c.oid AND i.indisprimary
                WHERE \(Self.relationInSearchPath) AND a.attnum > 0 AND NOT a.attisdropped
                ORDER BY a.attnum
                """,
            arguments: [table])
        guard !rows.isEmpty else { throw Database.noSuchTable(table) }
        return try rows.map { row in
            ColumnInfo(
                name: try row["name"], type: try row["type"] ?? "", isNotNull: try row["notnull"],
                defaultValueSQL: try row["dflt_value"], primaryKeyIndex: try row["pk"], isGenerated: try row["generated"])
        }
    }

    /// The primary key of a table. PostgreSQL has no rowid: a table without
    /// primary key has no key columns.
    func postgresPrimaryKey(_ table: String) throws -> PrimaryKeyInfo {
        let keyColumns = try postgresColumns(in: table)
            .filter { $0.primaryKeyIndex > 0 }
            .sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
        return PrimaryKeyInfo(columns: keyColumns.map(\.name), rowIDColumn: nil, isHiddenRowID: false)
    }

    func postgresForeignKeys(on table: String) throws -> [ForeignKeyInfo] {
        guard try postgresRelationExists(table, kinds: "'r', 'p', 'f'") else { throw Database.noSuchTable(table) }
        let rows = try Row.fetchAll(
            self,
            sql: """
                SELECT con.oid::int8 AS id, fc.relname AS "table", a.attname AS "from", fa.attname AS "to",
                    con.confupdtype::text AS on_update, con.confdeltype::text AS on_delete
                FROM pg_catalog.pg_constraint con
                JOIN pg_catalog.pg_class c ON c.oid = con.conrelid
                JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                JOIN pg_catalog.pg_class fc ON fc.oid = con.confrelid
                CROSS JOIN LATERAL unnest(con.conkey, con.confkey) WITH ORDINALITY AS k(attnum, fattnum, ord)
                JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
                JOIN pg_catalog.pg_attribute fa ON fa.attrelid = con.confrelid AND fa.attnum = k.fattnum
                WHERE con.contype = 'f' AND \(Self.relationInSearchPath)
                ORDER BY con.oid, k.ord
                """,
            arguments: [table])
        var keys: [ForeignKeyInfo] = []
        for row in rows {
            let id: Int = try row["id"]
            if let last = keys.last, last.id == id {
                keys[keys.count - 1] = ForeignKeyInfo(
                    id: id, destinationTable: last.destinationTable, originColumns: last.originColumns + [try row["from"]],
                    destinationColumns: last.destinationColumns + [try row["to"]], onDelete: last.onDelete,
                    onUpdate: last.onUpdate)
            } else {
                keys.append(ForeignKeyInfo(
                    id: id, destinationTable: try row["table"], originColumns: [try row["from"]],
                    destinationColumns: [try row["to"]], onDelete: Self.foreignKeyAction(try row["on_delete"]),
                    onUpdate: Self.foreignKeyAction(try row["on_update"])))
            }
        }
        return keys
    }

    /// `pg_constraint.confdeltype` and `confupdtype` codes.
    private static func foreignKeyAction(_ code: String) -> ForeignKeyAction {
        switch code {
        case "r": return .restrict
        case "c": return .cascade
        case "n": return .setNull
        case "d": return .setDefault
        default: return .noAction
        }
    }

    func postgresIndexes(on table: String) throws -> [IndexInfo] {
        guard try postgresRelationExists(table, kinds: "'r', 'p', 'm'") else { throw Database.noSuchTable(table) }
        let list = try Row.fetchAll(
            self,
            sql: """
                SELECT ic.relname AS name, i.indisunique AS "unique",
                    CASE WHEN i.indisprimary THEN 'pk' WHEN con.contype = 'u' THEN 'u' ELSE 'c' END AS origin,
                    i.indpred IS NOT NULL AS partial, i.indexrelid::int8 AS oid
                FROM pg_catalog.pg_index i
                JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
                JOIN pg_catalog.pg_class c ON c.oid = i.indrelid
                JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                LEFT JOIN pg_catalog.pg_constraint con ON con.conindid = i.indexrelid AND con.contype IN ('u', 'p')
                WHERE \(Self.relationInSearchPath)
                ORDER BY ic.relname
                """,
            arguments: [table])
        return try list.map { row in
            let oid: Int64 = try row["oid"]
            // An expression has no column name: "", as SQLite reports it.
            let columns = try Optional<String>.fetchAll(
                self,
                sql: """
                    SELECT a.attname FROM pg_catalog.pg_index i
                    CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                    LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                    WHERE i.indexrelid = ?::int8::oid ORDER BY k.ord
                    """,
                arguments: [oid])
            let origin: String = try row["origin"]
            return IndexInfo(
                name: try row["name"], columns: columns.map { $0 ?? "" }, isUnique: try row["unique"],
                origin: IndexInfo.Origin(rawValue: origin) ?? .createIndex, isPartial: try row["partial"])
        }
    }
}

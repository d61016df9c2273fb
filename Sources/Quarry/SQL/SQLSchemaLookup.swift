// SQLSchemaLookup: the few schema facts SQL generation needs — primary keys,
// foreign keys between two tables, and how many columns `table.*` selects.
//
// They are read with SQLite's table-valued pragma functions, whose table name
// argument is bound (https://www.sqlite.org/pragma.html#pragfunc).

enum SQLSchemaLookup {
    /// The primary key columns of `table`, in key order; `["rowid"]` for a
    /// table without an explicit primary key.
    static func primaryKey(_ db: Database, table: String) throws -> [String] {
        try requireTable(db, table)
        let columns = try String.fetchAll(
            db, sql: "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", arguments: [table])
        return columns.isEmpty ? ["rowid"] : columns
    }

    /// The number of columns `"table".*` selects (generated columns included,
    /// hidden columns of virtual tables excluded).
    static func selectedColumnCount(_ db: Database, table: String) throws -> Int {
        try requireTable(db, table)
        return try Int.fetchOne(
            db, sql: "SELECT count(*) FROM pragma_table_xinfo(?) WHERE hidden IN (0, 2, 3)", arguments: [table]) ?? 0
    }

    /// The (parent column, child column) pairs that join `childTable` to
    /// `parentTable`, from the schema's foreign keys.
    ///
    /// - parameters:
    ///   - childHoldsForeignKey: true when the child table has the foreign key
    ///     (has-many, has-one); false when the parent has it (belongs-to).
    ///   - foreignKeyColumns: the foreign key columns, when the association
    ///     names them. Without a matching foreign key in the schema, they are
    ///     paired with the referenced table's primary key.
    static func joinColumns(
        _ db: Database, parentTable: String, childTable: String,
        childHoldsForeignKey: Bool, foreignKeyColumns: [String]?
    ) throws -> [(parent: String, child: String)] {
        let holder = childHoldsForeignKey ? childTable : parentTable
        let referenced = childHoldsForeignKey ? parentTable : childTable
        try requireTable(db, holder)
        try requireTable(db, referenced)
        let rows = try Row.fetchAll(
            db, sql: """
                SELECT id, seq, "from", "to" FROM pragma_foreign_key_list(?)
                WHERE lower("table") = lower(?) ORDER BY id, seq
                """, arguments: [holder, referenced])
        // Group the rows by foreign key id.
        var keys: [(from: [String], to: [String?])] = []
        var lastID: Int?
        for row in rows {
            let id: Int = try row["id"]
            if id != lastID {
                keys.append(([], []))
                lastID = id
            }
            keys[keys.count - 1].from.append(try row["from"])
            keys[keys.count - 1].to.append(try row["to"])
        }
        if let foreignKeyColumns {
            keys = keys.filter { $0.from.map { $0.lowercased() } == foreignKeyColumns.map { $0.lowercased() } }
        }
        let pairs: [(holder: String, referenced: String)]
        switch keys.count {
        case 1:
            let key = keys[0]
            let referencedColumns: [String]
            if key.to.allSatisfy({ $0 != nil }) {
                referencedColumns = key.to.compactMap { $0 }
            } else {
                referencedColumns = try primaryKey(db, table: referenced)
            }
            guard referencedColumns.count == key.from.count else {
                throw DatabaseError.misuse("the foreign key from \(holder)(\(key.from.joined(separator: ", "))) does not match the primary key of \(referenced)")
            }
            pairs = Array(zip(key.from, referencedColumns))
        case 0:
            guard let foreignKeyColumns else {
                throw DatabaseError.misuse(
                    "no foreign key from \(holder) to \(referenced) in the schema: "
                        + "declare one, or name the foreign key column in the association (using:)")
            }
            let referencedColumns = try primaryKey(db, table: referenced)
            guard referencedColumns.count == foreignKeyColumns.count else {
                throw DatabaseError.misuse(
                    "the columns \(foreignKeyColumns.joined(separator: ", ")) of \(holder) do not match the primary key of \(referenced) (\(referencedColumns.joined(separator: ", ")))")
            }
            pairs = Array(zip(foreignKeyColumns, referencedColumns))
        default:
            throw DatabaseError.misuse(
                "several foreign keys link \(holder) to \(referenced): name the foreign key column in the association (using:)")
        }
        return pairs.map { childHoldsForeignKey ? (parent: $0.referenced, child: $0.holder) : (parent: $0.holder, child: $0.referenced) }
    }

    private static func requireTable(_ db: Database, _ table: String) throws {
        let exists = try Int.fetchOne(
            db, sql: "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND lower(name) = lower(?)",
            arguments: [table]) != nil
        if !exists {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table: \(table)")
        }
    }
}

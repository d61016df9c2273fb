// SQLSchemaLookup: the schema facts SQL generation needs — primary keys, the
// foreign keys between two tables, and how many columns `table.*` selects —
// read through the Schema layer's introspection.

enum SQLSchemaLookup {
    /// The primary key columns of `table`, in key order; `["rowid"]` for a
    /// table without an explicit primary key.
    static func primaryKey(_ db: Database, table: String) throws -> [String] {
        try db.primaryKey(table).columns
    }

    /// The number of columns `"table".*` selects (generated columns included,
    /// hidden columns of virtual tables excluded).
    static func selectedColumnCount(_ db: Database, table: String) throws -> Int {
        try db.columns(in: table).count
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
        guard try db.tableExists(referenced) else {
            throw db.sqlDialect.noSuchTable(referenced)
        }
        var keys = try db.foreignKeys(on: holder).filter { $0.destinationTable.asciiLowercased == referenced.asciiLowercased }
        if let foreignKeyColumns {
            keys = keys.filter { $0.originColumns.map { $0.asciiLowercased } == foreignKeyColumns.map { $0.asciiLowercased } }
        }
        let pairs: [(holder: String, referenced: String)]
        switch keys.count {
        case 1:
            let key = keys[0]
            guard key.destinationColumns.count == key.originColumns.count else {
                throw DatabaseError.misuse(
                    "the foreign key from \(holder)(\(key.originColumns.joined(separator: ", "))) does not match the primary key of \(referenced)")
            }
            pairs = Array(zip(key.originColumns, key.destinationColumns))
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
}

// Database+SchemaCheck: the start-up schema check — `db.checkSchema(of:
// Player.self, Team.self)` compares what each record type reads and writes
// with its live table, on SQLite and on PostgreSQL, and throws one
// SchemaCheckError that lists every mismatch.
//
// What a record reads comes from the key-path probe (RecordColumns.swift):
// its coding keys in order, their columns (naming strategy and column groups
// applied), the type decoded at each, and which are optional. What it writes
// comes from encoding the record the probe decoded (PersistenceContainer),
// so a hand-written `encode(to:)` counts too. The table side comes from the
// introspection both backends answer (`tableExists`, `columns(in:)`,
// `primaryKey`). Type compatibility is judged by SchemaStorageClass, which
// only flags what surely fails.

extension Database {
    /// Checks that the tables of the database match the given record types,
    /// and throws one ``SchemaCheckError`` that lists every mismatch.
    ///
    /// Run it at start-up, after migrating, to fail early and clearly instead
    /// of at the first fetch or insert that meets a stale schema:
    ///
    /// ```swift
    /// try dbPool.read { db in
    ///     try db.checkSchema(of: Player.self, Team.self)
    /// }
    /// ```
    ///
    /// For each record type, the check reads the columns of its
    /// ``TableRecord/databaseTableName`` (a table or a view) and reports:
    ///
    /// - a missing table or view;
    /// - a column the record writes, or reads into a non-optional property,
    ///   that the table does not have (a missing column read into an
    ///   optional property is not reported: it decodes as nil);
    /// - a non-optional property over a column that may hold NULL (primary
    ///   key and generated columns, and the columns of views, are trusted);
    /// - a property type that cannot read the values of the column's declared
    ///   type: a `Bool`, integer or floating-point property over a TEXT or
    ///   BLOB column, a `String` over an INTEGER column, `Data` over an
    ///   INTEGER column, a `Date` over a BLOB column… Columns that accept any
    ///   value (SQLite columns without a declared type or of NUMERIC affinity,
    ///   such as `BOOLEAN`, `DATE`, `JSON`; PostgreSQL `numeric`) and custom
    ///   ``DatabaseValueConvertible`` types are not judged. On PostgreSQL, a
    ///   property written as bytes (`Data`, a `UUID` with the default
    ///   ``DatabaseUUIDEncodingStrategy/blob``) needs a `bytea` column;
    /// - for a record that writes itself (``EncodableRecord``), a NOT NULL
    ///   column without a default that it never writes (the rowid or
    ///   identity key excepted): inserting it fails.
    ///
    /// Properties stored as JSON read one text column (or `jsonb`), column
    /// groups (``ColumnGroup``) one column per member, enum records
    /// (enums with associated values) the columns of all their cases, whose
    /// presence only is checked.
    ///
    /// - throws: ``SchemaCheckError`` with every mismatch found, or the error
    ///   of a failed schema query.
    public func checkSchema(of recordTypes: any (TableRecord & Decodable).Type...) throws {
        try checkSchema(of: recordTypes)
    }

    /// Checks that the tables of the database match the given record types;
    /// the variant that takes an array, such as the list of the record types
    /// of an application:
    ///
    /// ```swift
    /// let recordTypes: [any (TableRecord & Decodable).Type] = [Player.self, Team.self]
    /// try dbPool.read { db in try db.checkSchema(of: recordTypes) }
    /// ```
    ///
    /// - throws: ``SchemaCheckError`` with every mismatch found, or the error
    ///   of a failed schema query.
    public func checkSchema(of recordTypes: [any (TableRecord & Decodable).Type]) throws {
        var mismatches: [SchemaMismatch] = []
        for recordType in recordTypes {
            mismatches += try schemaMismatches(of: recordType)
        }
        if !mismatches.isEmpty { throw SchemaCheckError(mismatches: mismatches) }
    }

    /// The mismatches between one record type and its table.
    func schemaMismatches<Record: TableRecord & Decodable>(of type: Record.Type) throws -> [SchemaMismatch] {
        let table = Record.databaseTableName
        var check = SchemaCheck(recordType: "\(Record.self)", table: table)
        let isView = try viewExists(table)
        guard try isView || tableExists(table) else {
            check.report(.missingTable, column: nil, expected: "a table or view \"\(table)\"", found: "none")
            return check.mismatches
        }
        let columns = try self.columns(in: table)
        func column(_ name: String) -> ColumnInfo? {
            columns.first { $0.name == name } ?? columns.first { $0.name.asciiLowercased == name.asciiLowercased }
        }
        let isEncodable = Record.self is any EncodableRecord.Type

        if EnumRecordColumns.isEnumRecord(Record.self) {
            // Enum records: the columns of every case, each read into an optional value.
            for name in enumRecordColumns(Record.self) ?? [] where column(name) == nil {
                check.report(.missingColumn, column: name, expected: "a column for a value of a case",
                             found: "no such column", detail: "\(Record.self) writes it")
            }
            return check.mismatches
        }

        let properties: [RecordProperty]
        do {
            properties = try recordProperties(Record.self)
        } catch {
            check.report(.uninspectableRecord, column: nil, expected: "a record Quarry can probe",
                         found: "a record that refuses every probe value",
                         detail: (error as? KeyPathColumnError)?.reason ?? "\(error)")
            return check.mismatches
        }
        let written = isEncodable ? writtenColumns(Record.self) ?? properties.map(\.column) : []
        let writtenSet = Set(written.map(\.asciiLowercased))
        let format = RecordValueFormat.of(Record.self)
        var seen: Set<String> = []

        for property in properties where seen.insert(property.column.asciiLowercased).inserted {
            let typeName = "\(property.type)"
            let isWritten = writtenSet.contains(property.column.asciiLowercased)
            guard let info = column(property.column) else {
                if !property.isOptional || isWritten {
                    let role = isWritten ? "reads and writes" : "reads"
                    check.report(.missingColumn, column: property.column, expected: "a column for \(typeName)",
                                 found: "no such column", detail: "\(Record.self) \(role) it")
                }
                continue
            }
            if !property.isOptional, !info.isNotNull, !isView, info.primaryKeyIndex == 0, !info.isGenerated {
                check.report(.nullableColumn, column: info.name, expected: "NOT NULL", found: "nullable",
                             detail: "the \(typeName) property is not optional, and a NULL would fail decoding")
            }
            guard let columnClasses = sqlDialect.storageClasses(ofDeclaredType: info.type)
            else { continue }
            if let readable = SchemaStorageClass.read(by: property.type, dateStrategy: format.dateDecoding),
                readable.isDisjoint(with: columnClasses)
            {
                check.report(.incompatibleType, column: info.name, expected: SchemaStorageClass.describe(readable),
                             found: info.type, detail: "the \(typeName) property cannot read its values")
            } else if sqlDialect.features.contains(.keepsBytesOnlyInBlobColumns), isWritten, !info.isGenerated, !columnClasses.contains(.blob),
                SchemaStorageClass.writesBlob(property.type, uuidStrategy: format.uuidEncoding)
            {
                check.report(.incompatibleType, column: info.name, expected: "bytea", found: info.type,
                             detail: "the \(typeName) property writes bytes, which PostgreSQL keeps only in a bytea column "
                                + "(another column refuses them, or keeps their hex text, read back as other bytes)")
            }
        }

        // Columns written by a hand-written encode(to:) under other names.
        for name in written where seen.insert(name.asciiLowercased).inserted && column(name) == nil {
            check.report(.missingColumn, column: name, expected: "a column the record writes", found: "no such column",
                         detail: "\(Record.self) writes it")
        }

        if isEncodable, !isView {
            let rowIDColumn = try primaryKey(table).rowIDColumn?.asciiLowercased
            for info in columns where info.isNotNull && info.defaultValueSQL == nil && !info.isGenerated {
                let name = info.name.asciiLowercased
                guard name != rowIDColumn, !writtenSet.contains(name) else { continue }
                check.report(.unwrittenColumn, column: info.name, expected: "a value written by \(Record.self), or a default",
                             found: "NOT NULL without a default", detail: "\(Record.self) never writes it, so inserting it fails")
            }
        }
        return check.mismatches
    }

    /// The columns of every case of an enum record that writes itself.
    private func enumRecordColumns<Record: TableRecord & Decodable>(_ type: Record.Type) -> [String]? {
        func columns<Encoded: EncodableRecord & Encodable>(_ type: Encoded.Type) -> [String]? {
            EnumRecordColumns.of(Encoded.self)?.columns
        }
        guard let encodable = Record.self as? any (EncodableRecord & Encodable).Type else { return nil }
        return columns(encodable)
    }

    /// The columns a record writes: those of the record the probe decoded,
    /// encoded. Nil when there is no such record, or it does not encode.
    private func writtenColumns<Record: TableRecord & Decodable>(_ type: Record.Type) -> [String]? {
        guard let record = (try? RecordColumns.probe(Record.self))?.rounds.first?.record,
            let encodable = record as? any EncodableRecord
        else { return nil }
        return try? PersistenceContainer(encodable).columns
    }

    /// What a record reads: a column per coding key, its type (optionals
    /// unwrapped), and whether it may be NULL.
    private func recordProperties<Record: Decodable>(_ type: Record.Type) throws -> [RecordProperty] {
        let probe = try RecordColumns.probe(Record.self)
        // A probe built from the stored properties has no optional keys:
        // read optionality from the types of the properties.
        var optionalOffsets: Set<Int> = []
        if probe.offsets != nil, let fields = RecordColumns.storedFields(of: Record.self) {
            for field in fields where unwrappedType(field.type) != field.type { optionalOffsets.insert(field.offset) }
        }
        return probe.keys.indices.map { index in
            let type = probe.types[index]
            let isOptional = probe.optionalKeys.contains(probe.keys[index]) || unwrappedType(type) != type
                || probe.offsets.map { optionalOffsets.contains($0[index]) } == true
            return RecordProperty(column: probe.columns[index], type: unwrappedType(type), isOptional: isOptional)
        }
    }
}

/// A column a record reads.
private struct RecordProperty {
    let column: String
    let type: Any.Type
    let isOptional: Bool
}

/// The mismatches of one record type, as they are found.
private struct SchemaCheck {
    let recordType: String
    let table: String
    var mismatches: [SchemaMismatch] = []

    init(recordType: String, table: String) {
        self.recordType = recordType
        self.table = table
    }

    mutating func report(_ kind: SchemaMismatch.Kind, column: String?, expected: String, found: String, detail: String = "") {
        mismatches.append(SchemaMismatch(
            kind: kind, recordType: recordType, table: table, column: column, expected: expected, found: found, detail: detail))
    }
}

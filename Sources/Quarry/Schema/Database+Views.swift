// Database+Views: dropping and listing views, and dropping triggers. Views and
// triggers are created from requests and SQL literals, in
// QueryInterface/SchemaDefinition+Views.swift and SchemaDefinition+Triggers.swift.

extension Database {
    /// Drops a view: `DROP VIEW "name"` (<https://www.sqlite.org/lang_dropview.html>).
    ///
    /// ```swift
    /// try db.drop(view: "topPlayer")   // DROP VIEW "topPlayer"
    /// ```
    ///
    /// - parameter name: the view name. Throws a ``DatabaseError`` if no view has it.
    public func drop(view name: String) throws {
        try execute(sql: "DROP VIEW \(name.quotedDatabaseIdentifier)")
    }

    /// Drops a trigger: `DROP TRIGGER "name"` (<https://www.sqlite.org/lang_droptrigger.html>).
    ///
    /// ```swift
    /// try db.drop(trigger: "book_touch")   // DROP TRIGGER "book_touch"
    /// ```
    ///
    /// - parameter name: the trigger name. Throws a ``DatabaseError`` if no trigger has it.
    public func drop(trigger name: String) throws {
        try execute(sql: "DROP TRIGGER \(name.quotedDatabaseIdentifier)")
    }

    /// The names of the views of the main database and of the temp schema,
    /// sorted.
    ///
    /// ```swift
    /// try db.viewNames()   // ["topPlayer"]
    /// ```
    public func viewNames() throws -> [String] {
        try String.fetchAll(
            self,
            sql: """
                SELECT name FROM sqlite_master WHERE type = 'view'
                UNION SELECT name FROM sqlite_temp_master WHERE type = 'view'
                ORDER BY name
                """)
    }
}

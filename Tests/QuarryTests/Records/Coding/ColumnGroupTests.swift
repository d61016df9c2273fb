// Column groups: nested structs stored as real columns (`address_city`):
// the schema DSL, persistence, fetching, optional groups, nesting, custom
// naming rules, key paths into groups, and the errors that stay clear.

import Foundation
import Quarry
import Testing

private struct GroupCoordinates: Codable, ColumnGroup, Equatable {
    var latitude: Double
    var longitude: Double
}

private struct GroupAddress: Codable, ColumnGroup, Equatable {
    var street: String
    var city: String
    var postalCode: String?
    var coordinates: GroupCoordinates?
}

private struct GroupCustomer: Codable, FetchableRecord, MutablePersistableRecord, Equatable {
    static let databaseTableName = "customer"
    var id: Int64?
    var name: String
    var address: GroupAddress
    var billing: GroupAddress?

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A group whose members keep their own names, and whose keys are renamed.
private struct GroupMoney: Codable, ColumnGroup, Equatable {
    var amount: Int
    var currency: String

    enum CodingKeys: String, CodingKey {
        case amount = "cents", currency
    }

    static func databaseColumnName(forKey key: String, inGroup groupKey: String) -> String {
        groupKey == "price" ? key : "\(groupKey)\(key.prefix(1).uppercased())\(key.dropFirst())"
    }
}

private struct GroupProduct: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "product"
    static let databaseColumnDecodingStrategy = DatabaseColumnNamingStrategy.convertToSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnNamingStrategy.convertToSnakeCase
    var id: Int64
    var price: GroupMoney
    var shippingCost: GroupMoney
}

/// A group that codes its members as a list, not by key.
private struct GroupOpaque: Codable, ColumnGroup, Equatable {
    var value: String
    init(value: String) { self.value = value }
    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        value = try container.decode(String.self)
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(value)
    }
}

private struct GroupHolder: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "holder"
    var id: Int64
    var opaque: GroupOpaque
}

@Suite("Column groups")
struct ColumnGroupTests {
    fileprivate static let oslo = GroupAddress(
        street: "1 Main", city: "Oslo", postalCode: "0150", coordinates: GroupCoordinates(latitude: 59.9, longitude: 10.7))
    fileprivate static let bergen = GroupAddress(street: "2 High", city: "Bergen", postalCode: nil, coordinates: nil)

    func withCustomers(_ backend: Backend, _ body: (Database) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        let writer = try backend.make(in: directory)
        try writer.write { db throws in
            try db.create(table: "customer") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                try t.columns(of: GroupAddress.self, inGroup: "address")
                try t.columns(of: GroupAddress.self, inGroup: "billing", optional: true)
            }
            var ada = GroupCustomer(name: "Ada", address: Self.oslo, billing: Self.bergen)
            var bob = GroupCustomer(name: "Bob", address: Self.bergen, billing: nil)
            var cy = GroupCustomer(name: "Cy", address: GroupAddress(street: "3 Low", city: "Oslo", postalCode: "0151", coordinates: nil))
            try ada.insert(db)
            try bob.insert(db)
            try cy.insert(db)
            try body(db)
        }
    }

    /// The table SQLite stores in sqlite_master is pinned; on PostgreSQL,
    /// the columns the server reports, with its type names.
    @Test(arguments: Backend.all)
    func schemaDSLDeclaresTheGroupColumns(_ backend: Backend) throws {
        try withCustomers(backend) { db throws in
            if backend.isPostgreSQL {
                let columns = try db.columns(in: "customer")
                #expect(columns.map(\.name) == [
                    "id", "name", "address_street", "address_city", "address_postalCode",
                    "address_coordinates_latitude", "address_coordinates_longitude",
                    "billing_street", "billing_city", "billing_postalCode",
                    "billing_coordinates_latitude", "billing_coordinates_longitude",
                ])
                #expect(columns.map(\.isNotNull) == [true, true, true, true, false, false, false, false, false, false, false, false])
                #expect(columns[5].type.uppercased() == "DOUBLE PRECISION")
            } else {
                let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'customer'")
                #expect(sql == """
                    CREATE TABLE "customer" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL, \
                    "address_street" TEXT NOT NULL, "address_city" TEXT NOT NULL, "address_postalCode" TEXT, \
                    "address_coordinates_latitude" DOUBLE, "address_coordinates_longitude" DOUBLE, \
                    "billing_street" TEXT, "billing_city" TEXT, "billing_postalCode" TEXT, \
                    "billing_coordinates_latitude" DOUBLE, "billing_coordinates_longitude" DOUBLE)
                    """)
            }
            try db.alter(table: "customer") { t in try t.add(columnsOf: GroupCoordinates.self, inGroup: "home") }
            let columns = try db.columns(in: "customer").map(\.name)
            #expect(columns.suffix(2) == ["home_latitude", "home_longitude"])
            #expect(try db.columns(in: "customer").last?.type.uppercased() == (backend.isPostgreSQL ? "DOUBLE PRECISION" : "DOUBLE"))
        }
    }

    @Test(arguments: Backend.all)
    func insertWritesOneColumnPerMember(_ backend: Backend) throws {
        try withCustomers(backend) { db throws in
            let row = try Row.fetchOne(db, sql: """
                SELECT address_street, address_city, "address_postalCode", address_coordinates_latitude,
                       address_coordinates_longitude, billing_street, billing_city, "billing_postalCode",
                       billing_coordinates_latitude
                FROM customer WHERE name = 'Ada'
                """)
            let values = try #require(row).databaseValues
            #expect(values == [
                .text("1 Main"), .text("Oslo"), .text("0150"), .real(59.9), .real(10.7),
                .text("2 High"), .text("Bergen"), .null, .null,
            ])
            // A nil optional group is NULL in each of its columns.
            let bobBilling = try Row.fetchOne(db, sql: """
                SELECT billing_street, billing_city, "billing_postalCode", billing_coordinates_latitude,
                       billing_coordinates_longitude FROM customer WHERE name = 'Bob'
                """)
            #expect(try #require(bobBilling).databaseValues.allSatisfy(\.isNull))
        }
    }

    @Test(arguments: Backend.all)
    func fetchReadsTheGroupsBack(_ backend: Backend) throws {
        try withCustomers(backend) { db throws in
            let customers = try GroupCustomer.order(\.id).fetchAll(db)
            #expect(customers.map(\.name) == ["Ada", "Bob", "Cy"])
            #expect(customers[0].address == Self.oslo)
            #expect(customers[0].billing == Self.bergen)
            #expect(customers[1].billing == nil)
            #expect(customers[2].address.coordinates == nil)
            // The same through a Row (init(row:)) and a cursor.
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM customer WHERE name = 'Ada'"))
            #expect(try GroupCustomer(row: row) == customers[0])
            let cursor = try GroupCustomer.order(\.id).fetchCursor(db)
            var fromCursor: [GroupCustomer] = []
            while let customer = try cursor.next() { fromCursor.append(customer) }
            #expect(fromCursor == customers)
        }
    }

    @Test(arguments: Backend.all)
    func insertAllAndFetchKeepGroups(_ backend: Backend) throws {
        try withCustomers(backend) { db throws in
            let more = (1...30).map { index in
                GroupCustomer(
                    name: "C\(index)", address: GroupAddress(street: "\(index) Road", city: index % 2 == 0 ? "Oslo" : "Bergen"),
                    billing: index % 3 == 0 ? Self.oslo : nil)
            }
            let inserted = try GroupCustomer.insertAllAndFetch(db, more)
            #expect(inserted.map(\.name) == more.map(\.name))
            #expect(inserted.map(\.address) == more.map(\.address))
            #expect(inserted.map(\.billing) == more.map(\.billing))
            let oslo = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM customer WHERE address_city = 'Oslo'")
            #expect(try GroupCustomer.filter(\.address.city == "Oslo").fetchCount(db) == oslo)
        }
    }

    @Test(arguments: Backend.all)
    func updateRewritesTheGroupColumns(_ backend: Backend) throws {
        try withCustomers(backend) { db throws in
            var bob = try #require(try GroupCustomer.filter(\.name == "Bob").fetchOne(db))
            bob.billing = Self.oslo
            bob.address.city = "Trondheim"
            try bob.update(db)
            #expect(try GroupCustomer.fetchOne(db, key: bob.id) == bob)
            let city = try String.fetchOne(db, sql: "SELECT address_city FROM customer WHERE name = 'Bob'")
            #expect(city == "Trondheim")
            // A group set back to nil clears its columns.
            bob.billing = nil
            try bob.update(db)
            let billingCity = try String.fetchOne(db, sql: "SELECT billing_city FROM customer WHERE name = 'Bob'")
            #expect(billingCity == nil)
            #expect(try GroupCustomer.fetchOne(db, key: bob.id)?.billing == nil)
        }
    }

    @Test(arguments: Backend.all)
    func keyPathsIntoGroupsNameTheirColumns(_ backend: Backend) throws {
        try withCustomers(backend) { db throws in
            let request = GroupCustomer
                .filter(\.address.city == "Oslo")
                .order(\.address.coordinates?.latitude)
                .select(\.name)
            try expectSQL(request, db, #"""
                SELECT "name" FROM "customer" WHERE "address_city" = ? ORDER BY "address_coordinates_latitude"
                """#, ["Oslo"])
            let expected = try String.fetchAll(db, sql: """
                SELECT name FROM customer WHERE address_city = 'Oslo' ORDER BY address_coordinates_latitude
                """)
            #expect(try request.fetchAll(db) == expected)
            // NULLs (Cy has no coordinates) sort first on SQLite, last on PostgreSQL.
            #expect(expected == (backend.isPostgreSQL ? ["Ada", "Cy"] : ["Cy", "Ada"]))

            let optionalGroup = GroupCustomer.filter(\.billing?.city == "Bergen").select(\.name)
            try expectSQL(optionalGroup, db, #"""
                SELECT "name" FROM "customer" WHERE "billing_city" = ?
                """#, ["Bergen"])
            #expect(try optionalGroup.fetchAll(db) == ["Ada"])

            // Batch updates assign group members like any column.
            let changed = try GroupCustomer.filter(\.address.city == "Oslo").updateAll(db, \.address.postalCode <- "9999")
            #expect(changed == 2)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM customer WHERE \"address_postalCode\" = '9999'") == 2)
        }
    }

    @Test(arguments: Backend.all)
    func aKeyPathToTheWholeGroupIsRefused(_ backend: Backend) throws {
        try backend.withWriter { writer in try writer.read { db throws in
            let error = #expect(throws: KeyPathColumnError.self) {
                _ = try GroupCustomer.filter(\.address == Self.oslo).sql(db)
            }
            #expect(error?.reason.contains("column group") == true)
            #expect(error?.reason.contains("\\GroupCustomer.address.<member>") == true)
        } }
    }

    @Test(arguments: Backend.all)
    func customNamingRulesAndStrategies(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try db.execute(sql: """
                    CREATE TABLE product (id INTEGER PRIMARY KEY, cents INTEGER, currency TEXT,
                                          shipping_cost_cents INTEGER, shipping_cost_currency TEXT)
                    """)
                let product = GroupProduct(id: 1, price: GroupMoney(amount: 1250, currency: "NOK"), shippingCost: GroupMoney(amount: 99, currency: "EUR"))
                try product.insert(db)
                let row = try #require(try Row.fetchOne(db, sql: "SELECT cents, currency, shipping_cost_cents, shipping_cost_currency FROM product"))
                #expect(row.databaseValues == [.integer(1250), .text("NOK"), .integer(99), .text("EUR")])
                #expect(try GroupProduct.fetchOne(db, key: 1) == product)
                let request = GroupProduct.filter(\.shippingCost.amount < 100).select(\.price.amount)
                try expectSQL(request, db, #"""
                    SELECT "cents" FROM "product" WHERE "shipping_cost_cents" < ?
                    """#, [100])
                #expect(try request.fetchAll(db) == [1250])
            }
        }
    }

    @Test(arguments: Backend.all)
    func missingOrNullColumnsGiveClearErrors(_ backend: Backend) throws {
        try withCustomers(backend) { db throws in
            // A non-optional member whose column is NULL.
            try db.execute(sql: "UPDATE customer SET billing_city = NULL WHERE name = 'Ada'")
            let error = #expect(throws: RowDecodingError.self) {
                _ = try GroupCustomer.filter(\.name == "Ada").fetchOne(db)
            }
            #expect(error?.column == "billing_city")
            // A selection that leaves the group's columns out.
            let missing = #expect(throws: RowDecodingError.self) {
                _ = try GroupCustomer.fetchAll(db, sql: "SELECT id, name FROM customer")
            }
            #expect(missing?.column == "address_street")
        }
    }

    @Test(arguments: Backend.all)
    func aGroupThatIsNotKeyedIsRefused(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try db.execute(sql: "CREATE TABLE holder (id INTEGER PRIMARY KEY, opaque_value TEXT)")
                let encodeError = #expect(throws: EncodingError.self) {
                    try GroupHolder(id: 1, opaque: GroupOpaque(value: "x")).insert(db)
                }
                #expect("\(encodeError.map { "\($0)" } ?? "")".contains("GroupOpaque asked for an unkeyed container"))
                #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM holder") == 0)
                try db.execute(sql: "INSERT INTO holder VALUES (1, '[\"x\"]')")
                let decodeError = #expect(throws: RowDecodingError.self) { _ = try GroupHolder.fetchAll(db) }
                #expect(decodeError.map { "\($0)" }?.contains("GroupOpaque asked for an unkeyed container") == true)
            }
        }
    }
}

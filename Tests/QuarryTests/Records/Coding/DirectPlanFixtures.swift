// Record types shared by DirectDecodingPlanTests and DirectEncodingPlanTests:
// a plain struct that gets both plans, and the shapes that get neither.

import Foundation
import Quarry

enum DirectPlanFixtures {
    /// Every property of a plan kind, synthesized Codable: both plans.
    struct Plain: Codable, FetchableRecord, EncodableRecord, DirectlyDecoded, DirectlyEncoded {
        var id: Int64
        var name: String
        var score: Double?
        var active: Bool
        var count: Int?
    }

    /// A stored property outside CodingKeys: neither decoded nor encoded.
    struct Skipping: Codable, FetchableRecord, EncodableRecord, DirectlyDecoded, DirectlyEncoded {
        var id: Int64
        var cached = 0
        enum CodingKeys: String, CodingKey { case id }
    }

    struct WithDate: Codable, FetchableRecord, EncodableRecord, DirectlyDecoded, DirectlyEncoded {
        var id: Int64
        var createdAt: Date
    }

    struct OptedOut: Codable, FetchableRecord, EncodableRecord {
        static var databaseDecodesStoredPropertiesDirectly: Bool { false }
        static var databaseEncodesStoredPropertiesDirectly: Bool { false }
        var id: Int64
    }

    final class ClassRecord: Codable, FetchableRecord, EncodableRecord, DirectlyDecoded, DirectlyEncoded { var id: Int64 = 0 }

    /// Every kind of the plans, optional or not, in a concrete record.
    struct AllKinds: Codable, FetchableRecord, PersistableRecord, Equatable, DirectlyDecoded, DirectlyEncoded {
        static let databaseTableName = "allKinds"
        var int: Int
        var int64: Int64
        var double: Double
        var bool: Bool
        var string: String
        var optionalInt: Int?
        var optionalInt64: Int64?
        var optionalDouble: Double?
        var optionalBool: Bool?
        var optionalString: String?

        var twin: AllKindsTwin {
            AllKindsTwin(
                int: int, int64: int64, double: double, bool: bool, string: string, optionalInt: optionalInt,
                optionalInt64: optionalInt64, optionalDouble: optionalDouble, optionalBool: optionalBool,
                optionalString: optionalString)
        }
    }

    /// AllKinds through Codable, both ways.
    struct AllKindsTwin: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "allKindsTwin"
        static var databaseDecodesStoredPropertiesDirectly: Bool { false }
        static var databaseEncodesStoredPropertiesDirectly: Bool { false }
        var int: Int
        var int64: Int64
        var double: Double
        var bool: Bool
        var string: String
        var optionalInt: Int?
        var optionalInt64: Int64?
        var optionalDouble: Double?
        var optionalBool: Bool?
        var optionalString: String?

        var record: AllKinds {
            AllKinds(
                int: int, int64: int64, double: double, bool: bool, string: string, optionalInt: optionalInt,
                optionalInt64: optionalInt64, optionalDouble: optionalDouble, optionalBool: optionalBool,
                optionalString: optionalString)
        }
    }
}

/// Fixtures that opt in to the direct decoding plan
/// (``FetchableRecord/databaseDecodesStoredPropertiesDirectly``, default false).
protocol DirectlyDecoded: FetchableRecord {}
extension DirectlyDecoded {
    static var databaseDecodesStoredPropertiesDirectly: Bool { true }
}

/// Fixtures that opt in to the direct encoding plan
/// (``EncodableRecord/databaseEncodesStoredPropertiesDirectly``, default false).
protocol DirectlyEncoded: EncodableRecord {}
extension DirectlyEncoded {
    static var databaseEncodesStoredPropertiesDirectly: Bool { true }
}

// Tests of EnumMetadata: case names and counts read from the runtime
// metadata, and the value of each case made from its tag, for enums of every
// size class, with and without raw values; and nil for what is not such an enum.

import Foundation
@testable import Quarry
import Testing

private enum MetaOne { case only }
private enum MetaStatus: String, Codable { case active, banned, suspended = "SUS" }
private enum MetaLevel: Int, Codable { case low = 10, high = 20 }
private enum MetaShape: Codable { case circle(radius: Double), square(side: Double), none }
private enum MetaGeneric<T> { case first, second }
private struct NotAnEnum: RawRepresentable { var rawValue: String }

/// An enum with 300 cases (tags stored on 2 bytes).
private enum MetaWide: CaseIterable {
    case c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19
    case c20, c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31, c32, c33, c34, c35, c36, c37, c38, c39
    case c40, c41, c42, c43, c44, c45, c46, c47, c48, c49, c50, c51, c52, c53, c54, c55, c56, c57, c58, c59
    case c60, c61, c62, c63, c64, c65, c66, c67, c68, c69, c70, c71, c72, c73, c74, c75, c76, c77, c78, c79
    case c80, c81, c82, c83, c84, c85, c86, c87, c88, c89, c90, c91, c92, c93, c94, c95, c96, c97, c98, c99
    case d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, d16, d17, d18, d19
    case d20, d21, d22, d23, d24, d25, d26, d27, d28, d29, d30, d31, d32, d33, d34, d35, d36, d37, d38, d39
    case d40, d41, d42, d43, d44, d45, d46, d47, d48, d49, d50, d51, d52, d53, d54, d55, d56, d57, d58, d59
    case d60, d61, d62, d63, d64, d65, d66, d67, d68, d69, d70, d71, d72, d73, d74, d75, d76, d77, d78, d79
    case d80, d81, d82, d83, d84, d85, d86, d87, d88, d89, d90, d91, d92, d93, d94, d95, d96, d97, d98, d99
    case e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15, e16, e17, e18, e19
    case e20, e21, e22, e23, e24, e25, e26, e27, e28, e29, e30, e31, e32, e33, e34, e35, e36, e37, e38, e39
    case e40, e41, e42, e43, e44, e45, e46, e47, e48, e49, e50, e51, e52, e53, e54, e55, e56, e57, e58, e59
    case e60, e61, e62, e63, e64, e65, e66, e67, e68, e69, e70, e71, e72, e73, e74, e75, e76, e77, e78, e79
    case e80, e81, e82, e83, e84, e85, e86, e87, e88, e89, e90, e91, e92, e93, e94, e95, e96, e97, e98, e99
}

@Suite struct EnumMetadataTests {
    @Test func casesOfEnumsWithoutPayloads() throws {
        let status = try #require(EnumMetadata.info(of: MetaStatus.self))
        #expect(status.caseNames == ["active", "banned", "suspended"])
        #expect(status.payloadCaseCount == 0 && status.emptyCaseCount == 3)
        #expect(EnumMetadata.allCases(MetaStatus.self) == [.active, .banned, .suspended])
        #expect(EnumMetadata.allCases(MetaLevel.self) == [.low, .high])
        #expect(EnumMetadata.allCases(MetaOne.self) == [.only])
        #expect(EnumMetadata.info(of: MetaOne.self)?.caseNames == ["only"])
        #expect(EnumMetadata.allCases(MetaGeneric<Int>.self) == [.first, .second])
        #expect(EnumMetadata.value(MetaStatus.self, tag: 3) == nil)
        #expect(EnumMetadata.value(MetaStatus.self, tag: -1) == nil)
    }

    @Test func wideEnumsUseTwoByteTags() throws {
        #expect(MemoryLayout<MetaWide>.size == 2)
        #expect(EnumMetadata.allCases(MetaWide.self) == MetaWide.allCases)
        #expect(EnumMetadata.info(of: MetaWide.self)?.caseNames.last == "e99")
    }

    @Test func enumsWithPayloadsAreListedButNotMade() throws {
        let shape = try #require(EnumMetadata.info(of: MetaShape.self))
        #expect(shape.payloadCaseCount == 2 && shape.emptyCaseCount == 1)
        #expect(Set(shape.caseNames) == ["circle", "square", "none"])
        #expect(EnumMetadata.value(MetaShape.self, tag: 0) == nil)
    }

    @Test func otherTypesAreNotEnums() {
        #expect(EnumMetadata.info(of: NotAnEnum.self) == nil)
        #expect(EnumMetadata.info(of: Int?.self) == nil)
        #expect(EnumMetadata.info(of: String.self) == nil)
        #expect(EnumMetadata.info(of: NSObject.self) == nil)
        #expect(EnumMetadata.value(Int.self, tag: 0) == nil)
    }
}

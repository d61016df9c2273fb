// EnumMetadata: what the Swift runtime records about an enum type (its
// number of cases, their names) and the value of each case of an enum
// without associated values, made from its tag.
//
// The key-path probe needs a valid value for every property of a record. An
// enum property (`var status: Status`, no CaseIterable) refuses the probe's
// made-up raw values, and an enum's CodingKeys list the record's columns.
// Both are read here, once per type, from the type's metadata:
//
// - The metadata of an enum starts with its kind (0x201) and a pointer to its
//   type descriptor. The descriptor (ContextDescriptorKind 18) holds, at
//   fixed offsets, the relative pointer to its field descriptor, the number
//   of cases with a payload and the number of cases without one. The field
//   descriptor lists the cases, in declaration order, with their names.
//   These layouts are part of the Swift ABI (swift/ABI/Metadata.h,
//   swift/RemoteInspection/Records.h), on Linux as on Apple platforms.
// - A case of an enum without payloads is stored as its declaration index,
//   in the smallest integer that holds them all (no bytes for one case).
//
// Every read is checked for consistency (kinds, counts, sizes); anything
// unexpected gives nil, and the probe then does without. Tests pin the
// results for enums of every size class.

enum EnumMetadata {
    /// The cases of an enum type.
    struct Info {
        /// The case names, in declaration order.
        let caseNames: [String]
        /// How many cases have associated values.
        let payloadCaseCount: Int
        /// How many cases have none.
        let emptyCaseCount: Int
    }

    /// The metadata kind of enums (`MetadataKind::Enum`: 1 | non-heap flag 0x200).
    private static let enumKind = 0x201
    /// `ContextDescriptorKind::Enum`, in the low five bits of the descriptor flags.
    private static let enumDescriptorKind: UInt32 = 18

    /// The cases of `type`, or nil when it is not an enum (Optional included)
    /// or its metadata does not read as expected.
    static func info(of type: Any.Type) -> Info? {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        guard metadata.loadUnaligned(as: Int.self) == enumKind,
            let descriptor = metadata.loadUnaligned(fromByteOffset: MemoryLayout<Int>.size, as: UnsafeRawPointer?.self)
        else { return nil }
        // TargetEnumDescriptor: Flags, Parent, Name, AccessFunction, Fields,
        // NumPayloadCasesAndPayloadSizeOffset, NumEmptyCases (4 bytes each).
        guard descriptor.loadUnaligned(as: UInt32.self) & 0x1F == enumDescriptorKind else { return nil }
        let payloadCases = Int(descriptor.loadUnaligned(fromByteOffset: 20, as: UInt32.self) & 0x00FF_FFFF)
        let emptyCases = Int(descriptor.loadUnaligned(fromByteOffset: 24, as: UInt32.self))
        let fieldsOffset = Int(descriptor.loadUnaligned(fromByteOffset: 16, as: Int32.self))
        guard fieldsOffset != 0 else { return nil }
        // FieldDescriptor: MangledTypeName, Superclass (4 bytes each), Kind,
        // FieldRecordSize (2 bytes each), NumFields (4); then the records:
        // Flags, MangledTypeName, FieldName (4 bytes each).
        let fields = descriptor + 16 + fieldsOffset
        let recordSize = Int(fields.loadUnaligned(fromByteOffset: 10, as: UInt16.self))
        let count = Int(fields.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        guard count == payloadCases + emptyCases, recordSize >= 12, count < 1 << 20 else { return nil }
        var names: [String] = []
        names.reserveCapacity(count)
        for index in 0..<count {
            let nameField = fields + 16 + index * recordSize + 8
            let nameOffset = Int(nameField.loadUnaligned(as: Int32.self))
            guard nameOffset != 0 else { return nil }
            names.append(String(cString: (nameField + nameOffset).assumingMemoryBound(to: CChar.self)))
        }
        return Info(caseNames: names, payloadCaseCount: payloadCases, emptyCaseCount: emptyCases)
    }

    /// The case of index `tag` (declaration order) of an enum without
    /// associated values, or nil when `T` is not such an enum or has no such case.
    static func value<T>(_ type: T.Type, tag: Int) -> T? {
        guard let info = info(of: T.self), info.payloadCaseCount == 0, tag >= 0, tag < info.emptyCaseCount,
            _isPOD(T.self)
        else { return nil }
        let cases = info.emptyCaseCount
        let expectedSize = cases <= 1 ? 0 : cases <= 1 << 8 ? 1 : cases <= 1 << 16 ? 2 : 4
        guard MemoryLayout<T>.size == expectedSize else { return nil }
        return withUnsafeTemporaryAllocation(byteCount: max(expectedSize, 1), alignment: MemoryLayout<T>.alignment) { bytes in
            switch expectedSize {
            case 1: bytes.storeBytes(of: UInt8(tag), as: UInt8.self)
            case 2: bytes.storeBytes(of: UInt16(tag), as: UInt16.self)
            case 4: bytes.storeBytes(of: UInt32(tag), as: UInt32.self)
            default: bytes.storeBytes(of: UInt8(0), as: UInt8.self)
            }
            return bytes.load(as: T.self)
        }
    }

    /// Every case of an enum without associated values, in declaration order.
    static func allCases<T>(_ type: T.Type) -> [T]? {
        guard let info = info(of: T.self), info.payloadCaseCount == 0 else { return nil }
        var cases: [T] = []
        for tag in 0..<info.emptyCaseCount {
            guard let value = value(T.self, tag: tag) else { return nil }
            cases.append(value)
        }
        return cases
    }
}

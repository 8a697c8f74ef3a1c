import CPostgres
import Foundation

/// Journal values in PostgreSQL's binary format: parameters out (each with its type, so the
/// server never guesses), column values in by column type.
struct PostgresParameters {
    /// Type OIDs (pg_type.h).
    static let bool: Oid = 16, bytea: Oid = 17, name: Oid = 19, int8: Oid = 20, int2: Oid = 21, int4: Oid = 23, text: Oid = 25
    static let float4: Oid = 700, float8: Oid = 701, unknown: Oid = 705, bpchar: Oid = 1042, varchar: Oid = 1043, void: Oid = 2278
    /// Column types `decode` reads.
    static let readable: Set<Oid> = [bool, bytea, name, int8, int2, int4, text, float4, float8, unknown, bpchar, varchar, void]

    /// The values' bytes, end to end; nil offsets are NULLs.
    private var bytes: [UInt8] = []
    private var spans: [(offset: Int, count: Int)?] = []

    init(_ values: [JournalValue]) {
        for value in values {
            let start = bytes.count
            switch value {
            case .int(let number): withUnsafeBytes(of: number.bigEndian) { bytes += $0 }
            case .double(let number): withUnsafeBytes(of: number.bitPattern.bigEndian) { bytes += $0 }
            case .text(let text): bytes += Array(text.utf8)
            case .blob(let data): bytes += data
            case .null:
                spans.append(nil)
                continue
            }
            spans.append((start, bytes.count - start))
        }
    }

    /// Calls `body` with libpq's parameter arrays (values, lengths, formats: all binary).
    func withPointers<R>(
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) throws -> R
    ) rethrows -> R {
        // One byte more, so an empty value (an empty string or blob) still has an address.
        try (bytes + [0]).withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let pointers: [UnsafePointer<CChar>?] = spans.map { span in span.map { base + $0.offset } }
            let lengths = spans.map { Int32($0?.count ?? 0) }
            let formats = [Int32](repeating: 1, count: spans.count)
            return try body(pointers, lengths, formats)
        }
    }

    /// A column value in binary format.
    static func decode(_ bytes: UnsafeRawBufferPointer, type: Oid) -> JournalValue {
        func integer<T: FixedWidthInteger>(_: T.Type) -> Int64 {
            guard bytes.count == MemoryLayout<T>.size else { return 0 }
            return Int64(T(bigEndian: bytes.loadUnaligned(as: T.self)))
        }
        switch type {
        case int8: return .int(integer(Int64.self))
        case int4: return .int(integer(Int32.self))
        case int2: return .int(integer(Int16.self))
        case bool: return .int(bytes.first == 0 || bytes.isEmpty ? 0 : 1)
        case float8: return .double(Double(bitPattern: UInt64(bitPattern: integer(Int64.self))))
        case float4: return .double(Double(Float(bitPattern: UInt32(truncatingIfNeeded: integer(Int32.self)))))
        case bytea: return .blob(Data(bytes))
        case void: return .null
        default: return .text(String(decoding: bytes, as: UTF8.self))
        }
    }
}

extension JournalValue {
    /// The parameter's type; a NULL's is left to the server (0).
    var postgresType: Oid {
        switch self {
        case .int: return PostgresParameters.int8
        case .double: return PostgresParameters.float8
        case .text: return PostgresParameters.text
        case .blob: return PostgresParameters.bytea
        case .null: return 0
        }
    }
}

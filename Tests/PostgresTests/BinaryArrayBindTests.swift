import Foundation
import Testing
@testable import Postgres

/// The typed array binds (``PostgresBind/array(_:of:)``): PostgreSQL's
/// binary array format where every element holds its type's value, the
/// untyped text form otherwise. Round trips through a server are in
/// PostgresIntegrationTests (BinaryArrayBindRoundTripTests).
@Suite struct BinaryArrayBindTests {
    /// The bytes sent for a bind, when it is sent in binary.
    static func binary(_ bind: PostgresBind) -> [UInt8]? {
        if case .binaryArray(let bytes, _) = bind.value { bytes } else { nil }
    }

    @Test func int8ArrayIsArraySendsLayout() throws {
        let bind = try PostgresBind.array([Int64(1).postgresBind, Int64?.none.postgresBind, Int64(-2).postgresBind], of: .int8)
        let expected: [UInt8] =
            [0, 0, 0, 1] + [0, 0, 0, 1] + [0, 0, 0, 20] + [0, 0, 0, 3] + [0, 0, 0, 1] // 1 dimension, has nulls, int8, 3 from 1
            + [0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1] + [0xFF, 0xFF, 0xFF, 0xFF] + [0, 0, 0, 8] + [UInt8](repeating: 0xFF, count: 7) + [0xFE]
        #expect(Self.binary(bind) == expected)
        #expect(bind.dataType == .unspecified)
    }

    @Test func emptyArrayHasNoDimensions() throws {
        #expect(Self.binary(try PostgresBind.array([], of: .text)) == [0, 0, 0, 0] + [0, 0, 0, 0] + [0, 0, 0, 25])
    }

    @Test func timestampsCountMicrosecondsFrom2000() throws {
        let bind = try PostgresBind.array(
            [Date(timeIntervalSince1970: 946_684_800.000001).postgresBind, Date(timeIntervalSince1970: 0).postgresBind], of: .timestamptz)
        let bytes = try #require(Self.binary(bind))
        #expect(Array(bytes[20..<32]) == [0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1])
        // 1970 is 946,684,800 s before 2000: negative, two's complement.
        let before = Int64(bigEndian: bytes[36..<44].withUnsafeBytes { $0.loadUnaligned(as: Int64.self) })
        #expect(before == -946_684_800_000_000)
    }

    @Test func textForBytesAndJSONCarriesTheirOwnBytes() throws {
        let bytes = try #require(Self.binary(try PostgresBind.array([[UInt8]([0, 255, 0]).postgresBind], of: .bytea)))
        #expect(Array(bytes[20...]) == [0, 0, 0, 3, 0, 255, 0])
        let json = try #require(Self.binary(try PostgresBind.array([PostgresJSON(text: "{}").postgresBind], of: .jsonb)))
        #expect(Array(json[20...]) == [0, 0, 0, 3, 1, UInt8(ascii: "{"), UInt8(ascii: "}")]) // format version 1
    }

    @Test func valuesOfAnotherTypeFallBackToText() throws {
        // Text where the statement expects a number or an instant, a number out of range, bytes for jsonb.
        let cases: [(PostgresBind, PostgresDataType)] = [
            (try .array(["1".postgresBind], of: .int8), .int8), (try .array(["2026-01-01".postgresBind], of: .timestamptz), .timestamptz),
            (try .array([Int64(Int32.max) + 1].map(\.postgresBind), of: .int4), .int4),
            (try .array([Int32(Int16.min) - 1].map(\.postgresBind), of: .int2), .int2),
            (try .array([[UInt8]([1]).postgresBind], of: .jsonb), .jsonb), (try .array([true.postgresBind], of: .bool), .bool),
        ]
        for (bind, type) in cases {
            #expect(Self.binary(bind) == nil, "\(type)")
            #expect(bind.text?.hasPrefix("{\"") == true, "\(type)")
        }
    }

    @Test func textIsTheUntypedArraysText() throws {
        let elements = [Int64(-5).postgresBind, Int64?.none.postgresBind]
        let typed = try PostgresBind.array(elements, of: .int8)
        #expect(Self.binary(typed) != nil)
        #expect(typed.text == (try PostgresBind.array(elements)).text)
        #expect(typed.text == #"{"-5",NULL}"#)
        #expect(typed == (try PostgresBind.array(elements)))
    }

    @Test func refusesNULInTextAndNamesTheElement() {
        for type in [PostgresDataType.text, .jsonb] {
            let error = #expect(throws: PostgresError.self) {
                try PostgresBind.array(["fine".postgresBind, "cut\0here".postgresBind], of: type)
            }
            #expect(error?.kind == .invalidBind)
            #expect(error?.batchIndex == 1)
        }
    }

    @Test func typedColumnsTransposeRowsAndRefuseRaggedOnes() throws {
        let rows: [[PostgresBind]] = [["a".postgresBind, 1.postgresBind], ["b".postgresBind, Int?.none.postgresBind]]
        let columns = try PostgresBind.columns(rows, types: [.text, .int8])
        #expect(columns.map(\.text) == [#"{"a","b"}"#, #"{"1",NULL}"#])
        #expect(columns.allSatisfy { Self.binary($0) != nil })
        let error = #expect(throws: PostgresError.self) {
            try PostgresBind.columns([["a".postgresBind], ["b".postgresBind, "c".postgresBind]], types: [.text])
        }
        #expect(error?.batchIndex == 1)
    }

    @Test func scalarTextFormsAreUnchanged() {
        #expect(Date(timeIntervalSince1970: 1_700_000_000.123456).postgresBind.text == "2023-11-14 22:13:20.123456+00")
        #expect([UInt8]([0, 0xAB]).postgresBind.text == #"\x00ab"#)
        #expect(Int32(-7).postgresBind.text == "-7")
        let uuid = UUID()
        #expect(uuid.postgresBind.text == uuid.uuidString)
    }
}

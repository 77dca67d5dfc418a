import Foundation
import Testing
@testable import Postgres

@Suite struct TypeRoundTripTests {
    struct Payload: Codable, Equatable {
        var name: String
        var tags: [String]
    }

    @Test func everySupportedTypeRoundTripsThroughATable() async throws {
        let connection = try await TestDatabase.connect()
        let table = TestDatabase.uniqueName("types")
        try await connection.execute(
            """
            CREATE TABLE \(identifier: table) (
                t text, i bigint, i32 integer, i64 bigint, d double precision, b boolean,
                bytes bytea, raw bytea, at timestamptz, id uuid, doc jsonb)
            """)

        let text = "héllo 🌍 日本語 \u{202E} ' \" \\ $1 %s"
        let bytes = Data((0...255).map { UInt8($0) })
        let raw: [UInt8] = [0, 92, 39, 255]
        let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
        let uuid = UUID()
        let json = try PostgresJSON(encoding: Payload(name: "ü", tags: ["a", "b"]))
        try await connection.execute(
            """
            INSERT INTO \(identifier: table) VALUES (\(text), \(Int.min), \(Int32.max), \(Int64.max), \(-1.5e-300),
                \(true), \(bytes), \(raw), \(date), \(uuid), \(json))
            """)
        // NULL for every column, bound as typed optionals.
        let none: (String?, Int?, Int32?, Int64?, Double?, Bool?, Data?, [UInt8]?, Date?, UUID?, PostgresJSON?) =
            (nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)
        try await connection.execute(
            """
            INSERT INTO \(identifier: table) VALUES (\(none.0), \(none.1), \(none.2), \(none.3), \(none.4), \(none.5),
                \(none.6), \(none.7), \(none.8), \(none.9), \(none.10))
            """)

        let rows = try await connection.query("SELECT * FROM \(identifier: table) ORDER BY t NULLS LAST")
        try #require(rows.count == 2)
        let full = try rows[0].decode((String, Int, Int32, Int64, Double, Bool, Data, [UInt8], Date, UUID, PostgresJSON).self)
        #expect(full.0 == text)
        #expect(full.1 == Int.min)
        #expect(full.2 == Int32.max)
        #expect(full.3 == Int64.max)
        #expect(full.4 == -1.5e-300)
        #expect(full.5 == true)
        #expect(full.6 == bytes)
        #expect(full.7 == raw)
        #expect(full.8 == date)
        #expect(full.9 == uuid)
        #expect(try full.10.decode(as: Payload.self) == Payload(name: "ü", tags: ["a", "b"]))

        let empty = try rows[1].decode((String?, Int?, Int32?, Int64?, Double?, Bool?, Data?, [UInt8]?, Date?, UUID?, PostgresJSON?).self)
        #expect(empty.0 == nil && empty.1 == nil && empty.2 == nil && empty.3 == nil && empty.4 == nil && empty.5 == nil)
        #expect(empty.6 == nil && empty.7 == nil && empty.8 == nil && empty.9 == nil && empty.10 == nil)
        #expect(rows[1].isNull(column: 0))
        try await connection.execute("DROP TABLE \(identifier: table)")
    }

    @Test func bindsMeanWhatTheServerThinksTheyMean() async throws {
        let connection = try await TestDatabase.connect()
        let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
        let before1970 = Date(timeIntervalSince1970: -0.5)
        let uuid = UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!
        let row = try await connection.query(
            """
            SELECT \(date) = '2023-11-14 22:13:20.123456+00'::timestamptz,
                   \(before1970) = '1969-12-31 23:59:59.5+00'::timestamptz,
                   \(Data([0, 1, 255])) = '\\x0001ff'::bytea,
                   \(uuid) = '6ba7b810-9dad-11d1-80b4-00c04fd430c8'::uuid,
                   \(Double.infinity) = 'Infinity'::float8,
                   \(PostgresJSON(text: #"{"a": [1, 2]}"#)) -> 'a' ->> 1,
                   '2024-02-29 12:00:00+05:30'::timestamptz,
                   '0044-03-15 12:00:00+00 BC'::timestamptz
            """)[0]
        let decoded = try row.decode((Bool, Bool, Bool, Bool, Bool, String, Date, Date).self)
        #expect(decoded.0 && decoded.1 && decoded.2 && decoded.3 && decoded.4)
        #expect(decoded.5 == "2")
        #expect(decoded.6 == Date(timeIntervalSince1970: 1_709_188_200))
        // Round trip of a BC date through our encoder and the server's parser.
        let back = try await connection.query("SELECT \(decoded.7)::text")[0].decode(String.self)
        #expect(back == "0044-03-15 12:00:00+00 BC")
    }

    @Test func decodingErrorsNameTheColumnAndNotTheValue() async throws {
        let connection = try await TestDatabase.connect()
        let row = try await connection.query("SELECT 'secret-value'::text AS label, NULL::int AS missing")[0]
        do {
            _ = try row.decode(column: "label", as: Int.self)
            Issue.record("text decoded as Int")
        } catch let error as PostgresError {
            #expect(error.kind == .decoding)
            #expect(error.column == "label")
            #expect(error.debugDescription.contains("text"))
            #expect(!error.debugDescription.contains("secret-value"))
        }
        do {
            _ = try row.decode(column: "missing", as: Int.self)
            Issue.record("NULL decoded as non-optional Int")
        } catch let error as PostgresError {
            #expect(error.kind == .decoding)
            #expect(error.debugDescription.contains("NULL"))
        }
        #expect(try row.decode(column: "missing", as: Int?.self) == nil)
        #expect(throws: PostgresError.self) { try row.decode((String, Int?, Int?).self) }
        #expect(throws: PostgresError.self) { try row.decode(column: "nope", as: String.self) }
    }

    @Test func untypedStringsAreInferredByTheServer() async throws {
        let connection = try await TestDatabase.connect()
        let table = TestDatabase.uniqueName("infer")
        try await connection.execute("CREATE TABLE \(identifier: table) (id uuid, doc jsonb, n numeric)")
        try await connection.execute(
            """
            INSERT INTO \(identifier: table) VALUES (\("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), \(#"{"k":1}"#), \("12.50"))
            """)
        let row = try await connection.query("SELECT id, doc, n FROM \(identifier: table)")[0]
        #expect(try row.decode(column: 0, as: UUID.self) == UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8"))
        #expect(try row.decode(column: 1, as: PostgresJSON.self).text == #"{"k": 1}"#)
        #expect(try row.decode(column: 2, as: Double.self) == 12.5)
        try await connection.execute("DROP TABLE \(identifier: table)")
    }

    @Test func textWithNULIsRejectedBeforeSending() async throws {
        let connection = try await TestDatabase.connect()
        let error = await expectPostgresError { _ = try await connection.query("SELECT \("a\u{0}b")") }
        #expect(error?.kind == .invalidBind)
    }
}

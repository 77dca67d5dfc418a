import Foundation
import Testing
@testable import Postgres

/// Typed array binds in PostgreSQL's binary format reach the server as the
/// same values their text form does: each element type, edge values, NULL
/// elements, empty arrays, a session in another time zone.
@Suite struct BinaryArrayBindRoundTripTests {
    static func isBinary(_ bind: PostgresBind) -> Bool {
        if case .binaryArray = bind.value { true } else { false }
    }

    /// `unnest` of `elements` sent as `type[]`, binary and as text, each element as text (`::text`), in order.
    static func readBack(
        _ elements: [PostgresBind], as type: PostgresDataType, on connection: PostgresConnection
    ) async throws
        -> (binary: [String?], text: [String?])
    {
        let typed = try PostgresBind.array(elements, of: type)
        #expect(isBinary(typed), "\(type) was not sent in binary")
        let sql = "SELECT v::text FROM unnest($1::\(type)[]) WITH ORDINALITY AS r(v, n) ORDER BY n"
        let binary = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: [typed])).map { try $0.decode(String?.self) }
        let text = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: [try PostgresBind.array(elements)]))
            .map { try $0.decode(String?.self) }
        return (binary, text)
    }

    @Test func everyTypeReadsBackAsItsTextFormDoes() async throws {
        let connection = try await TestDatabase.connect()
        // Binary timestamps know no time zone; the text ones say +00: both must survive a session elsewhere.
        _ = try await connection.execute("SET TIME ZONE 'America/St_Johns'")
        let dates: [Date?] = [
            Date(timeIntervalSince1970: 1_700_000_000.123456), nil, Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1.5),
            Date(timeIntervalSince1970: 946_684_800), Date(timeIntervalSince1970: 946_684_799.999999), .distantPast, .distantFuture,
        ]
        let cases: [(PostgresDataType, [PostgresBind])] = [
            (.text, (["héllo 🌍 ' \" \\ $1 {a,b} NULL", nil, "", "NULL", #"\x00"#, " spaced "] as [String?]).map(\.postgresBind)),
            (.bytea, ([(0...255).map { UInt8($0) }, nil, [], [0], [0, 0, 0], Array(#""\"#.utf8)] as [[UInt8]?]).map(\.postgresBind)),
            (.bytea, [Data([0, 1, 0]).postgresBind]),
            (
                .jsonb,
                ([#"{"k": "quote \" backslash \\ brace }"}"#, nil, #"{"k": ""}"#, "[1, 2.50, null]", "\"🌍\""] as [String?])
                    .map { $0.map(PostgresJSON.init(text:)).postgresBind }
            ),
            (.timestamptz, dates.map(\.postgresBind)),
            (.int8, ([Int64.min, Int64.max, 0, -1, nil] as [Int64?]).map(\.postgresBind)),
            (.int8, [Int32(-7).postgresBind, Int.max.postgresBind]),
            (.int4, ([Int32.min, Int32.max, 0, -1, nil] as [Int32?]).map(\.postgresBind)),
            (.int2, ([Int16.min, Int16.max, -1, nil] as [Int16?]).map(\.postgresBind)),
            (.uuid, ([UUID(), nil, UUID(uuidString: "00000000-0000-0000-0000-000000000000")] as [UUID?]).map(\.postgresBind)),
            (.text, [Int64(-42).postgresBind, Date(timeIntervalSince1970: 1).postgresBind, [UInt8]([1, 2]).postgresBind]),
            (.text, [String?.none.postgresBind, String?.none.postgresBind]),
            (.text, []), (.int8, []), (.timestamptz, []), (.bytea, []),
        ]
        for (type, elements) in cases {
            let (binary, text) = try await Self.readBack(elements, as: type, on: connection)
            #expect(binary.count == elements.count, "\(type)")
            #expect(binary == text, "\(type)")
        }
    }

    @Test func decodedValuesAreTheOnesSent() async throws {
        let connection = try await TestDatabase.connect()
        let bytes: [[UInt8]?] = [(0...255).map { UInt8($0) }, nil, [], [0, 0]]
        let dates: [Date?] = [
            Date(timeIntervalSince1970: 1_700_000_000.123456), nil, Date(timeIntervalSince1970: -86_400.25),
            Date(timeIntervalSince1970: 4_102_444_800),
        ]
        let numbers: [Int64?] = [Int64.min, nil, -3, Int64.max]
        let texts: [String?] = ["a\"b\\c", nil, "", "ü"]
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL:
                    "SELECT b, d, i, t FROM unnest($1::bytea[], $2::timestamptz[], $3::int8[], $4::text[]) WITH ORDINALITY AS r(b, d, i, t, n) ORDER BY n",
                binds: try PostgresBind.columns(
                    (0..<4).map { [bytes[$0].postgresBind, dates[$0].postgresBind, numbers[$0].postgresBind, texts[$0].postgresBind] },
                    types: [.bytea, .timestamptz, .int8, .text])))
        #expect(rows.count == 4)
        for (index, row) in rows.enumerated() {
            let (b, d, i, t) = try row.decode(([UInt8]?, Date?, Int64?, String?).self)
            #expect(b == bytes[index])
            #expect(d == dates[index])
            #expect(i == numbers[index])
            #expect(t == texts[index])
        }
    }

    @Test func theServerRefusesAnotherElementType() async throws {
        let connection = try await TestDatabase.connect()
        let bind = try PostgresBind.array([Int64(1).postgresBind], of: .int8)
        let error = await #expect(throws: PostgresError.self) {
            _ = try await connection.query(PostgresQuery(unsafeSQL: "SELECT unnest($1::int4[])", binds: [bind]))
        }
        #expect(error?.sqlState == "42804") // datatype_mismatch: "wrong element type", never a silent conversion
        // The connection is still usable.
        #expect(try await connection.query("SELECT 1")[0].decode(Int.self) == 1)
    }

    @Test func binaryArraysTravelInPipelinesToo() async throws {
        let connection = try await TestDatabase.connect()
        let table = TestDatabase.uniqueName("binary_pipeline")
        _ = try await connection.execute(PostgresQuery(unsafeSQL: "CREATE TEMP TABLE \(table) (at timestamptz, payload bytea)"))
        let insert = PostgresPreparedStatement(
            name: "\(table)_insert", sql: "INSERT INTO \(table) SELECT * FROM unnest($1::timestamptz[], $2::bytea[])",
            parameterTypes: [.unspecified, .unspecified])
        let date = Date(timeIntervalSince1970: 1_234_567_890.5)
        let columns = try PostgresBind.columns([[date.postgresBind, [UInt8]([0, 1]).postgresBind]], types: [.timestamptz, .bytea])
        #expect(columns.allSatisfy(Self.isBinary))
        _ = try await connection.pipeline(statements: [insert], batch: [PostgresBatchItem(statement: insert.name, binds: columns)])
        let row = try #require(try await connection.query(PostgresQuery(unsafeSQL: "SELECT at, payload FROM \(table)")).first)
        let (at, payload) = try row.decode((Date, [UInt8]).self)
        #expect(at == date)
        #expect(payload == [0, 1])
    }
}

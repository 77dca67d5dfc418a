import Foundation
import Testing
@testable import Postgres

/// Each element of an array bind reaches the server as the same value a
/// scalar bind of it would: `unnest` of the arrays gives the values back.
@Suite struct ArrayBindRoundTripTests {
    @Test func unnestGivesEveryElementBackUnchanged() async throws {
        let connection = try await TestDatabase.connect()
        let texts: [String?] = ["héllo 🌍 ' \" \\ $1 {a,b} NULL", nil, "", "NULL", #"\\x00"#, " spaced "]
        let bytes: [[UInt8]?] = [(0...255).map { UInt8($0) }, nil, [], [34, 92], [0], Array(#""\"#.utf8)]
        let documents: [String?] = [#"{"k": "quote \" backslash \\ brace }"}"#, nil, #"{"k": ""}"#, #"{"k": null}"#, "[1]", "{}"]
        let dates: [Date?] = [Date(timeIntervalSince1970: 1_700_000_000.123456), nil, nil, Date(timeIntervalSince1970: 0), nil, nil]
        let query = PostgresQuery(
            unsafeSQL: """
                SELECT t, b, j::text, at FROM unnest($1::text[], $2::bytea[], $3::jsonb[], $4::timestamptz[])
                    WITH ORDINALITY AS r(t, b, j, at, n)
                ORDER BY n
                """,
            binds: [
                try .array(texts.map(\.postgresBind)), try .array(bytes.map(\.postgresBind)),
                try .array(documents.map { $0.map(PostgresJSON.init(text:)).postgresBind }), try .array(dates.map(\.postgresBind)),
            ])
        let rows = try await connection.query(query)
        #expect(rows.count == texts.count)
        for (index, row) in rows.enumerated() {
            let (text, data, document, date) = try row.decode((String?, [UInt8]?, String?, Date?).self)
            #expect(text == texts[index])
            #expect(data == bytes[index])
            #expect(date == dates[index])
            // jsonb keeps its own spacing: compare with the scalar bind's reading.
            if let json = documents[index] {
                #expect(document == (try await connection.query("SELECT \(PostgresJSON(text: json))::text")[0].decode(String.self)))
            } else {
                #expect(document == nil)
            }
        }
    }
}

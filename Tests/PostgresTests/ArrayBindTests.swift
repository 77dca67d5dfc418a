import Testing
@testable import Postgres

@Suite struct ArrayBindTests {
    @Test func quotesEveryElementAndEscapesOnlyQuotesAndBackslashes() throws {
        let bind = try PostgresBind.array([
            "plain".postgresBind, "a,b {c} NULL".postgresBind, #"say "hi" \ bye"#.postgresBind, String?.none.postgresBind,
            "".postgresBind,
        ])
        #expect(bind.text == #"{"plain","a,b {c} NULL","say \"hi\" \\ bye",NULL,""}"#)
        #expect(bind.dataType == .unspecified)
    }

    @Test func emptyArray() throws {
        #expect(try PostgresBind.array([]).text == "{}")
    }

    @Test func refusesNULAndNamesTheElement() {
        let error = #expect(throws: PostgresError.self) {
            try PostgresBind.array(["fine".postgresBind, "cut\0here".postgresBind])
        }
        #expect(error?.kind == .invalidBind)
        #expect(error?.batchIndex == 1)
    }

    @Test func columnsTransposeRowsAndRefuseRaggedOnes() throws {
        let rows: [[PostgresBind]] = [["a".postgresBind, 1.postgresBind], ["b".postgresBind, Int?.none.postgresBind]]
        #expect(try PostgresBind.columns(rows, columns: 2).map(\.text) == [#"{"a","b"}"#, #"{"1",NULL}"#])
        let error = #expect(throws: PostgresError.self) {
            try PostgresBind.columns([["a".postgresBind], ["b".postgresBind, "c".postgresBind]], columns: 1)
        }
        #expect(error?.batchIndex == 1)
    }
}

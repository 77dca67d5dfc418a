import Foundation
import Testing
import BillingModel

@Suite struct ISO8601DurationTests {
    static let start = Date(timeIntervalSince1970: 1_706_659_200) // 2024-01-31T00:00:00Z

    @Test(arguments: [
        ("P30D", "2024-03-01T00:00:00Z"), ("P1M", "2024-02-29T00:00:00Z"), ("P1Y", "2025-01-31T00:00:00Z"),
        ("P2W", "2024-02-14T00:00:00Z"), ("PT12H", "2024-01-31T12:00:00Z"), ("P1DT1H30M5S", "2024-02-01T01:30:05Z"),
        ("P1Y2M", "2025-03-31T00:00:00Z"),
    ])
    func addsOnTheUTCCalendar(text: String, end: String) throws {
        let duration = try #require(ISO8601Duration(text))
        #expect(duration.added(to: Self.start) == Timestamp.parse(end))
        #expect(ISO8601Duration(duration.description) == duration)
    }

    @Test(arguments: ["", "P", "PT", "30D", "P-1D", "P1.5D", "P1DT", "PT1D", "P1H", "P1D1M", "P1M1Y", "P1D2D", "p1d", "P 1D", "P1234567890D", "P1DX"])
    func refusesAnythingElse(text: String) {
        #expect(ISO8601Duration(text) == nil, "\(text)")
    }
}

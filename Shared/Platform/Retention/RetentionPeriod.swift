import Foundation
import ServiceSettings

/// How long one kind of row is kept after the time that makes it prunable
/// (delivered, published, expired…): ``forever`` (the setting's `0`) or a duration.
public enum RetentionPeriod: Sendable, Equatable, CustomStringConvertible {
    case forever
    case keep(Duration)

    /// The newest time a prunable row may carry and still be deleted at `now`; nil: nothing is ever deleted.
    public func cutoff(now: Date) -> Date? {
        switch self {
        case .forever: nil
        case .keep(let duration): now.addingTimeInterval(-Self.seconds(duration))
        }
    }

    public var description: String {
        switch self {
        case .forever: "forever"
        case .keep(let duration): "\(Self.seconds(duration))s"
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

extension ConfigReader {
    /// Reads a retention setting: `0` keeps the rows forever; anything else
    /// must be at least `minimum`, the shortest time a row can still be needed
    /// (a replay of the topics, a client's retry), so a typo cannot prune
    /// rows something still reads.
    public mutating func retention(_ setting: Setting, default defaultValue: Duration, minimum: Duration = .zero) -> RetentionPeriod {
        let value = duration(setting, default: defaultValue)
        if value == .zero { return .forever }
        guard value >= minimum else {
            report(setting, "must be 0 (keep forever) or at least \(RetentionPeriod.seconds(minimum))s")
            return .keep(defaultValue)
        }
        return .keep(value)
    }
}

/// Orders in which a life's records can reach the projector: every
/// permutation (or, for a long life, seeded random ones), each with seeded
/// random duplicates and cut into seeded random batches. The seed makes a
/// failing arrival reproduce; ``Arrival/description`` names it.
public struct Arrival: Sendable, CustomStringConvertible {
    /// Indices into the life's records in true order, in arrival order; an index may repeat (a redelivery).
    public var order: [Int]
    /// `order` cut into consecutive batches (each non-empty).
    public var batches: [[Int]]

    public var description: String { batches.map { $0.map(String.init).joined(separator: ",") }.joined(separator: " | ") }
}

public enum Arrivals {
    /// Lives this short are tried in every order.
    public static let exhaustiveLimit = 7

    /// Every permutation of `count` records when `count` <= ``exhaustiveLimit``
    /// (each with its own duplicates and batches), else `samples` random ones.
    public static func plans(count: Int, seed: UInt64, samples: Int) -> [Arrival] {
        var generator = SplitMix64(state: seed)
        let orders =
            count <= exhaustiveLimit ? permutations(Array(0..<count)) : (0..<samples).map { _ in Array(0..<count).shuffled(using: &generator) }
        return orders.map { arrival(of: $0, using: &generator) }
    }

    /// `samples` random arrivals (for the slower, real projector).
    public static func sample(count: Int, seed: UInt64, samples: Int) -> [Arrival] {
        var generator = SplitMix64(state: seed)
        return (0..<samples).map { _ in arrival(of: Array(0..<count).shuffled(using: &generator), using: &generator) }
    }

    /// `order` with up to a third of its records delivered again at random
    /// later places, cut into batches of one to four records.
    static func arrival(of order: [Int], using generator: inout SplitMix64) -> Arrival {
        var order = order
        for _ in 0..<Int.random(in: 0...max(order.count / 3, 1), using: &generator) {
            let at = Int.random(in: 0..<order.count, using: &generator)
            order.insert(order[at], at: Int.random(in: at...order.count, using: &generator))
        }
        var batches: [[Int]] = []
        var rest = order[...]
        while !rest.isEmpty {
            let size = min(Int.random(in: 1...4, using: &generator), rest.count)
            batches.append(Array(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        return Arrival(order: order, batches: batches)
    }

    static func permutations(_ items: [Int]) -> [[Int]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }
}

/// SplitMix64: the same sequence for the same seed on every machine.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

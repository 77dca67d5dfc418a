/// The dispatcher's attempts in flight, per endpoint: an endpoint holds at
/// most ``perEndpoint`` of them and the replica at most ``total``, so a slow
/// or black-holed endpoint fills only its own slots and the others keep theirs.
struct EndpointSlots: Sendable, Hashable {
    let perEndpoint: Int
    let total: Int
    private(set) var inFlight: [String: Int] = [:]

    init(perEndpoint: Int, total: Int) {
        self.perEndpoint = max(1, perEndpoint)
        self.total = max(1, total)
    }

    /// Attempts in flight over all endpoints.
    var busy: Int { inFlight.values.reduce(0, +) }

    /// Room left on the replica.
    var room: Int { max(0, total - busy) }

    /// What each of `endpoints` may still take; full endpoints are left out,
    /// so a claim never reads their rows. Empty when the replica is full.
    func free(among endpoints: some Sequence<String>) -> [String: Int] {
        guard room > 0 else { return [:] }
        var result: [String: Int] = [:]
        for id in endpoints {
            let free = perEndpoint - (inFlight[id] ?? 0)
            if free > 0 { result[id] = free }
        }
        return result
    }

    mutating func take(_ endpoint: String) {
        inFlight[endpoint, default: 0] += 1
    }

    mutating func release(_ endpoint: String) {
        guard let count = inFlight[endpoint] else { return }
        inFlight[endpoint] = count > 1 ? count - 1 : nil
    }
}

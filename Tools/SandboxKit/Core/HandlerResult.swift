/// What a route produces: the response, plus webhooks to send after it.
struct HandlerResult: Sendable {
    var response: SandboxResponse
    var events: [OutgoingWebhook] = []

    init(_ response: SandboxResponse, events: [OutgoingWebhook] = []) {
        self.response = response
        self.events = events
    }
}

/// Page-number pagination shared by both providers' list endpoints.
struct PageWindow: Sendable {
    let number: Int
    let size: Int
    let total: Int

    init(number: Int?, size: Int?, total: Int, defaultSize: Int, maxSize: Int) {
        self.number = max(1, number ?? 1)
        self.size = min(maxSize, max(1, size ?? defaultSize))
        self.total = total
    }

    var lastPage: Int { max(1, (total + size - 1) / size) }
    var range: Range<Int> {
        let start = min(total, (number - 1) * size)
        return start..<min(total, start + size)
    }
    func slice<T>(_ items: [T]) -> [T] { Array(items[range]) }
}

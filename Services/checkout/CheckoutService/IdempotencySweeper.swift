import ServiceRuntime
import Telemetry

/// Deletes expired idempotency records once an hour (expired ones are also
/// replaced on use, so this only bounds the table's size).
public struct IdempotencySweeper: Service {
    public let name = "idempotency-sweeper"
    let store: IdempotencyStore
    let logger: Logger
    let interval: Duration = .seconds(3600)

    public func run() async throws {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            do {
                let deleted = try await store.sweep()
                if deleted > 0 { logger.info("expired idempotency records deleted", metadata: ["count": String(deleted)]) }
            } catch {
                logger.warning("idempotency sweep failed", metadata: ["error": String(describing: error)])
            }
        }
    }
}

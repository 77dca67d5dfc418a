import Postgres

extension ProjectionWriter {
    /// Runs a plan's statements on `connection`, inside the batch's
    /// transaction, and returns each item's affected-row count in plan order
    /// (1 for a log insert whose dedup key was new). At most six round
    /// trips whatever the batch's size: the locks (the plan's first item),
    /// every plain log insert as one set-based statement
    /// (``ProjectionStatements/events(_:)``), owner evidence, app users and
    /// customers likewise (``ProjectionStatements/setForms``), then every
    /// other item in one pipeline, in plan order. The sets go first so that
    /// every later statement (owner evidence from charges, an order's owner
    /// and subscription, a checkout's completion, a snapshot's repeat check)
    /// sees the whole batch's events and evidence, as it would had they
    /// arrived in an earlier batch; each of those statements is
    /// order-independent, so the rows converge to the same values. Nothing
    /// in the pipeline reads app users or customers.
    static func run(_ plan: ProjectionPlan, on connection: PostgresConnection) async throws -> [Int] {
        var counts = [Int](repeating: 0, count: plan.items.count)
        guard let lock = plan.items.first else { return counts }
        _ = try await connection.pipeline(statements: [ProjectionStatements.lock], batch: [lock])
        var sets: [String: [Int]] = [:]
        let setNames = Set(ProjectionStatements.setForms.map(\.statement.name) + [ProjectionStatements.event.name])
        var rest: [Int] = []
        for (index, item) in plan.items.enumerated().dropFirst() {
            if setNames.contains(item.statement) { sets[item.statement, default: []].append(index) } else { rest.append(index) }
        }
        if let events = sets[ProjectionStatements.event.name] {
            let rows = try await connection.query(try ProjectionStatements.events(events.map { plan.items[$0].binds }))
            var new = Set(try rows.map { try $0.decode(column: 0, as: String.self) })
            // A key twice in one batch (a command redelivered within it) is new once, as row by row.
            for index in events where plan.items[index].binds.first?.text.flatMap({ new.remove($0) }) != nil { counts[index] = 1 }
        }
        // Their counts say nothing the writer reads (only log inserts, checkouts and commands are counted).
        for (statement, form) in ProjectionStatements.setForms {
            guard let indices = sets[statement.name] else { continue }
            try await connection.execute(try form(indices.map { plan.items[$0].binds }))
        }
        if !rest.isEmpty {
            let restCounts = try await connection.pipeline(statements: ProjectionStatements.all, batch: rest.map { plan.items[$0] })
            for (position, index) in rest.enumerated() { counts[index] = restCounts[position] }
        }
        return counts
    }
}

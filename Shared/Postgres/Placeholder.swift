// Placeholder until the module lands.
enum PostgresPlaceholder {}

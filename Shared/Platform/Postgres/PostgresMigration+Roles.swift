extension PostgresMigration {
    /// SQL that creates the NOLOGIN group role `role` unless it exists (ending in a newline). Roles
    /// belong to the cluster, so the migrations of several databases (or of
    /// several services sharing one role) may create it at once; the one that
    /// loses the race keeps the other's. For new migrations: the ones already
    /// released keep their own copies, since a migration's text never changes.
    /// - Parameter role: a plain lowercase identifier (letters, digits, `_`).
    public static func createRoleIfMissing(_ role: String) -> String {
        precondition(
            !role.isEmpty && role.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F },
            "role names are plain lowercase identifiers")
        return """
            DO $roles$
            BEGIN
                IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = '\(role)') THEN
                    BEGIN
                        CREATE ROLE \(role) NOLOGIN;
                    EXCEPTION WHEN duplicate_object OR unique_violation THEN
                        NULL; -- created meanwhile by another migration
                    END;
                END IF;
            END
            $roles$;

            """
    }
}

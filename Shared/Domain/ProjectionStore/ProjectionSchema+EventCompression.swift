extension ProjectionSchema {
    /// Migration 14: the event log's two large columns (`event`, the parsed
    /// event, and `payload`, the provider's raw body) are compressed with
    /// lz4 instead of PostgreSQL's default pglz.
    ///
    /// Every webhook body is 2–4 KB, over the TOAST threshold, so each log
    /// insert compresses it: in a profile of the projector catching up,
    /// pglz was PostgreSQL's largest single function (about 8% of its
    /// samples). lz4 compresses several times faster and reads back faster,
    /// for somewhat larger rows. Rows already written keep pglz (both read
    /// back alike). A server built without lz4 refuses the setting; the
    /// migration then keeps pglz rather than fail, since nothing depends
    /// on the method.
    static let eventCompression = """
        DO $compression$
        BEGIN
            ALTER TABLE billing_events ALTER COLUMN event SET COMPRESSION lz4, ALTER COLUMN payload SET COMPRESSION lz4;
        EXCEPTION WHEN feature_not_supported THEN
            RAISE NOTICE 'this server has no lz4 support; billing_events keeps pglz';
        END
        $compression$;
        """
}

#if canImport(Glibc)
    import Glibc
#endif

/// The allocator policy of a long-running service: every block of 256 KiB
/// or more gets a mapping of its own, returned to the system when freed.
///
/// glibc starts with that threshold at 128 KiB but raises it to the size of
/// each mapped block freed (up to 32 MiB). After a projector batch has freed
/// its multi-megabyte array parameters and libpq buffers once, later
/// batches' are carved from the heap and the heap keeps them: peak RSS of a
/// catch-up rose from about 155 to 230 MB with set-based writes. A fixed
/// threshold turns that adjustment off; the few large blocks a batch makes
/// cost a mapping each, nothing beside its database work. glibc's own
/// `MALLOC_MMAP_THRESHOLD_`, when set, is left to decide.
///
/// And at most two allocation arenas. glibc gives each thread that meets a
/// locked arena one of its own, up to eight per core; a service runs the
/// HTTP server's, librdkafka's, libpq's and the Swift pool's threads, so
/// blocks freed by one thread stay in the arena of the thread that made
/// them, and each arena keeps its own free space. The reconciler, whose live
/// heap stayed under 35 MB (heaptrack), held 115 MB resident in seven
/// arenas after 20,000 webhooks; with two, 73–80 MB
/// (docs/testing-and-benchmarks.md, issue 22). glibc's own
/// `MALLOC_ARENA_MAX`, when set, is left to decide.
enum HeapPolicy {
    /// Blocks at least this large are mapped on their own.
    static let mappedBlockBytes: Int32 = 256 << 10
    /// Allocation arenas at most (the main one included).
    static let arenas: Int32 = 2
    /// glibc's `M_MMAP_THRESHOLD` and `M_ARENA_MAX` (`malloc.h`, which the Glibc module does not import; part of glibc's ABI).
    static let mmapThresholdOption: Int32 = -3
    static let arenaMaxOption: Int32 = -8

    /// Applies the policy once, at start-up (``ServiceLauncher``), before the
    /// service starts its threads.
    static func apply() {
        #if canImport(Glibc)
            guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "mallopt") else { return }
            typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
            let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
            if getenv("MALLOC_MMAP_THRESHOLD_") == nil { _ = mallopt(mmapThresholdOption, mappedBlockBytes) }
            if getenv("MALLOC_ARENA_MAX") == nil { _ = mallopt(arenaMaxOption, arenas) }
        #endif
    }
}

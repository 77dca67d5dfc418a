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
enum HeapPolicy {
    /// Blocks at least this large are mapped on their own.
    static let mappedBlockBytes: Int32 = 256 << 10
    /// glibc's `M_MMAP_THRESHOLD` (`malloc.h`, which the Glibc module does not import; part of glibc's ABI).
    static let mmapThresholdOption: Int32 = -3

    /// Applies the policy once, at start-up (``ServiceLauncher``).
    static func apply() {
        #if canImport(Glibc)
            guard getenv("MALLOC_MMAP_THRESHOLD_") == nil, let process = dlopen(nil, RTLD_NOW),
                let symbol = dlsym(process, "mallopt")
            else { return }
            typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
            _ = unsafeBitCast(symbol, to: MallOpt.self)(mmapThresholdOption, mappedBlockBytes)
        #endif
    }
}

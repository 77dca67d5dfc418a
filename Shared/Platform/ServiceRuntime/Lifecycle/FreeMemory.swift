#if canImport(Glibc)
    import Glibc
#endif

/// Gives the allocator's free pages back to the system, in every arena
/// (glibc's `malloc_trim(0)`).
///
/// glibc returns freed memory on its own only from the top of each heap; the
/// pages a large, short-lived computation freed below a block still in use
/// stay resident until something reuses them. For after such a computation
/// (the reconciler's revenue figures read and fold the whole event log): it
/// costs a walk over the free lists, milliseconds, nothing when little is free.
public enum FreeMemory {
    /// Returns whole free pages to the system; a no-op where glibc is not the allocator.
    public static func giveBack() {
        #if canImport(Glibc)
            guard let trim = trimFunction else { return }
            _ = trim(0)
        #endif
    }

    #if canImport(Glibc)
        typealias MallocTrim = @convention(c) (Int) -> Int32
        /// `malloc_trim` (`malloc.h`, which the Glibc module does not import; part of glibc's ABI).
        private static let trimFunction: MallocTrim? = {
            guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "malloc_trim") else { return nil }
            return unsafeBitCast(symbol, to: MallocTrim.self)
        }()
    #endif
}

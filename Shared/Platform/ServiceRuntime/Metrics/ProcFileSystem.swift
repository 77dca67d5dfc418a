import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads the few Linux `/proc` files behind the process metrics.
///
/// Every function returns `nil` when the file is missing or not in the
/// expected shape (another OS, a restricted container), so a scrape never fails
/// because of one metric.
struct ProcFileSystem: Sendable {
    /// Usually `/proc`; tests may point it elsewhere.
    let root: String

    /// Bytes of resident memory: the second field of `statm`, in pages.
    func residentMemoryBytes() -> Double? {
        guard let text = readFile("self/statm") else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count >= 2, let pages = Double(fields[1]) else { return nil }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Bytes of virtual memory: the first field of `statm`, in pages.
    func virtualMemoryBytes() -> Double? {
        guard let text = readFile("self/statm"), let first = text.split(separator: " ").first, let pages = Double(first) else { return nil }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Entries of `self/fd` (includes the descriptor used to list it, as other
    /// Prometheus clients do).
    func openFileDescriptors() -> Double? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "\(root)/self/fd") else { return nil }
        return Double(entries.count)
    }

    /// User plus system CPU time and the start time, both from `self/stat`.
    struct ProcessTimes {
        var cpuSeconds: Double
        /// Seconds since the epoch, from the start tick and the boot time.
        var startTimeSeconds: Double?
    }

    /// Parses `self/stat`. The command name (field 2) may contain spaces and
    /// parentheses, so fields are counted from after the last `)`.
    func processTimes() -> ProcessTimes? {
        guard let text = readFile("self/stat"), let close = text.lastIndex(of: ")") else { return nil }
        // After ")" the first field is field 3 (state); utime is field 14,
        // stime 15 and starttime 22, all in clock ticks.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let user = Double(fields[11]), let system = Double(fields[12]), let start = Double(fields[19]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard ticks > 0 else { return nil }
        return ProcessTimes(cpuSeconds: (user + system) / ticks, startTimeSeconds: bootTime().map { $0 + start / ticks })
    }

    /// Seconds since the epoch at boot: the `btime` line of `/proc/stat`.
    func bootTime() -> Double? {
        guard let text = readFile("stat") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst("btime ".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// Reads a small `/proc` file. Their reported size is 0, so read until
    /// end of file rather than trusting `stat`; 1 MiB bounds a surprise.
    func readFile(_ relativePath: String) -> String? {
        let descriptor = open("\(root)/\(relativePath)", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

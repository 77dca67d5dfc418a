#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// libFuzzer's per-input callback (`LLVMFuzzerTestOneInput`'s signature).
public typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// The entry point of every fuzz target (`Tools/fuzz/fuzz-*`).
///
/// SwiftPM links an executable target's own `main` (it renames the entry point
/// and aliases `main` to it), so a target cannot simply leave `main` to
/// libFuzzer. Instead each target has an ordinary `@main` that calls
/// ``run(_:)``: built by `scripts/fuzz.sh` (`-sanitize=fuzzer,address`, which
/// links libFuzzer, and a linker flag that keeps and exports
/// `LLVMFuzzerRunDriver`), it hands control to libFuzzer's driver with the
/// command line as is (`-max_total_time=60 CORPUS…`); in the normal build,
/// without libFuzzer, it replays the files (or folders of files) named on the
/// command line through the same callback, so a crash input can be rerun under
/// a debugger, and the targets compile and link with every other product.
public enum FuzzEntry {
    private typealias Driver =
        @convention(c) (
            UnsafeMutablePointer<CInt>, UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>, FuzzCallback
        ) -> CInt

    public static func run(_ callback: FuzzCallback) -> Never {
        if let symbol = dlsym(dlopen(nil, RTLD_NOW), "LLVMFuzzerRunDriver") {
            let driver = unsafeBitCast(symbol, to: Driver.self)
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(driver(&argc, &argv, callback))
        }
        let paths = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("-") }
        guard !paths.isEmpty else {
            print("usage: \(CommandLine.arguments[0]) FILE_OR_FOLDER… (replays inputs; built without libFuzzer, see scripts/fuzz.sh)")
            exit(2)
        }
        var count = 0
        for path in paths {
            for file in files(at: path) {
                let bytes = read(file)
                _ = bytes.withUnsafeBufferPointer { callback($0.baseAddress, $0.count) }
                count += 1
            }
        }
        print("replayed \(count) input(s) without a crash")
        exit(0)
    }

    private static func files(at path: String) -> [String] {
        guard let directory = opendir(path) else { return [path] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(path + "/" + name) }
        }
        return names.sorted()
    }

    private static func read(_ path: String) -> [UInt8] {
        guard let file = fopen(path, "rb") else {
            print("cannot read \(path)")
            exit(2)
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return bytes
    }

    /// The callback's input as an array (libFuzzer passes a null pointer for an empty input).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}

import Foundation
import Synchronization

/// A child process started with posix_spawn, with pipes for its standard
/// streams. Tests use it instead of Foundation's `Process`, which on this
/// platform crashed inside `run()` (signal 11) and left children unreaped
/// when used from the many threads of a parallel test run.
///
/// Pipes are made close-on-exec, so a child started by another test never
/// inherits them; only the dup2'ed copies survive into this child.
public final class ChildProcess: Sendable {
    /// Held from creating a child's pipes until they are close-on-exec and the
    /// child is started, so no other spawn from these helpers can inherit a
    /// pipe in between (Glibc's headers do not offer `pipe2` to Swift here).
    static let spawnLock = Mutex(())

    public let pid: pid_t
    /// Write end of the child's standard input (closing it sends EOF).
    public let standardInput: FileHandle
    /// Read end of the child's standard output.
    public let standardOutput: FileHandle
    /// Read end of the child's standard error, or nil when it shares standard output.
    public let standardError: FileHandle?

    private init(pid: pid_t, standardInput: FileHandle, standardOutput: FileHandle, standardError: FileHandle?) {
        self.pid = pid
        self.standardInput = standardInput
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// Starts `arguments[0]` (looked up on PATH) with `arguments`.
    /// - Parameters:
    ///   - environment: the whole environment (default: this process's).
    ///   - mergeStandardError: send the child's stderr to its stdout pipe.
    public static func spawn(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        mergeStandardError: Bool = false
    ) throws -> ChildProcess {
        precondition(!arguments.isEmpty, "no command")
        return try spawnLock.withLock { _ in try spawnLocked(arguments, environment: environment, mergeStandardError: mergeStandardError) }
    }

    private static func spawnLocked(_ arguments: [String], environment: [String: String], mergeStandardError: Bool) throws -> ChildProcess {
        let input = try makePipe(), output = try makePipe(), errors = mergeStandardError ? nil : try makePipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input.read, 0)
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, errors?.write ?? output.write, 2)

        var cArguments = arguments.map { strdup($0) } + [nil]
        var cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], &actions, nil, &cArguments, &cEnvironment)
        close(input.read)
        close(output.write)
        if let errors { close(errors.write) }
        guard result == 0 else {
            close(input.write)
            close(output.read)
            if let errors { close(errors.read) }
            throw ScriptRunner.Failure(description: "cannot start \(arguments[0]): \(String(cString: strerror(result)))")
        }
        return ChildProcess(
            pid: pid,
            standardInput: FileHandle(fileDescriptor: input.write, closeOnDealloc: true),
            standardOutput: FileHandle(fileDescriptor: output.read, closeOnDealloc: true),
            standardError: errors.map { FileHandle(fileDescriptor: $0.read, closeOnDealloc: true) })
    }

    /// Waits for the child to end, off the cooperative pool.
    /// - Returns: the raw wait status (use ``exitCode(_:)``).
    public func wait() async -> Int32 {
        let pid = pid
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                continuation.resume(returning: status)
            }
        }
    }

    /// The exit code for a wait status, or nil when the child was killed by a signal.
    public static func exitCode(_ status: Int32) -> Int32? {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : nil
    }

    public func signal(_ signal: Int32) { kill(pid, signal) }

    /// Runs a command to completion with `input` on its stdin.
    /// - Returns: its stdout.
    /// - Throws: ``ScriptRunner/Failure`` with its stderr when it exits non-zero.
    public static func run(_ arguments: [String], input: [UInt8] = []) async throws -> [UInt8] {
        let child = try spawn(arguments)
        async let output = readAll(child.standardOutput)
        async let errors = readAll(child.standardError!)
        await write(input, to: child.standardInput)
        let (stdout, stderr, status) = await (output, errors, child.wait())
        guard exitCode(status) == 0 else {
            throw ScriptRunner.Failure(
                description: "\(arguments.joined(separator: " ")) failed (wait status \(status)): \(String(decoding: stderr, as: UTF8.self))")
        }
        return stdout
    }

    /// Reads until end of file on a dispatch thread.
    public static func readAll(_ handle: FileHandle) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Array(handle.readDataToEndOfFile())) }
        }
    }

    /// Writes `bytes` and closes the handle, on a dispatch thread.
    public static func write(_ bytes: [UInt8], to handle: FileHandle) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                try? handle.write(contentsOf: bytes)
                try? handle.close()
                continuation.resume()
            }
        }
    }

    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw ScriptRunner.Failure(description: "pipe failed: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return (fds[0], fds[1])
    }
}

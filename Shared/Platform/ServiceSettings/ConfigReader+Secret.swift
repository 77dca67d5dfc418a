#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ConfigReader {
    /// Largest secret file read; anything bigger is a mistake (a wrong path).
    static let maximumSecretFileBytes = 64 * 1024

    /// Reads a secret from `name`, or from the file named by `name_FILE`
    /// (the Docker/Kubernetes secrets convention). Returns `nil` when neither
    /// is set.
    ///
    /// From a file, trailing newlines are trimmed. Setting both variables,
    /// an unreadable, oversized, non-UTF-8 or empty file are problems. The
    /// value itself never appears in a problem message.
    public mutating func secret(_ name: String) -> Secret? {
        if case .value(let secret) = secretLookup(name) { return secret }
        return nil
    }

    mutating func secretLookup(_ name: String) -> Lookup<Secret> {
        let fileVariable = name + "_FILE"
        switch (environment[name], environment[fileVariable]) {
        case (nil, nil):
            return .unset
        case (.some, .some):
            report(name, "both \(name) and \(fileVariable) are set; set only one")
            return .invalid
        case (let value?, nil):
            return .value(Secret(value))
        case (nil, let path?):
            switch Self.readSecretFile(path) {
            case .success(let value):
                return .value(Secret(value))
            case .failure(let problem):
                report(fileVariable, problem.message)
                return .invalid
            }
        }
    }

    struct SecretFileProblem: Error {
        let message: String
    }

    static func readSecretFile(_ path: String) -> Result<String, SecretFileProblem> {
        let shownPath = echo(path)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            return .failure(SecretFileProblem(message: "cannot read \(shownPath): \(String(cString: strerror(errno)))"))
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= maximumSecretFileBytes {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(SecretFileProblem(message: "cannot read \(shownPath): \(String(cString: strerror(errno)))"))
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        guard bytes.count <= maximumSecretFileBytes else {
            return .failure(SecretFileProblem(message: "file \(shownPath) is larger than \(maximumSecretFileBytes) bytes"))
        }
        guard var text = String(validating: bytes, as: UTF8.self) else {
            return .failure(SecretFileProblem(message: "file \(shownPath) is not UTF-8 text"))
        }
        while let last = text.last, last.isNewline { text.removeLast() }
        guard !text.isEmpty else {
            return .failure(SecretFileProblem(message: "file \(shownPath) is empty"))
        }
        return .success(text)
    }
}

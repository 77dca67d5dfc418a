internal import CRdKafka

/// Facts about the librdkafka loaded at run time.
public enum KafkaRuntime {
    /// The oldest librdkafka this module works with: 2.2.0 fixed the parsing of
    /// tagged fields in ApiVersions v3 responses, without which it cannot talk
    /// to Tansu (or other brokers that send those tags).
    public static let minimumVersion = (major: 2, minor: 2, patch: 0)

    /// The loaded librdkafka's version as text, e.g. `"2.16.1"`.
    public static var libraryVersion: String { String(cString: rd_kafka_version_str()) }

    /// The loaded librdkafka's version as `(major, minor, patch)`.
    public static var libraryVersionComponents: (major: Int, minor: Int, patch: Int) {
        // rd_kafka_version() is 0xMMmmrrxx: major, minor, revision, pre-release.
        let raw = Int(rd_kafka_version())
        return ((raw >> 24) & 0xff, (raw >> 16) & 0xff, (raw >> 8) & 0xff)
    }

    /// Fails when the loaded librdkafka is older than ``minimumVersion``.
    /// Producer, consumer and admin initializers call this first.
    /// - Throws: ``KafkaError/Code/libraryTooOld``, with a message naming the fix.
    public static func checkLibraryVersion() throws {
        let loaded = libraryVersionComponents
        let minimum = minimumVersion
        guard (loaded.major, loaded.minor, loaded.patch) < (minimum.major, minimum.minor, minimum.patch) else { return }
        throw KafkaError(
            .libraryTooOld,
            reason: "librdkafka \(libraryVersion) is loaded, but \(minimum.major).\(minimum.minor).\(minimum.patch)"
                + " or newer is needed to talk to the broker. In a checkout, run scripts/install-deps.sh,"
                + " which vendors librdkafka 2.16 into .vendor/lib (on the binaries' run path);"
                + " in a container, use an image with librdkafka >= 2.2 (for example Ubuntu 24.04)."
        )
    }
}

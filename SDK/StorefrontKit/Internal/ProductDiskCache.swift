import Foundation

/// The product list as last received (its raw JSON body and `ETag`), in memory
/// and, when the app gave a folder, on disk.
struct ProductsEntry: Codable, Sendable {
    var etag: String?
    var savedAt: Date
    var body: Data
    /// Decoded from ``body`` (not stored).
    var products: [Product] = []

    enum CodingKeys: String, CodingKey { case etag, savedAt = "saved_at", body }
}

/// One JSON file per server, `storefront-products-<hash of the base URL>.json`.
/// Failures to read or write are ignored: the cache only saves a download.
struct ProductDiskCache: Sendable {
    let file: URL

    init(directory: URL, baseURL: URL) {
        file = directory.appendingPathComponent("storefront-products-\(FNV1a.hex(baseURL.absoluteString)).json")
    }

    func load() -> ProductsEntry? {
        guard let data = try? Data(contentsOf: file), var entry = try? JSONDecoder().decode(ProductsEntry.self, from: data),
            let list = try? JSONDecoder().decode(ProductListBody.self, from: entry.body)
        else { return nil }
        entry.products = list.products.data
        return entry
    }

    func save(_ entry: ProductsEntry) {
        guard let data = try? JSONEncoder().encode(entry) else { return }
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? data.write(to: file, options: .atomic)
    }

    func remove() { try? FileManager.default.removeItem(at: file) }
}

/// 64-bit FNV-1a, for stable file names.
enum FNV1a {
    static func hex(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// The `sub` claim of a JWT, read without verifying it (the server verifies);
/// used only to notice that the signed-in user changed.
enum TokenSubject {
    static func of(_ token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        struct Claims: Decodable { var sub: String? }
        guard let data = Data(base64Encoded: base64), let claims = try? JSONDecoder().decode(Claims.self, from: data) else { return nil }
        return claims.sub
    }
}

import FuzzSupport

/// libFuzzer target: the JWT verifier the checkout runs on every bearer
/// token (structure, algorithm, signature, claims). See ``JWTFuzzing`` and
/// scripts/fuzz.sh.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWT(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    JWTFuzzing.check(FuzzEntry.bytes(data, size))
    return 0
}

@main struct FuzzJWTMain {
    static func main() { FuzzEntry.run(fuzzJWT) }
}

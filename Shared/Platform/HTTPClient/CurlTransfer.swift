import Timing
internal import CCurl
import Foundation

/// One request in flight: an easy handle plus the buffers libcurl reads from and
/// writes into. Created, driven and freed on the engine thread only, so its
/// mutable state needs no lock.
final class CurlTransfer {
    let id: UInt64
    let easy: UnsafeMutableRawPointer
    let continuation: CheckedContinuation<HTTPClientResponse, any Error>
    private let bodyLimit: Int
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// libcurl reads the request body from here (CURLOPT_POSTFIELDS does not copy),
    /// so it must stay put until the transfer ends.
    private var requestBody: UnsafeMutableBufferPointer<UInt8>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private(set) var responseBody: [UInt8] = []
    private(set) var responseHeaders = HTTPHeaders()
    private(set) var bodyLimitExceeded = false

    /// Creates the easy handle and applies every option.
    /// - Throws: `HTTPClientError` when the request cannot be expressed (bad URL, header or option).
    init(
        id: UInt64,
        request: HTTPClientRequest,
        configuration: HTTPClientConfiguration,
        continuation: CheckedContinuation<HTTPClientResponse, any Error>
    ) throws(HTTPClientError) {
        guard let easy = curl_easy_init() else {
            throw .transport(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "curl_easy_init failed")
        }
        self.id = id
        self.easy = easy
        self.continuation = continuation
        self.bodyLimit = configuration.maxResponseBodySize
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        try configure(request, configuration)
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        requestBody?.deallocate()
        errorBuffer.deallocate()
    }

    // MARK: - Options

    private func configure(_ request: HTTPClientRequest, _ configuration: HTTPClientConfiguration) throws(HTTPClientError) {
        let lowered = request.url.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), !request.url.utf8.contains(0) else {
            throw .invalidURL
        }
        guard request.body.count <= configuration.maxRequestBodySize else {
            throw .transport(code: Int(CURLE_FILESIZE_EXCEEDED.rawValue), message: "request body exceeds \(configuration.maxRequestBodySize) bytes")
        }
        let context = Unmanaged.passUnretained(self).toOpaque()

        try set(CURLOPT_URL, request.url, invalid: .invalidURL)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_PRIVATE, pointer: context)
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        try set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.connectTimeout ?? configuration.connectTimeout))
        try set(CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout ?? configuration.timeout))
        try check(sf_curl_easy_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maxResponseBodySize)))
        try set(CURLOPT_TCP_KEEPALIVE, 1)
        if configuration.followRedirects {
            try set(CURLOPT_FOLLOWLOCATION, 1)
            try set(CURLOPT_MAXREDIRS, 5)
            try set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        }

        try check(sf_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context))
        try check(
            sf_curl_easy_setopt_callback(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                guard let context else { return 0 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                return transfer.receiveBody(data, size * count)
            })
        try check(sf_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context))
        try check(
            sf_curl_easy_setopt_callback(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
                guard let context else { return 0 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                transfer.receiveHeaderLine(data, size * count)
                return size * count
            })

        try setMethodAndBody(request)
        try setHeaders(request.headers, userAgent: configuration.userAgent)
    }

    private func setMethodAndBody(_ request: HTTPClientRequest) throws(HTTPClientError) {
        switch request.method {
        case .get where request.body.isEmpty:
            try set(CURLOPT_HTTPGET, 1)
            return
        case .head:
            try set(CURLOPT_NOBODY, 1)
            return
        default:
            break
        }
        guard request.method.rawValue.utf8.allSatisfy(Self.isTokenByte), !request.method.rawValue.isEmpty else {
            throw .transport(code: Int(CURLE_BAD_FUNCTION_ARGUMENT.rawValue), message: "invalid method")
        }
        if request.method != .post {
            try set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
        }
        // POSTFIELDS with an explicit size also covers PUT/PATCH/DELETE (with
        // CUSTOMREQUEST naming the method) and sends `Content-Length: 0` for an
        // empty body, which some servers require on POST.
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(request.body.count, 1))
        _ = buffer.initialize(from: request.body)
        requestBody = buffer
        try check(sf_curl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)))
        try set(CURLOPT_POSTFIELDS, pointer: UnsafeMutableRawPointer(buffer.baseAddress!))
    }

    private func setHeaders(_ headers: HTTPHeaders, userAgent: String) throws(HTTPClientError) {
        var list: UnsafeMutablePointer<curl_slist>?
        func append(_ line: String) {
            list = curl_slist_append(list, line)
        }
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else { throw .invalidHeader(name: "(malformed name)") }
            // CR, LF or NUL in a value would let a caller inject headers or split the request.
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw .invalidHeader(name: name)
            }
            // curl drops "Name:" (empty value); "Name;" is its syntax for sending one.
            append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        // curl would otherwise wait for `100 Continue` before sending larger bodies.
        if !headers.contains("Expect") { append("Expect:") }
        if !headers.contains("User-Agent") { try set(CURLOPT_USERAGENT, userAgent) }
        headerList = list
        try check(sf_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list))
    }

    // MARK: - Callbacks (called by libcurl on the engine thread)

    private func receiveBody(_ data: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard count > 0, let data else { return count }
        guard responseBody.count + count <= bodyLimit else {
            bodyLimitExceeded = true
            return 0 // makes libcurl abort the transfer with CURLE_WRITE_ERROR
        }
        responseBody.append(contentsOf: UnsafeRawBufferPointer(start: data, count: count))
        return count
    }

    private func receiveHeaderLine(_ data: UnsafeMutablePointer<CChar>?, _ count: Int) {
        guard let data, count > 0 else { return }
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            // A new status line (after `100 Continue` or a redirect): keep only the last response's headers.
            responseHeaders = HTTPHeaders()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = String(line[..<colon])
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        responseHeaders.add(name: name, value: value)
    }

    // MARK: - Completion

    /// Turns libcurl's result into the response or error to hand back.
    func outcome(_ code: CURLcode) -> Result<HTTPClientResponse, HTTPClientError> {
        guard code == CURLE_OK else { return .failure(error(for: code)) }
        var status = 0
        _ = sf_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPClientResponse(status: status, headers: responseHeaders, body: responseBody))
    }

    private func error(for code: CURLcode) -> HTTPClientError {
        let detail = String(cString: errorBuffer)
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .timeout
        case CURLE_COULDNT_CONNECT: return .connectionRefused
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .dns
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: return .invalidURL
        case CURLE_FILESIZE_EXCEEDED: return .bodyTooLarge(limit: bodyLimit)
        case CURLE_WRITE_ERROR where bodyLimitExceeded: return .bodyTooLarge(limit: bodyLimit)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE,
            CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
            CURLE_SSL_CLIENTCERT:
            return .tls(message)
        default:
            return .transport(code: Int(code.rawValue), message: message)
        }
    }

    // MARK: - Helpers

    private func set(_ option: CURLoption, _ value: Int) throws(HTTPClientError) {
        try check(sf_curl_easy_setopt_long(easy, option, value))
    }

    private func set(_ option: CURLoption, _ value: String, invalid: HTTPClientError? = nil) throws(HTTPClientError) {
        // libcurl copies string options (since 7.17), so a temporary C string is enough.
        let code = value.withCString { sf_curl_easy_setopt_string(easy, option, $0) }
        if code != CURLE_OK, let invalid { throw invalid }
        try check(code)
    }

    private func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer) throws(HTTPClientError) {
        try check(sf_curl_easy_setopt_pointer(easy, option, pointer))
    }

    private func check(_ code: CURLcode) throws(HTTPClientError) {
        guard code == CURLE_OK else {
            throw .transport(code: Int(code.rawValue), message: String(cString: curl_easy_strerror(code)))
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        max(1, Int(duration.inSeconds * 1000))
    }

    /// RFC 9110 `tchar`: the bytes allowed in a method or header name.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

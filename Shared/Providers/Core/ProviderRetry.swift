import HTTPClient

/// Retry settings shared by the provider clients.
public enum ProviderRetry {
    /// 3 attempts, 200 ms base backoff, `Retry-After` honoured up to 30 s;
    /// 429 and every 5xx are retryable (the HTTP client's default leaves out 500).
    public static let defaultPolicy = RetryPolicy(retryableStatuses: [429, 500, 502, 503, 504])
}

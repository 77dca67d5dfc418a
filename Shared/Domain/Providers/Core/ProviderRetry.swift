import HTTPClient

/// Retry settings shared by the provider clients.
public enum ProviderRetry {
    /// 3 attempts, 200 ms base backoff, `Retry-After` honoured up to 30 s;
    /// 429 and every 5xx are retryable (the HTTP client's default leaves out 500).
    public static let defaultPolicy = RetryPolicy(retryableStatuses: [429, 500, 502, 503, 504])

    /// For background work that no user waits on (the reconciler): 4 attempts,
    /// 500 ms base backoff capped at 10 s, and `Retry-After` honoured up to
    /// 60 s (a rate-limit window), the same statuses as ``defaultPolicy``.
    public static let backgroundPolicy = RetryPolicy(
        maxAttempts: 4, baseDelay: .milliseconds(500), maxDelay: .seconds(10), maxRetryAfter: .seconds(60),
        retryableStatuses: defaultPolicy.retryableStatuses)
}

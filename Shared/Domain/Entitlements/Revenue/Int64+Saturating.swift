extension Int64 {
    /// `self + other`, held at `Int64.max` or `Int64.min` instead of trapping.
    ///
    /// Revenue figures add amounts that come from providers' payloads: a plan
    /// priced absurdly high (a test plan, a currency with huge minor units, a
    /// mistake) must show as an absurd figure, never stop the reconciler or a
    /// report with an overflow trap.
    public func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    /// `self - other`, held at `Int64.max` or `Int64.min` instead of trapping.
    public func subtractingSaturating(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other < 0 ? .max : .min
    }

    /// `value` rounded toward zero into the range, `Int64.max`/`Int64.min` beyond it, 0 for NaN.
    public static func saturating(_ value: Double) -> Int64 {
        // 2^63 is exactly representable; Int64.max is not (it rounds up to 2^63).
        let limit = 9_223_372_036_854_775_808.0
        if value.isNaN { return 0 }
        if value >= limit { return .max }
        if value < -limit { return .min }
        return Int64(value)
    }
}

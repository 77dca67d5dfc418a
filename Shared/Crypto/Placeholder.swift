enum CryptoPlaceholder {}

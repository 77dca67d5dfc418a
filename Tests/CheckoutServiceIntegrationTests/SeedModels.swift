@testable import SeedModels

// The seed tutorials' iOS models, from the one shared copy: every answer must decode with them.
typealias CheckoutResponse = SeedLemonSqueezy.CheckoutResponse
typealias SubscriptionStatus = SeedPaystack.SubscriptionStatus

import BillingModel
import JSONCodec
import ProviderConfiguration
import Providers

/// TestPay has no API here: no client, nothing to sweep, nothing to fetch.
extension TestPayProvider: APIProviding {
    func makeClient(_ configuration: any ProviderConfigurationValue, options: ProviderClientOptions) -> (any ProviderClient)? { nil }

    var sweptEntities: [ProviderSnapshot.Entity] { [] }

    func listed(_ entity: ProviderSnapshot.Entity, item: JSONValue) -> ListedObject? { nil }

    func singleObjectBody(_ entity: ProviderSnapshot.Entity, item raw: [UInt8]) -> [UInt8] { raw }

    func customerID(inFetched body: [UInt8]) -> String? { nil }

    func fetchTargets(for event: BillingEvent) -> [(entity: ProviderSnapshot.Entity, id: String)] { [] }
}

/// A DRM card's number and one of its connectors' ids: what ties a CEC adapter to a screen.
public struct DRMConnectorRef: Equatable, Sendable, CustomStringConvertible {
    public var card: Int
    public var connectorID: UInt32

    public init(card: Int, connectorID: UInt32) {
        self.card = card
        self.connectorID = connectorID
    }

    public var description: String { "card\(card) connector \(connectorID)" }
}

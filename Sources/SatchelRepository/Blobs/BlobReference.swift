import Foundation

/// A blob in the ``BlobStore``: named by the SHA-256 of its bytes.
public struct BlobReference: Sendable, Hashable {
    /// Lower-case hex SHA-256.
    public var hash: String
    public var length: Int64

    public init(hash: String, length: Int64) {
        self.hash = hash
        self.length = length
    }
}

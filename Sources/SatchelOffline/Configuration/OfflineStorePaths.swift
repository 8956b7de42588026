public import Foundation
import SatchelOData

extension OfflineStore.Configuration {
    /// The file of `user`'s store named `store` under `folder`: `folder/store.users/<user>.store`, one file per user
    /// so that two people on one device never share rows, queue or key.
    ///
    /// The user name is percent-encoded (every byte but lower-case ASCII letters, digits, `-` and `_`), so any name
    /// maps to one file directly in that folder: `../admin` or `a/b` cannot reach another user's store or leave the
    /// folder, and two names never share a file, even on a file system that ignores case (`Alice` is `%41lice`). An
    /// empty user or store name throws ``OfflineStoreError/Code/invalidConfiguration``.
    ///
    /// ```swift
    /// let path = try OfflineStore.Configuration.path(forUser: "alice", store: "shop", in: appSupport)
    /// ```
    public static func path(forUser user: String, store: String, in folder: URL) throws(OfflineStoreError) -> String {
        guard !user.isEmpty, !store.isEmpty else {
            throw OfflineStoreError(.invalidConfiguration, "a per-user store needs a user name and a store name")
        }
        return
            folder.appendingPathComponent(encoded(store) + ".users", isDirectory: true)
            .appendingPathComponent(encoded(user) + ".store").path
    }

    /// Every byte of `name` but lower-case ASCII letters, digits, `-` and `_` as `%XX`.
    static func encoded(_ name: String) -> String {
        var result = ""
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"),
                UInt8(ascii: "_"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += String(format: "%%%02X", byte)
            }
        }
        return result
    }
}

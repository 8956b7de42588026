#if canImport(Security)
    public import Foundation
    import Security

    /// Store keys in the Keychain (Apple platforms): one generic-password item per key, under `service` and the key's
    /// name, readable after the device's first unlock and never leaving it (not synced, not in backups restored
    /// elsewhere), in the data-protection keychain and, with `accessGroup`, shared with the app's extensions.
    public struct KeychainKeyStore: StoreKeyStore {
        /// The items' service attribute.
        public var service: String
        /// The keychain access group shared with extensions; nil for the app's own.
        public var accessGroup: String?

        /// Keys under `service`, in `accessGroup` when given.
        public init(service: String = "Satchel store keys", accessGroup: String? = nil) {
            self.service = service
            self.accessGroup = accessGroup
        }

        private func query(_ name: String) -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: name,
                kSecUseDataProtectionKeychain as String: true,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        private func failure(_ status: OSStatus, _ action: String, _ name: String) -> StoreError {
            let message = SecCopyErrorMessageString(status, nil).map { $0 as String } ?? "OSStatus \(status)"
            return StoreError(.io, path: "keychain:\(service)/\(name)", detail: "\(action) failed: \(message)")
        }

        public func key(named name: String) async throws -> StoreKey? {
            var query = query(name)
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &item)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = item as? Data else { throw failure(status, "reading", name) }
            return try StoreKey.raw(data)
        }

        public func save(_ key: StoreKey, named name: String) async throws {
            let bytes = try key.rawBytesForKeeping(path: "keychain:\(service)/\(name)")
            let status = SecItemUpdate(
                query(name) as CFDictionary, [kSecValueData as String: Data(bytes)] as CFDictionary)
            if status == errSecSuccess { return }
            guard status == errSecItemNotFound else { throw failure(status, "updating", name) }
            var item = query(name)
            item[kSecValueData as String] = Data(bytes)
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            let added = SecItemAdd(item as CFDictionary, nil)
            guard added == errSecSuccess else { throw failure(added, "adding", name) }
        }

        public func removeKey(named name: String) async throws {
            let status = SecItemDelete(query(name) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw failure(status, "removing", name)
            }
        }
    }
#endif

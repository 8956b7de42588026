import Foundation
import SatchelCMISCore

/// The parameters of a Browser binding request: query string and form fields (form fields win), with typed
/// accessors and the indexed families (`propertyId[0]`, `propertyValue[0][1]`, `addACEPrincipal[0]` …).
struct BrowserParameters: CMISRequestParameters {
    private(set) var values: [String: String] = [:]
    /// `name[i]` and `name[i][j]` entries: family name → index → (value of `name[i]`, values of `name[i][j]`).
    private(set) var indexed: [String: [Int: IndexedEntry]] = [:]

    struct IndexedEntry {
        var value: String?
        var values: [Int: String] = [:]
    }

    init(_ pairs: [(String, String)] = []) {
        add(pairs)
    }

    /// Adds pairs; a later value replaces an earlier one with the same name.
    mutating func add(_ pairs: [(String, String)]) {
        for (name, value) in pairs {
            if let (family, first, second) = Self.splitIndexed(name) {
                var entries = indexed[family, default: [:]]
                var entry = entries[first, default: IndexedEntry()]
                if let second { entry.values[second] = value } else { entry.value = value }
                entries[first] = entry
                indexed[family] = entries
            } else {
                values[name] = value
            }
        }
    }

    /// `name[1]` → ("name", 1, nil); `name[1][2]` → ("name", 1, 2).
    static func splitIndexed(_ name: String) -> (String, Int, Int?)? {
        guard name.hasSuffix("]"), let open = name.firstIndex(of: "[") else { return nil }
        let family = String(name[..<open])
        let rest = name[open...]
        let pieces = rest.dropFirst().dropLast().components(separatedBy: "][")
        guard !family.isEmpty, (1...2).contains(pieces.count), let first = Int(pieces[0]), first >= 0 else {
            return nil
        }
        if pieces.count == 2 {
            guard let second = Int(pieces[1]), second >= 0 else { return nil }
            return (family, first, second)
        }
        return (family, first, nil)
    }

    subscript(name: String) -> String? {
        if let value = values[name] { return value }
        // Parameter names are case-insensitive in the Browser binding; the exact spelling is the common case.
        let lowered = name.lowercased()
        return values.first { $0.key.lowercased() == lowered }?.value
    }

    func string(_ name: String) -> String? {
        guard let value = self[name], !value.isEmpty else { return nil }
        return value
    }

    /// The values of a `name[i]` family in index order.
    func list(_ family: String) -> [String] {
        (indexed[family] ?? [:]).sorted { $0.key < $1.key }.compactMap(\.value.value)
    }

    /// `name[i]` entries with their `name[i][j]` values, in index order.
    func entries(_ family: String) -> [(index: Int, entry: IndexedEntry)] {
        (indexed[family] ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The single value of property `id` (`propertyId[i]` = id, `propertyValue[i]`).
    func propertyValue(_ id: String) -> String? {
        guard let index = indexed["propertyId"]?.first(where: { $0.value.value == id })?.key else { return nil }
        return indexed["propertyValue"]?[index]?.value
    }

    var succinct: Bool { (try? bool("succinct", default: false)) ?? false }

    /// The ACEs of `addACEPrincipal[n]` / `addACEPermission[n][m]` (prefix `add`) or the `remove` ones.
    func aces(_ prefix: String) -> [ACE] {
        let principals = indexed["\(prefix)ACEPrincipal"] ?? [:]
        let permissions = indexed["\(prefix)ACEPermission"] ?? [:]
        return principals.sorted { $0.key < $1.key }.compactMap { index, entry in
            guard let principal = entry.value, !principal.isEmpty else { return nil }
            let granted = (permissions[index]?.values ?? [:]).sorted { $0.key < $1.key }.map(\.value)
            return ACE(principalId: principal, permissions: granted)
        }
    }
}

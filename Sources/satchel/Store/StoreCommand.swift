import ArgumentParser
import Foundation
import SatchelJSON
import SatchelStore

/// `satchel store`: inspect and maintain encrypted local stores (SatchelStore) from the shell.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Inspect, check, re-key, encrypt or export an encrypted local store.",
        discussion: """
            A store is an SQLite database encrypted page by page (AES-256-GCM; docs/store-format.md). Keys are never \
            accepted as argument values: give a passphrase in SATCHEL_STORE_PASSPHRASE or on standard input \
            (--passphrase-stdin), or a raw 256-bit key as 64 hex digits in SATCHEL_STORE_KEY or on standard input \
            (--key-stdin). For rekey, the new passphrase or key comes from SATCHEL_STORE_NEW_PASSPHRASE or \
            SATCHEL_STORE_NEW_KEY, or from the next line of standard input.

            Examples:
              satchel store info app.store
              SATCHEL_STORE_PASSPHRASE=… satchel store check app.store
              printf '%s\\n%s\\n' "$OLD" "$NEW" | satchel store rekey --passphrase-stdin app.store
              satchel store export --passphrase-stdin app.store plain.sqlite < passphrase.txt
            """,
        subcommands: [
            StoreInfoCommand.self, StoreCheckCommand.self, StoreRekeyCommand.self, StoreEncryptCommand.self,
            StoreExportCommand.self,
        ]
    )
}

/// Where the key comes from.
struct StoreKeyOptions: ParsableArguments {
    @Flag(help: "Read the passphrase from the first line of standard input.")
    var passphraseStdin = false

    @Flag(help: "Read a raw key (64 hex digits) from the first line of standard input.")
    var keyStdin = false

    func validate() throws {
        if passphraseStdin && keyStdin { throw ValidationError("use --passphrase-stdin or --key-stdin, not both") }
    }

    /// The key: from standard input when asked, else from the environment; nil when none is given.
    func key() throws -> StoreKey? {
        try Self.key(prefix: "SATCHEL_STORE_", passphraseStdin: passphraseStdin, keyStdin: keyStdin)
    }

    /// The key from standard input when asked, else from the environment; nil when none is given.
    static func key(prefix: String = "SATCHEL_STORE_", passphraseStdin: Bool, keyStdin: Bool) throws -> StoreKey? {
        let environment = ProcessInfo.processInfo.environment
        if passphraseStdin || keyStdin {
            guard let line = Terminal.readLine(), !line.isEmpty else {
                throw CLIError(.usage, "no key on standard input")
            }
            return keyStdin ? try Self.raw(line) : .passphrase(line)
        }
        if let passphrase = environment[prefix + "PASSPHRASE"], !passphrase.isEmpty { return .passphrase(passphrase) }
        if let hex = environment[prefix + "KEY"], !hex.isEmpty { return try Self.raw(hex) }
        return nil
    }

    static func raw(_ hex: String) throws -> StoreKey {
        let digits = Array(hex.trimmingCharacters(in: .whitespaces).utf8)
        guard digits.count == 64 else { throw CLIError(.usage, "a raw key has 64 hex digits") }
        var bytes = [UInt8]()
        for i in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else {
                throw CLIError(.usage, "a raw key has 64 hex digits")
            }
            bytes.append(byte)
        }
        return try StoreKey.raw(bytes)
    }

    func required() throws -> StoreKey {
        guard let key = try key() else {
            throw CLIError(
                .usage, "no key: set SATCHEL_STORE_PASSPHRASE or SATCHEL_STORE_KEY, or use --passphrase-stdin")
        }
        return key
    }
}

/// Runs a store command, reporting a failure as one line and its exit code.
func runStoreCommand(_ work: () throws -> Void) throws {
    do {
        try work()
    } catch {
        let code = ErrorReport.report(error, verbose: false)
        throw ExitCode(code.rawValue)
    }
}

struct StoreInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", abstract: "Print a store's format version, key derivation and size (no key needed).")

    @Argument(help: "The store's path.")
    var path: String

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        try runStoreCommand {
            let info = try StoreFile(path: path).info()
            let keyName = info.keyDerivation.map { $0 == .raw ? "raw 256-bit key" : "passphrase (PBKDF2-HMAC-SHA256)" }
            let fields: [(name: String, value: JSONValue)] = [
                ("path", .string(path)),
                ("encrypted", .bool(info.isEncrypted)),
                ("format_version", info.formatVersion.map { .number(JSONNumber($0)) } ?? .null),
                ("key", keyName.map { .string($0) } ?? .null),
                ("iterations", info.iterations.map { .number(JSONNumber($0)) } ?? .null),
                ("page_size", .number(JSONNumber(info.pageSize))),
                ("pages", .number(JSONNumber(info.pageCount))),
                ("wal_bytes", .number(JSONNumber(info.walBytes))),
            ]
            if json {
                print(JSONValue.object(JSONObject(fields.map { (key: $0.name, value: $0.value) })).serializedString())
            } else {
                for (name, value) in fields {
                    let text: String =
                        switch value {
                        case .null: "-"
                        case .bool(let flag): flag ? "yes" : "no"
                        case .string(let string): string
                        default: value.serializedString()
                        }
                    print("\(name.replacingOccurrences(of: "_", with: " ")): \(text)")
                }
            }
        }
    }
}

struct StoreCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Authenticate every page and WAL frame, then run SQLite's integrity check.",
        discussion: "Exits 0 when the store is sound, 7 when a page is damaged or the integrity check finds a problem.")

    @OptionGroup var key: StoreKeyOptions

    @Argument(help: "The store's path.")
    var path: String

    func run() throws {
        try runStoreCommand {
            let report = try StoreFile(path: path).check(key: try key.key())
            print("pages: \(report.pages)")
            print("wal frames: \(report.walFrames)")
            for line in report.integrity { print("integrity: \(line)") }
            guard report.isSound else { throw CLIError(.invalidResponse, "the integrity check found problems") }
        }
    }
}

struct StoreRekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Re-encrypt a store under a new passphrase or key.",
        discussion: """
            The current key as for every store command; the new one from SATCHEL_STORE_NEW_PASSPHRASE or \
            SATCHEL_STORE_NEW_KEY, or from the next line of standard input (a passphrase, or with --new-key-stdin \
            64 hex digits). Nothing else may have the store open.
            """)

    @OptionGroup var key: StoreKeyOptions

    @Flag(help: "The new key on standard input is a raw key (64 hex digits), not a passphrase.")
    var newKeyStdin = false

    @Argument(help: "The store's path.")
    var path: String

    func run() throws {
        try runStoreCommand {
            let old = try key.required()
            let fromEnvironment = try StoreKeyOptions.key(
                prefix: "SATCHEL_STORE_NEW_", passphraseStdin: false, keyStdin: false)
            let new: StoreKey
            if let fromEnvironment {
                new = fromEnvironment
            } else {
                guard let line = Terminal.readLine(), !line.isEmpty else {
                    throw CLIError(.usage, "no new key: set SATCHEL_STORE_NEW_PASSPHRASE or give it on standard input")
                }
                new = newKeyStdin ? try StoreKeyOptions.raw(line) : .passphrase(line)
            }
            try StoreFile(path: path).changeKey(from: old, to: new)
            print("re-keyed \(path)")
        }
    }
}

struct StoreEncryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encrypt",
        abstract: "Encrypt a plaintext SQLite database in place (its pages must be 4,096 bytes).")

    @OptionGroup var key: StoreKeyOptions

    @Argument(help: "The database's path.")
    var path: String

    func run() throws {
        try runStoreCommand {
            try StoreFile(path: path).encrypt(with: try key.required())
            print("encrypted \(path)")
        }
    }
}

struct StoreExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write a plaintext SQLite copy of a store (for support cases).")

    @OptionGroup var key: StoreKeyOptions

    @Argument(help: "The store's path.")
    var path: String

    @Argument(help: "Where to write the plaintext copy (a new file, owner-only).")
    var destination: String

    func run() throws {
        try runStoreCommand {
            try StoreFile(path: path).export(key: try key.required(), to: destination)
            print("exported \(path) to \(destination)")
        }
    }
}

public import Foundation

/// Makes inputs for a run without libFuzzer (`satchel-fuzz smoke`, the test command's fuzzing phase): each input is
/// a seed changed in one to four ways, as libFuzzer's own mutators do it, but without coverage to guide them.
/// Deterministic for a given `seed`, so a run is repeated exactly.
///
/// ```swift
/// var mutator = FuzzMutator(seed: 1, dictionary: ["SELECT", "'"].map { Array($0.utf8) })
/// let input = mutator.mutate(Array("SELECT * FROM cmis:document".utf8), other: [], maximumLength: 4096)
/// ```
public struct FuzzMutator: Sendable {
    /// Tokens of the target's grammar, inserted or written over the input.
    public let dictionary: [[UInt8]]
    private var state: UInt64

    public init(seed: UInt64, dictionary: [[UInt8]] = []) {
        self.state = seed
        self.dictionary = dictionary
    }

    /// SplitMix64.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A number in `0..<bound` (`bound` > 0).
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// `input` changed one to four times; `other` (another seed) is what a splice takes from. At most
    /// `maximumLength` bytes.
    public mutating func mutate(_ input: [UInt8], other: [UInt8], maximumLength: Int) -> [UInt8] {
        var bytes = input
        for _ in 0...below(4) { change(&bytes, other: other) }
        return bytes.count > maximumLength ? Array(bytes.prefix(maximumLength)) : bytes
    }

    private mutating func change(_ bytes: inout [UInt8], other: [UInt8]) {
        let position = below(bytes.count + 1)
        switch below(dictionary.isEmpty ? 8 : 10) {
        case 0 where !bytes.isEmpty:  // flip a bit
            bytes[position % bytes.count] ^= UInt8(1 << below(8))
        case 1 where !bytes.isEmpty:  // a byte, often one that means something to parsers
            let interesting: [UInt8] = [
                0, 0x0A, 0x0D, 0x20, 0x22, 0x27, 0x2C, 0x3C, 0x3E, 0x5C, 0x7B, 0x7F, 0x80, 0xFF,
            ]
            bytes[position % bytes.count] =
                below(2) == 0 ? interesting[below(interesting.count)] : UInt8(truncatingIfNeeded: next())
        case 2:  // insert random bytes
            bytes.insert(contentsOf: (0..<1 + below(8)).map { _ in UInt8(truncatingIfNeeded: next()) }, at: position)
        case 3 where !bytes.isEmpty:  // erase a range
            let start = position % bytes.count
            bytes.removeSubrange(start..<min(bytes.count, start + 1 + below(16)))
        case 4 where !bytes.isEmpty:  // repeat a range (deep nesting, long runs)
            let start = position % bytes.count
            let range = start..<min(bytes.count, start + 1 + below(8))
            let copies = Array(repeating: Array(bytes[range]), count: 1 + below(64)).flatMap { $0 }
            bytes.insert(contentsOf: copies, at: range.upperBound)
        case 5:  // cut short
            bytes.removeSubrange(position..<bytes.count)
        case 6 where !other.isEmpty:  // splice another seed in
            let start = below(other.count)
            bytes.insert(contentsOf: other[start..<min(other.count, start + 1 + below(64))], at: position)
        case 7:  // insert a number at an edge (overflow, negative zero, leading zeros)
            let numbers: [String] = ["0", "-1", "4294967296", "9223372036854775808", "1e400", "-0", "00"]
            bytes.insert(contentsOf: Array(numbers[below(numbers.count)].utf8), at: position)
        case 8:  // insert a token
            bytes.insert(contentsOf: dictionary[below(dictionary.count)], at: position)
        case 9:  // write a token over what is there
            let token = dictionary[below(dictionary.count)]
            let end = min(bytes.count, position + token.count)
            bytes.replaceSubrange(position..<end, with: token)
        default:
            bytes.insert(UInt8(truncatingIfNeeded: next()), at: position)
        }
    }

    /// The tokens of a libFuzzer dictionary file: one quoted string per line (`"…"` or `name="…"`), with `\\`, `\"`
    /// and `\xNN` escapes; `#` starts a comment.
    public static func dictionary(contentsOf file: URL) -> [[UInt8]] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        var tokens: [[UInt8]] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let line = Array(line.utf8)
            guard let open = line.firstIndex(of: 0x22), line.first != 0x23, let close = line.lastIndex(of: 0x22),
                close > open
            else { continue }
            var token: [UInt8] = []
            var index = open + 1
            while index < close {
                if line[index] == 0x5C, index + 1 < close {
                    if line[index + 1] == 0x78, index + 3 < close,
                        let byte = UInt8(String(decoding: line[index + 2...index + 3], as: UTF8.self), radix: 16)
                    {
                        token.append(byte)
                        index += 4
                    } else {
                        token.append(line[index + 1])
                        index += 2
                    }
                } else {
                    token.append(line[index])
                    index += 1
                }
            }
            if !token.isEmpty { tokens.append(token) }
        }
        return tokens
    }
}

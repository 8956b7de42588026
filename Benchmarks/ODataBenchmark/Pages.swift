import Foundation

/// Deterministic OData V4 pages of `Bench.Product`: the entity arrays are generated once; each response is
/// `head + entities + tail`, the tail carrying the next link for the page number asked for, so 400 pages reuse
/// the 100 generated arrays.
struct Pages: Sendable {
    /// `"value":[…]` contents, without brackets, one per distinct page.
    let entityBlocks: [[UInt8]]
    let pageSize: Int

    /// SplitMix64: identical bytes on every run.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func next(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    static let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett"]
    static let descriptions = [
        #"A \"quoted\" item\nwith two lines"#, "Grüße aus Köln", "plain ascii description of the product",
        #"caf\u00e9 na\u00efve"#, "日本語のテキスト", "tab\\tand backslash",
    ]

    init(distinctPages: Int, pageSize: Int) {
        self.pageSize = pageSize
        var random = Random(state: 42)
        var blocks: [[UInt8]] = []
        for page in 0..<distinctPages {
            var text = ""
            text.reserveCapacity(pageSize * 400)
            for index in 0..<pageSize {
                let id = page * pageSize + index
                if index > 0 { text += "," }
                let word = Self.words[random.next(Self.words.count)]
                let description = Self.descriptions[random.next(Self.descriptions.count)]
                let price = "\(random.next(100_000)).\(String(format: "%02d", random.next(100)))"
                let quantity = Int64(random.next(1 << 40))
                let month = 1 + random.next(12)
                let day = 1 + random.next(28)
                let release = String(format: "20%02d-%02d-%02d", 10 + random.next(15), month, day)
                let modified = String(
                    format: "2025-%02d-%02dT%02d:%02d:%02dZ", month, day, random.next(24), random.next(60),
                    random.next(60))
                let guid = String(
                    format: "%08x-%04x-4%03x-a%03x-%012llx", UInt32(truncatingIfNeeded: random.next()),
                    random.next(0x10000), random.next(0x1000), random.next(0x1000),
                    random.next() & 0xFFFF_FFFF_FFFF)
                let discontinued =
                    random.next(4) == 0
                    ? "\"2026-\(String(format: "%02d-%02dT12:00:00.5+02:00", month, day))\"" : "null"
                text += #"{"ID":\#(id),"Name":"Product \#(id) \#(word)","Description":"\#(description)","#
                text += #""Price":\#(price),"Quantity":\#(quantity),"InStock":\#(random.next(2) == 0),"#
                text += #""ReleaseDate":"\#(release)","ModifiedAt":"\#(modified)","ProductGuid":"\#(guid)","#
                text += #""Discontinued":\#(discontinued)}"#
            }
            blocks.append(Array(text.utf8))
        }
        entityBlocks = blocks
    }

    static let head = Array(#"{"@odata.context":"$metadata#Products","value":["#.utf8)

    /// The body of page `number` of `count`, with a next link unless it is the last.
    func body(page number: Int, of count: Int, baseURL: String) -> [[UInt8]] {
        let tail =
            number + 1 < count
            ? #"],"@odata.nextLink":"\#(baseURL)/Products?$skiptoken=\#(number + 1)"}"#
            : "]}"
        return [Self.head, entityBlocks[number % entityBlocks.count], Array(tail.utf8)]
    }
}

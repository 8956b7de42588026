import Foundation

/// Deterministic OData V4 pages: `{"@odata.context", "value": [entities], "@odata.nextLink"}`.
enum Pages {
    /// A small deterministic generator (SplitMix64), so every run and Python read identical bytes.
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
    static let fancy = [
        #"Line \"one\"\nline two"#, #"caf\u00e9 na\u00efve \u00fcber"#, "Grüße aus Köln", #"tab\tand \\ backslash"#,
        #"emoji \ud83d\ude00 pair"#, "日本語のテキスト", "plain ascii text here",
    ]

    /// `count` entities in pages of `pageSize`; entity ids are global.
    static func generate(entities count: Int, pageSize: Int) -> [[UInt8]] {
        var random = Random(state: 42)
        var pages: [[UInt8]] = []
        var id = 0
        while id < count {
            let end = min(count, id + pageSize)
            var text = #"{"@odata.context":"https://example.com/odata/$metadata#Products","value":["#
            text.reserveCapacity(pageSize * 400)
            for entity in id..<end {
                if entity > id { text += "," }
                let price = "\(random.next(100_000)).\(String(format: "%02d", random.next(100)))"
                let rating = Double(random.next(1_000_000)) / 7919.0
                let day = 1 + random.next(28)
                let month = 1 + random.next(12)
                let hour = random.next(24)
                let discontinued =
                    random.next(3) == 0
                    ? #""2025-\#(String(format: "%02d", month))-\#(String(format: "%02d", day))T08:15:00Z""# : "null"
                text += #"{"ID":\#(entity),"Name":"Product \#(entity) \#(words[random.next(words.count)])","#
                text += #""Description":"\#(fancy[random.next(fancy.count)]) \#(words[random.next(words.count)])","#
                text += #""Price":\#(price),"Rating":\#(rating),"InStock":\#(random.next(2) == 0),"#
                text += #""Discontinued":\#(discontinued),"#
                text += #""ReleaseDate":"2024-\#(String(format: "%02d", month))-\#(String(format: "%02d", day))T"#
                text += #"\#(String(format: "%02d", hour)):30:00Z","Category":"\#(words[random.next(words.count)])","#
                text += #""Quantity":\#(Int(random.next(1 << 40)) - (1 << 39))}"#
            }
            text += #"],"@odata.nextLink":"https://example.com/odata/Products?$skiptoken=\#(end)"}"#
            pages.append(Array(text.utf8))
            id = end
        }
        return pages
    }
}

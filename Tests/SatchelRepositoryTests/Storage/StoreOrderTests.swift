import SatchelRepository
import Testing

/// The `ORDER BY` terms both SQL stores use for children.
@Suite struct StoreOrderTests {
    @Test func nameDecidesOtherwiseTheIdBreaksTies() {
        #expect(StoreOrder.childrenOrderTerms([]) == ["o.id"])
        #expect(StoreOrder.childrenOrderTerms([StoreOrder(.name)]) == ["f.name"])
        #expect(
            StoreOrder.childrenOrderTerms([StoreOrder(.createdAt, ascending: false), StoreOrder(.name)])
                == ["o.created_at DESC", "f.name"])
        #expect(
            StoreOrder.childrenOrderTerms([StoreOrder(.name), StoreOrder(.modifiedAt)]) == ["f.name"])
        #expect(
            StoreOrder.childrenOrderTerms([StoreOrder(.contentLength, ascending: false), StoreOrder(.typeId)])
                == ["COALESCE(o.content_length, -1) DESC", "o.type_id", "o.id"])
    }
}

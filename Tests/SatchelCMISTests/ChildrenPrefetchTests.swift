import Foundation
import Synchronization
import Testing

@testable import SatchelCMIS
import SatchelCMISCore

/// `ChildrenSequence` requesting pages ahead of iteration: the children still come once each and in order, a
/// short page corrects the offsets guessed ahead, nothing is asked past `numItems`, and stopping early cancels
/// the requests under way.
@Suite struct ChildrenPrefetchTests {
    /// A folder of `total` children named by their position; `shortAt` answers fewer than asked at that offset.
    final class Folder: Sendable {
        let total: Int
        let shortAt: Int?
        let requests = Mutex<[Int]>([])
        let cancelled = Mutex(0)
        let delay: Duration

        init(total: Int, shortAt: Int? = nil, delay: Duration = .zero) {
            self.total = total
            self.shortAt = shortAt
            self.delay = delay
        }

        func fetch(_ skipCount: Int, _ maxItems: Int) async throws -> ObjectInFolderList {
            requests.withLock { $0.append(skipCount) }
            do {
                try await Task.sleep(for: delay)
            } catch {
                cancelled.withLock { $0 += 1 }
                throw error
            }
            let count = skipCount == shortAt ? maxItems / 2 : maxItems
            let end = min(total, skipCount + count)
            let objects = (min(skipCount, end)..<end).map { index in
                ObjectInFolder(
                    object: CMISObject(
                        properties: Properties([CMISProperty(id: "cmis:objectId", type: .id, values: [.id("\(index)")])]
                        )))
            }
            return ObjectInFolderList(objects: objects, hasMoreItems: end < total, numItems: Int64(total))
        }
    }

    private func ids(_ sequence: ChildrenSequence) async throws -> [Int] {
        var ids: [Int] = []
        for try await child in sequence { ids.append(Int(child.object.id ?? "") ?? -1) }
        return ids
    }

    @Test(arguments: [0, 1, 2, 5])
    func everyChildOnceInOrder(prefetch: Int) async throws {
        let folder = Folder(total: 1050)
        let sequence = ChildrenSequence(pageSize: 100, prefetch: prefetch, fetch: folder.fetch)
        #expect(try await ids(sequence) == Array(0..<1050))
        // Eleven pages, each asked for once, none past the end.
        #expect(folder.requests.withLock { $0.sorted() } == Array(stride(from: 0, to: 1050, by: 100)))
    }

    @Test func aShortPageCorrectsTheOffsetsAskedAhead() async throws {
        let folder = Folder(total: 500, shortAt: 200)
        let sequence = ChildrenSequence(pageSize: 100, prefetch: 2, fetch: folder.fetch)
        #expect(try await ids(sequence) == Array(0..<500))
        let requests = folder.requests.withLock { $0 }
        // 300 and 400 were guessed before the short page; after it, 250, 350 and 450 are asked for.
        #expect(Set(requests).isSuperset(of: [0, 100, 200, 250, 350, 450]))
    }

    @Test func stoppingEarlyCancelsTheRequestsAhead() async throws {
        let folder = Folder(total: 10_000, delay: .milliseconds(300))
        do {
            var iterator = ChildrenSequence(pageSize: 100, prefetch: 3, fetch: folder.fetch).makeAsyncIterator()
            #expect(try await iterator.next()?.object.id == "0")
        }
        // The iterator is gone: the three requests started ahead end cancelled rather than running on.
        let deadline = ContinuousClock.now + .seconds(5)
        while folder.cancelled.withLock({ $0 }) < 3 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(folder.cancelled.withLock { $0 } == 3)
        #expect(folder.requests.withLock { $0.sorted() } == [0, 100, 200, 300])
    }
}

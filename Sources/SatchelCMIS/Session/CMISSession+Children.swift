import Foundation
public import SatchelCMISCore

extension CMISSession {
    /// A folder's children as a lazy sequence, fetched a page at a time as iteration goes; the next
    /// ``SessionParameters/prefetchPages`` pages are requested while the current one is read.
    ///
    /// ```swift
    /// for try await child in session.children(of: folderId) {
    ///     print(child.pathSegment ?? "", child.object.contentStreamLength ?? 0)
    /// }
    /// for try await page in session.children(of: folderId).pages { print(page.numItems ?? -1) }
    /// ```
    public func children(of folderId: String, context: OperationContext? = nil) -> ChildrenSequence {
        let context = context ?? parameters.operationContext
        let binding = binding
        let repositoryId = repositoryId
        return ChildrenSequence(pageSize: pageSize(context), prefetch: parameters.prefetchPages) {
            skipCount, maxItems in
            try await binding.children(
                repositoryId: repositoryId, folderId: folderId, context: context, maxItems: maxItems,
                skipCount: skipCount)
        }
    }

    /// One page of a folder's children: `maxItems` (the page size by default) from `skipCount`.
    public func childrenPage(
        of folderId: String, skipCount: Int = 0, maxItems: Int? = nil, context: OperationContext? = nil
    ) async throws -> ObjectInFolderList {
        let context = context ?? parameters.operationContext
        return try await binding.children(
            repositoryId: repositoryId, folderId: folderId, context: context,
            maxItems: maxItems ?? pageSize(context), skipCount: skipCount)
    }
}

/// A folder's children, fetched a page at a time while iterated. Iterating again starts over.
public typealias ChildrenSequence = PagedSequence<ObjectInFolderList>

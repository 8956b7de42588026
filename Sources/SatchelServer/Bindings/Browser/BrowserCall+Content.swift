import Foundation
import Hummingbird
import SatchelCMISCore
import SatchelRepository

extension BrowserCall {
    /// Streams a content stream (``ContentResponse``); `download=inline` asks to see it in place.
    func contentResponse(_ content: ContentOutput) async throws -> Response {
        let inline = parameters.string("download")?.lowercased() == "inline"
        return try await ContentResponse(content: content, inline: inline).response(to: request, context: context)
    }
}

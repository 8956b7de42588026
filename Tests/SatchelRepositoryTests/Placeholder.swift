import Testing

@testable import SatchelRepository

import Testing

@testable import SatchelServer

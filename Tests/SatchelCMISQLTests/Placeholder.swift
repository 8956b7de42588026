import Testing

@testable import SatchelCMISQL

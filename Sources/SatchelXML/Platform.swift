// The one place that knows where `XMLParser` lives: FoundationXML on Linux and Windows, Foundation on Apple
// platforms. The rest of the module uses these aliases.
#if canImport(FoundationXML)
    import FoundationXML
#else
    import Foundation
#endif

/// Foundation's SAX parser, whichever module provides it on this platform.
typealias FoundationXMLParser = XMLParser

/// Foundation's SAX delegate protocol, whichever module provides it on this platform.
typealias FoundationXMLParserDelegate = XMLParserDelegate

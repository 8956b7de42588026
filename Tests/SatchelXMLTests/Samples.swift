import Foundation

/// XML documents the tests read, as literals (no resources: the CMIS fixtures belong to another target).
enum Samples {
    static let atom = "http://www.w3.org/2005/Atom"
    static let cmis = "http://docs.oasis-open.org/ns/cmis/core/200908/"
    static let cmisra = "http://docs.oasis-open.org/ns/cmis/restatom/200908/"

    /// An AtomPub entry with both `atom:content` and `cmisra:content`, a default namespace and an extension.
    static let entry = """
        <?xml version="1.0" encoding="UTF-8"?>
        <entry xmlns="http://www.w3.org/2005/Atom"
               xmlns:cmisra="http://docs.oasis-open.org/ns/cmis/restatom/200908/"
               xmlns:cmis="http://docs.oasis-open.org/ns/cmis/core/200908/">
          <title type="text">Report &amp; notes</title>
          <content type="text/plain" src="http://h/c?id=1&amp;x=2"/>
          <cmisra:content><cmisra:mediatype>text/plain</cmisra:mediatype>
            <cmisra:base64>SGk=</cmisra:base64></cmisra:content>
          <mcm:myDocuments xmlns:mcm="http://www.sap.com/mcm">f-1</mcm:myDocuments>
          <summary><![CDATA[a <b>bold</b> & raw]]> tail</summary>
        </entry>
        """

    /// An excerpt of OpenCMIS's children feed (the `cmis-opencmis/atompub-children-feed.xml` fixture).
    static let openCMISFeed = """
        <?xml version='1.0' encoding='UTF-8'?><atom:feed xmlns:atom="http://www.w3.org/2005/Atom" \
        xmlns:cmis="http://docs.oasis-open.org/ns/cmis/core/200908/" \
        xmlns:cmisra="http://docs.oasis-open.org/ns/cmis/restatom/200908/" xmlns:app="http://www.w3.org/2007/app">\
        <atom:author><atom:name>Admin</atom:name></atom:author><atom:id>http://chemistry.apache.org/MTAw</atom:id>\
        <atom:title>RootFolder</atom:title><cmisra:numItems>5</cmisra:numItems>\
        <atom:link rel="next" href="http://127.0.0.1:8081/inmemory/atom11/A1/children?id=100&amp;skipCount=2&amp;\
        maxItems=2" type="application/atom+xml;type=feed"/>\
        <atom:link rel="alternate" href="http://127.0.0.1:8081/inmemory/atom11/A1/content?id=100-rendition" \
        type="image/png" cmisra:renditionKind="cmis:thumbnail" title="RootFolder" length="-1"/>\
        <atom:entry><atom:author><atom:name>unknown</atom:name></atom:author>\
        <atom:id>http://chemistry.apache.org/MTMz</atom:id><atom:title>My_Document-0-0</atom:title>\
        <atom:content src="http://127.0.0.1:8081/inmemory/atom11/A1/content/data.txt?id=133" type="text/plain"/>\
        <cmisra:object><cmis:properties>\
        <cmis:propertyBoolean propertyDefinitionId="BooleanProp" displayName="Sample Boolean Property" \
        localName="BooleanProp" queryName="BooleanProp"/>\
        <cmis:propertyId propertyDefinitionId="cmis:objectTypeId" displayName="Object Type Id" \
        localName="cmis:objectTypeId" queryName="cmis:objectTypeId"><cmis:value>ComplexType</cmis:value>\
        </cmis:propertyId>\
        <cmis:propertyString propertyDefinitionId="cmis:name" displayName="Name" localName="cmis:name" \
        queryName="cmis:name"><cmis:value>My_Document-0-0</cmis:value></cmis:propertyString>\
        <cmis:propertyId propertyDefinitionId="cmis:objectId" displayName="Object Id" localName="cmis:objectId" \
        queryName="cmis:objectId"><cmis:value>133</cmis:value></cmis:propertyId>\
        </cmis:properties></cmisra:object></atom:entry></atom:feed>
        """

    /// A CMIS-like feed of `count` entries, about 460 bytes each.
    static func feed(entries count: Int) -> Data {
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <atom:feed xmlns:atom="http://www.w3.org/2005/Atom" \
            xmlns:cmis="http://docs.oasis-open.org/ns/cmis/core/200908/" \
            xmlns:cmisra="http://docs.oasis-open.org/ns/cmis/restatom/200908/">
            <cmisra:numItems>\(count)</cmisra:numItems>

            """
        xml.reserveCapacity(count * 480 + 400)
        for index in 0..<count {
            xml += """
                <atom:entry><atom:id>urn:id:\(index)</atom:id><atom:title>Document &amp; \(index)</atom:title>\
                <atom:link rel="self" href="http://h/entry?id=\(index)"/><cmisra:object><cmis:properties>\
                <cmis:propertyId propertyDefinitionId="cmis:objectId"><cmis:value>\(index)</cmis:value>\
                </cmis:propertyId><cmis:propertyString propertyDefinitionId="cmis:name">\
                <cmis:value>Document-\(index).txt</cmis:value></cmis:propertyString>\
                <cmis:propertyInteger propertyDefinitionId="cmis:contentStreamLength"><cmis:value>\(index * 7)\
                </cmis:value></cmis:propertyInteger></cmis:properties></cmisra:object></atom:entry>

                """
        }
        xml += "</atom:feed>\n"
        return Data(xml.utf8)
    }
}

import SatchelCMISCore

/// The Nuxeo document types the server's Nuxeo API creates, as CMIS subtypes of the base types (the way Nuxeo's
/// own CMIS binding shows them): `File`, `Note` and `Picture` are documents, `Folder`, `Workspace`,
/// `OrderedFolder`, `WorkspaceRoot` and `Domain` folders. Each adds `dc:title`, the title Nuxeo keeps apart from
/// the name (its path segment), so a document created through either API keeps its type and its title, and
/// `SELECT * FROM Note` finds notes only. A CMIS client sees them as any subtype: queryable, and included in
/// queries on their base type.
package enum DocumentTypes {
    /// Where the subtypes' own names and `dc:title` live.
    static let namespace = "http://www.nuxeo.org/ecm/schemas/"

    /// The document subtypes, by Nuxeo type name.
    package static let documentTypes = ["File", "Note", "Picture"]
    /// The folder subtypes, by Nuxeo type name.
    package static let folderTypes = ["Folder", "Workspace", "OrderedFolder", "WorkspaceRoot", "Domain"]

    /// The property every subtype adds: Dublin Core's title.
    package static let titleProperty = "dc:title"

    static let all: [TypeDefinition] =
        documentTypes.map { subtype($0, of: BaseTypes.document) }
        + folderTypes.map { subtype($0, of: BaseTypes.folder) }

    /// `id` under `parent`: every property of the parent, marked inherited, and `dc:title`.
    static func subtype(_ id: String, of parent: TypeDefinition) -> TypeDefinition {
        var type = parent
        type.id = id
        type.parentTypeId = parent.id
        type.localName = id
        type.localNamespace = namespace
        type.displayName = id
        type.queryName = id
        type.description = "The Nuxeo document type \(id)"
        let title = BaseTypes.property(
            titleProperty, .string, .readwrite, orderable: true, display: "Title",
            description: "The title, apart from the name (Dublin Core)", localName: "title", namespace: namespace)
        type.propertyDefinitions =
            parent.propertyDefinitions.map { definition in
                var inherited = definition
                inherited.inherited = true
                return inherited
            } + [title]
        return type
    }
}

import Foundation
import SatchelJSON

extension BrowserJSONWriter {
    /// One object: properties (full or succinct), allowable actions, ACL, policy ids, renditions, relationships,
    /// change event info and extensions.
    public mutating func object(_ object: CMISObject, depth: Int = 0) {
        self.jsonObject { writer in
            writer.objectMembers(object, depth: depth)
        }
    }

    /// `byQueryName`: properties keyed by their query name (a query result's column, an alias when the query gave
    /// one), not their id.
    mutating func objectMembers(_ object: CMISObject, depth: Int, byQueryName: Bool = false) {
        if succinct {
            key("succinctProperties") { writer in
                writer.jsonObject { writer in
                    for property in object.properties {
                        writer.json.writeKey(byQueryName ? property.queryName ?? property.id : property.id)
                        writer.values(property.values, cardinality: property.cardinality)
                    }
                }
            }
        } else {
            key("properties") { writer in
                writer.jsonObject { writer in
                    for property in object.properties {
                        writer.key(byQueryName ? property.queryName ?? property.id : property.id) { writer in
                            writer.property(property)
                        }
                    }
                }
            }
        }
        if let actions = object.allowableActions {
            key("allowableActions") { $0.allowableActions(actions) }
        }
        if let acl = object.acl {
            key("acl") { $0.acl(acl) }
            optional("exactACL", acl.isExact)
        }
        if !object.policyIds.isEmpty {
            key("policyIds") { writer in writer.jsonObject { $0.strings("ids", object.policyIds) } }
        }
        if !object.renditions.isEmpty {
            key("renditions") { writer in
                writer.jsonArray { writer in
                    for rendition in object.renditions { writer.rendition(rendition) }
                }
            }
        }
        if !object.relationships.isEmpty && depth < 8 {
            key("relationships") { writer in
                writer.jsonArray { writer in
                    for relationship in object.relationships { writer.object(relationship, depth: depth + 1) }
                }
            }
        }
        if let info = object.changeEventInfo {
            key("changeEventInfo") { writer in
                writer.jsonObject { writer in
                    writer.json.write(key: "changeType", info.changeType.rawValue)
                    if let time = info.changeTime { writer.json.write(key: "changeTime", Self.milliseconds(time)) }
                }
            }
        }
        extensions(object.extensions, excluding: Self.objectKeys)
    }

    static let objectKeys: Set<String> = [
        "properties", "succinctProperties", "propertiesExtension", "allowableActions", "relationships",
        "changeEventInfo", "acl", "exactACL", "policyIds", "renditions",
    ]

    /// A full property: `{id, localName, displayName, queryName, type, cardinality, value}`.
    package mutating func property(_ property: CMISProperty) {
        jsonObject { writer in
            writer.json.write(key: "id", property.id)
            writer.optional("localName", property.localName)
            writer.optional("displayName", property.displayName)
            writer.optional("queryName", property.queryName)
            writer.json.write(key: "type", property.type.rawValue)
            writer.json.write(key: "cardinality", property.cardinality.rawValue)
            writer.json.writeKey("value")
            writer.values(property.values, cardinality: property.cardinality)
        }
    }

    /// `{"canGetChildren": true, …}` (the allowed actions only).
    public mutating func allowableActions(_ actions: AllowableActions) {
        jsonObject { writer in
            for action in actions.actions.map(\.rawValue).sorted() { writer.json.write(key: action, true) }
        }
    }

    /// `{"aces":[{"principal":{"principalId":…},"permissions":[…],"isDirect":…}],"isExact":…}`.
    public mutating func acl(_ acl: ACL) {
        jsonObject { writer in
            writer.key("aces") { writer in
                writer.jsonArray { writer in
                    for ace in acl.aces {
                        writer.jsonObject { writer in
                            writer.key("principal") {
                                $0.jsonObject { $0.json.write(key: "principalId", ace.principalId) }
                            }
                            writer.strings("permissions", ace.permissions)
                            writer.json.write(key: "isDirect", ace.isDirect)
                        }
                    }
                }
            }
            writer.optional("isExact", acl.isExact)
        }
    }

    /// One rendition object: `streamId`, then each of `mimeType`, `length`, `kind`, `title`, `height`,
    /// `width` and `renditionDocumentId` that is set.
    public mutating func rendition(_ rendition: Rendition) {
        jsonObject { writer in
            writer.json.write(key: "streamId", rendition.streamId)
            writer.optional("mimeType", rendition.mimeType)
            writer.optional("length", rendition.length)
            writer.optional("kind", rendition.kind)
            writer.optional("title", rendition.title)
            writer.optional("height", rendition.height)
            writer.optional("width", rendition.width)
            writer.optional("renditionDocumentId", rendition.renditionDocumentId)
        }
    }

    /// A renditions array.
    public mutating func renditions(_ renditions: [Rendition]) {
        jsonArray { writer in
            for rendition in renditions { writer.rendition(rendition) }
        }
    }

    // MARK: Lists

    /// getChildren: `{"objects":[{"object":…,"pathSegment":…}],"hasMoreItems":…,"numItems":…}`.
    public mutating func children(_ list: ObjectInFolderList) {
        jsonObject { writer in
            writer.key("objects") { writer in
                writer.jsonArray { writer in
                    for item in list.objects { writer.objectInFolder(item) }
                }
            }
            writer.json.write(key: "hasMoreItems", list.hasMoreItems)
            writer.optional("numItems", list.numItems)
        }
    }

    mutating func objectInFolder(_ item: ObjectInFolder) {
        jsonObject { writer in
            writer.key("object") { $0.object(item.object) }
            writer.optional("pathSegment", item.pathSegment)
        }
    }

    /// getDescendants / getFolderTree: `[{"object":{"object":…,"pathSegment":…},"children":[…]}]`.
    public mutating func containers(_ nodes: [ContainerNode], depth: Int = 0) {
        jsonArray { writer in
            for node in nodes {
                writer.jsonObject { writer in
                    writer.key("object") { $0.objectInFolder(node.item) }
                    if !node.children.isEmpty && depth < 256 {
                        writer.key("children") { $0.containers(node.children, depth: depth + 1) }
                    }
                }
            }
        }
    }

    /// getObjectParents: `[{"object":…,"relativePathSegment":…}]`.
    public mutating func parents(_ parents: [ObjectParent]) {
        jsonArray { writer in
            for parent in parents {
                writer.jsonObject { writer in
                    writer.key("object") { $0.object(parent.object) }
                    writer.optional("relativePathSegment", parent.relativePathSegment)
                }
            }
        }
    }

    /// A bare array of objects (getAllVersions, getAppliedPolicies).
    public mutating func objects(_ objects: [CMISObject]) {
        jsonArray { writer in
            for object in objects { writer.object(object) }
        }
    }

    /// `{"objects":[…],"hasMoreItems":…,"numItems":…}` (checkedOut, relationships).
    public mutating func objectList(_ list: ObjectList) {
        jsonObject { writer in
            writer.key("objects") { $0.objects(list.objects) }
            writer.json.write(key: "hasMoreItems", list.hasMoreItems)
            writer.optional("numItems", list.numItems)
        }
    }

    /// Query results: `{"results":[…],"hasMoreItems":…,"numItems":…}`, each result's properties keyed by query
    /// name (CMIS 1.1 part II, 5.4.3.1): `cmis:objectId AS oid` is `"oid"`, with the id `cmis:objectId` inside the
    /// full form.
    public mutating func queryResults(_ list: ObjectList) {
        jsonObject { writer in
            writer.key("results") { writer in
                writer.jsonArray { writer in
                    for object in list.objects {
                        writer.jsonObject { writer in writer.objectMembers(object, depth: 0, byQueryName: true) }
                    }
                }
            }
            writer.json.write(key: "hasMoreItems", list.hasMoreItems)
            writer.optional("numItems", list.numItems)
        }
    }

    /// getContentChanges: `{"objects":[…],"changeLogToken":…,"hasMoreItems":…,"numItems":…}`.
    public mutating func contentChanges(_ changes: ContentChanges) {
        jsonObject { writer in
            writer.key("objects") { $0.objects(changes.objects) }
            writer.optional("changeLogToken", changes.changeLogToken)
            writer.json.write(key: "hasMoreItems", changes.hasMoreItems)
            writer.optional("numItems", changes.numItems)
        }
    }
}

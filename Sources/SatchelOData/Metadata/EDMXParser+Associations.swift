extension EDMXParser {
    /// V2: fills in each navigation property's target type, partner and referential constraints from its
    /// association, and each entity set's navigation bindings from the association sets.
    mutating func resolveAssociations(_ schemas: inout [CSDLSchema]) {
        var associations: [String: CSDLAssociation] = [:]
        for association in schemas.flatMap(\.associations) { associations[association.qualifiedName] = association }
        let types = schemas.flatMap(\.entityTypes)
        for s in schemas.indices {
            for t in schemas[s].entityTypes.indices {
                let type = schemas[s].entityTypes[t]
                for n in type.navigationProperties.indices {
                    let navigation = type.navigationProperties[n]
                    guard let relationship = navigation.relationship else { continue }
                    let here =
                        "Schema(\(type.namespace))/EntityType(\(type.name))/NavigationProperty(\(navigation.name))"
                    guard let association = associations[relationship] else {
                        note(.warning, "association \(relationship) not found", at: here)
                        continue
                    }
                    guard let to = navigation.toRole.flatMap(association.end(role:)) else {
                        note(.warning, "role \(navigation.toRole ?? "?") not in \(relationship)", at: here)
                        continue
                    }
                    var resolved = navigation
                    resolved.type = CSDLTypeReference(
                        name: to.type, isCollection: to.multiplicity == "*", nullable: to.multiplicity != "1")
                    resolved.onDelete = navigation.fromRole.flatMap(association.end(role:))?.onDelete
                    if let constraint = association.referentialConstraint,
                        constraint.dependentRole == navigation.fromRole
                    {
                        resolved.referentialConstraints = zip(
                            constraint.dependentProperties, constraint.principalProperties
                        ).map { .init(property: $0, referencedProperty: $1) }
                    }
                    resolved.partner =
                        types.first { $0.qualifiedName == to.type }?.navigationProperties.first {
                            $0.relationship == relationship && $0.fromRole == navigation.toRole
                                && $0.toRole == navigation.fromRole
                        }?.name
                    schemas[s].entityTypes[t].navigationProperties[n] = resolved
                }
            }
        }
        bindEntitySets(&schemas, associations: associations)
    }

    private mutating func bindEntitySets(_ schemas: inout [CSDLSchema], associations: [String: CSDLAssociation]) {
        let types = schemas.flatMap(\.entityTypes)
        for s in schemas.indices {
            for c in schemas[s].entityContainers.indices {
                let container = schemas[s].entityContainers[c]
                for e in container.entitySets.indices {
                    let set = container.entitySets[e]
                    guard let type = types.first(where: { $0.qualifiedName == set.entityType }) else {
                        note(
                            .warning, "entity type \(set.entityType) not found",
                            at: "EntityContainer(\(container.name))/EntitySet(\(set.name))")
                        continue
                    }
                    for navigation in type.navigationProperties {
                        guard let relationship = navigation.relationship, let from = navigation.fromRole,
                            let to = navigation.toRole
                        else { continue }
                        let match = container.associationSets.first {
                            $0.association == relationship && $0.ends[from] == set.name
                        }
                        if let target = match?.ends[to] {
                            schemas[s].entityContainers[c].entitySets[e].navigationBindings[navigation.name] = target
                        }
                    }
                }
            }
        }
    }
}

// One import gives an app the offline store and everything it is used with: the OData client (queries, values,
// the service a store syncs with, auth providers) and the encrypted store's keys and errors.
@_exported public import SatchelOData
@_exported public import SatchelStore

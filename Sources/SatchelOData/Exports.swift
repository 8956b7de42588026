// One import gives an app the whole OData client: the HTTP client, transports and auth providers a service is
// built on, and the JSON values some payloads carry.
@_exported public import SatchelHTTP
@_exported public import SatchelJSON

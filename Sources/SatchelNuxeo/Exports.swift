// One import gives an app the whole Nuxeo client: the HTTP client, transports and auth providers a session is
// built on, and the JSON values documents and entities carry.
@_exported public import SatchelHTTP
@_exported public import SatchelJSON
